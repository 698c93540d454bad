import { describe, expect, it } from "vitest";
import { CIRCULAR_MARKER, safeStringify } from "./json-safe.js";

describe("safeStringify", () => {
  it("is JSON.stringify for plain values", () => {
    const value = { a: [1, "x", null], b: { c: true }, d: new Date(0) };
    expect(safeStringify(value)).toBe(JSON.stringify(value));
    expect(safeStringify(undefined)).toBe("null");
  });

  it("replaces cycles and BigInts with markers and keeps the rest", () => {
    const value: Record<string, unknown> = { n: 10n, name: "x", shared: { k: 1 } };
    value.self = value;
    value.again = value.shared; // a repeated reference that is not a cycle stays
    expect(JSON.parse(safeStringify(value))).toEqual({
      n: "[unserialisable: bigint 10]",
      name: "x",
      shared: { k: 1 },
      self: CIRCULAR_MARKER,
      again: { k: 1 },
    });
  });

  it("replaces a throwing getter or toJSON with its message, not the whole value", () => {
    const value = {
      ok: 1,
      get bad(): never {
        throw new Error("no getter");
      },
      nested: {
        toJSON: () => {
          throw new Error("no toJSON");
        },
      },
    };
    expect(JSON.parse(safeStringify(value))).toEqual({
      ok: 1,
      bad: "[unserialisable: no getter]",
      nested: "[unserialisable: no toJSON]",
    });
  });

  it("bounds nesting that would overflow the stack", () => {
    let deep: Record<string, unknown> = { leaf: 1n };
    for (let i = 0; i < 20_000; i++) deep = { deep };
    expect(() => JSON.parse(safeStringify(deep))).not.toThrow();
  });
});
