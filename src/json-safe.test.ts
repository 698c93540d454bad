import { describe, expect, it } from "vitest";
import { CIRCULAR_MARKER, safeStringify, wellFormedJson } from "./json-safe.js";

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

  it("writes functions, symbols, errors, Maps, Sets, typed arrays, RegExps and Dates", () => {
    const cause = new Error("inner");
    const error = Object.assign(new TypeError("outer", { cause }), { code: "E_X" });
    const value = {
      fn: function named() {},
      arrow: () => 1,
      sym: Symbol("s"),
      error,
      map: new Map<unknown, unknown>([
        ["a", 1],
        [2, 10n],
      ]),
      set: new Set([1, "two"]),
      bytes: new Uint8Array([1, 2, 3]),
      bigs: new BigInt64Array([5n]),
      buffer: new ArrayBuffer(16),
      regex: /a+/gi,
      date: new Date(0),
      invalid: new Date(Number.NaN),
      weak: new WeakMap(),
    };
    const parsed = JSON.parse(safeStringify(value));
    expect(parsed).toMatchObject({
      fn: "[unserialisable: function named]",
      arrow: "[unserialisable: function arrow]",
      sym: "[unserialisable: Symbol(s)]",
      error: { name: "TypeError", message: "outer", code: "E_X", cause: { message: "inner" } },
      map: { a: 1, "2": "[unserialisable: bigint 10]" },
      set: [1, "two"],
      bytes: [1, 2, 3],
      bigs: ["5"],
      buffer: "[unserialisable: ArrayBuffer of 16 bytes]",
      regex: "/a+/gi",
      date: "1970-01-01T00:00:00.000Z",
      invalid: "[unserialisable: invalid Date]",
      weak: "[unserialisable: WeakMap]",
    });
    // The stack's head only: the message line and a few frames.
    expect(parsed.error.stack).toMatch(/^TypeError: outer\n/);
    expect(parsed.error.stack.split("\n").length).toBeLessThanOrEqual(6);
  });

  it("caps a large typed array with a marker counting the rest", () => {
    const parsed = JSON.parse(safeStringify({ big: new Float64Array(10_005) }));
    expect(parsed.big).toHaveLength(10_001);
    expect(parsed.big.at(-1)).toBe("[unserialisable: 5 more items of Float64Array]");
  });

  it("marks a cycle through a Map, a Set or an error's cause", () => {
    const map = new Map<string, unknown>();
    map.set("self", map);
    const error = new Error("loop") as Error & { cause?: unknown };
    error.cause = error;
    const parsed = JSON.parse(safeStringify({ map, set: new Set([map]), error }));
    expect(parsed.map).toEqual({ self: CIRCULAR_MARKER });
    expect(parsed.set).toEqual([{ self: CIRCULAR_MARKER }]);
    expect(parsed.error.cause).toBe(CIRCULAR_MARKER);
  });

  it("bounds nesting that would overflow the stack", () => {
    let deep: Record<string, unknown> = { leaf: 1n };
    for (let i = 0; i < 20_000; i++) deep = { deep };
    expect(() => JSON.parse(safeStringify(deep))).not.toThrow();
  });
});

describe("wellFormedJson", () => {
  it("writes a lone surrogate as U+FFFD, and leaves pairs and escaped backslashes be", () => {
    const text = (value: unknown) => wellFormedJson(JSON.stringify(value));
    expect(JSON.parse(text({ a: "x\ud800y", b: "\udc00", c: "👩" }))).toEqual({
      a: "x\ufffdy",
      b: "\ufffd",
      c: "👩",
    });
    // Two lone halves in a row, in the wrong order: each replaced.
    expect(JSON.parse(text("\udc00\ud800"))).toBe("\ufffd\ufffd");
    // A backslash followed by "ud800" in the text is not an escape of a surrogate.
    expect(JSON.parse(text(["\\ud800", "\\\\ud800", "C:\\udata"]))).toEqual([
      "\\ud800",
      "\\\\ud800",
      "C:\\udata",
    ]);
    expect(JSON.parse(text({ "k\ud800": 1 }))).toEqual({ "k\ufffd": 1 });
    // A backslash, then a lone surrogate: the backslash kept.
    expect(JSON.parse(text("\\\ud800"))).toBe("\\\ufffd");
  });
});
