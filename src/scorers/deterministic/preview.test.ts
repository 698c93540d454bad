import { describe, expect, it } from "vitest";
import { safeStringify } from "../../json-safe.js";
import { show, showAsStored } from "./preview.js";

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

  it("shows a cycle with the store's marker, and showAsStored a BigInt, a function and a symbol too", () => {
    const node: Record<string, unknown> = { n: 2n };
    node.self = node;
    expect(show(node)).toBe('{"n":2n,"self":"[unserialisable: circular reference]"}');
    expect(show({ f() {}, n: 1n })).toBe('{"n":1n}');
    expect(showAsStored(node)).toBe(
      '{"n":"[unserialisable: bigint 2]","self":"[unserialisable: circular reference]"}'.slice(
        0,
        60,
      ) + "…",
    );
    expect(showAsStored([function named() {}, Symbol("s")])).toBe(
      '["[unserialisable: function named]","[unserialisable: Symbol(s)]"]'.slice(0, 60) + "…",
    );
    expect(showAsStored(3n)).toBe('"[unserialisable: bigint 3]"');
    // What JSON writes as null, and an Error with its stack's head, as the store keeps them.
    expect(showAsStored({ x: Number.NaN, l: [undefined, Number.POSITIVE_INFINITY] })).toBe(
      '{"x":null,"l":[null,null]}',
    );
    const error = new Error("boom");
    expect(showAsStored(error)).toBe(`${safeStringify(error).slice(0, 60)}…`);
    // The same object twice beside itself is no cycle.
    const shared = { k: 1 };
    expect(show([shared, shared])).toBe('[{"k":1},{"k":1}]');
  });
});
