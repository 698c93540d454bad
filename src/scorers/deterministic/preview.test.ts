import { describe, expect, it } from "vitest";
import { show } from "./preview.js";

describe("show", () => {
  it("shows what JSON would write as null as it is", () => {
    expect(show({ value: Number.NaN, rationale: "oops" })).toBe('{"value":NaN,"rationale":"oops"}');
    expect(show([Number.NEGATIVE_INFINITY, undefined, null])).toBe("[-Infinity,undefined,null]");
    expect(show(Number.NaN)).toBe("NaN");
  });

  it("shows what JSON would write as {} as the store keeps it, never as an empty object", () => {
    expect(
      show(
        new Map<unknown, unknown>([
          ["a", 1],
          [{ k: 1 }, new Set([2])],
        ]),
      ),
    ).toBe('{"a":1,"{\\"k\\":1}":[2]}');
    expect(show({ s: new Set(["x"]), d: new Date(Number.NaN) })).toBe(
      '{"s":["x"],"d":"[unserialisable: invalid Date]"}',
    );
    expect(show([/a+/g])).toBe('["/a+/g"]');
    expect(show(new Uint8Array([1, 2]))).toBe("[1,2]");
    expect(show(new Uint8Array([1]).buffer)).toBe('"[unserialisable: ArrayBuffer of 1 bytes]"');
    expect(show([Promise.resolve()])).toBe('["[unserialisable: Promise]"]');
    expect(show([new String("s"), new Number(2)])).toBe('["s",2]');
    const error = Object.assign(new TypeError("bad"), { name: "TypeError", code: 7 });
    expect(show(error)).toBe('{"name":"TypeError","message":"bad","code":7}');
    expect(show(new Map([["k", "v".repeat(100)]]))).toBe(`{"k":"${"v".repeat(54)}…`);
  });
});
