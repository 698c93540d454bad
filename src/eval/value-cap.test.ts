import { describe, expect, it } from "vitest";
import type { AttemptRecord } from "./record.js";
import { capRunValues, jsonHead, jsonSizeOver } from "./value-cap.js";

const record = (values: Record<string, unknown>) => ({ ...values }) as unknown as AttemptRecord;

describe("capRunValues", () => {
  it("leaves values within the cap as they are, and cuts larger ones to a marker with their size", () => {
    const small = { text: "fine", n: 1 };
    const big = "x".repeat(2000);
    const capped = capRunValues(record({ output: small, metadata: big, trace: [big] }), 1000);
    expect(capped.output).toBe(small);
    expect(capped.metadata).toEqual({ "~truncated": true, bytes: 2002, head: expect.any(String) });
    expect((capped.metadata as { head: string }).head.startsWith('"xxx')).toBe(true);
    expect(capped.trace).toMatchObject({
      "~truncated": true,
      head: expect.stringMatching(/^\["x/),
    });
  });

  it("sizes wide and deep values only as far as the cap, and survives cycles", () => {
    const wide: Record<string, number> = {};
    for (let i = 0; i < 100_000; i++) wide[`k${i}`] = i;
    expect(jsonSizeOver(wide, 1000)).toBeGreaterThan(1000);
    expect(jsonSizeOver(new Array(10_000).fill(1), 100_000)).toBeUndefined();
    const cyclic: Record<string, unknown> = { a: "b" };
    cyclic.self = cyclic;
    expect(jsonSizeOver(cyclic, 100)).toBeUndefined();
    expect(jsonHead({ a: [1, "two", null], b: { c: true } }, 100)).toBe(
      '{"a":[1,"two",null],"b":{"c":true}}',
    );
    expect(jsonHead(wide, 20)).toBe('{"k0":0,"k1":1,"k2":');
  });
});
