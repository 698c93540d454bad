import { describe, expect, it } from "vitest";
import { SequenceHash } from "./hash.js";

describe("SequenceHash.addCase", () => {
  it("gives the digest add({ id, input, expected }) gives", () => {
    const values: unknown[] = [
      undefined,
      null,
      0,
      -0,
      1.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      true,
      false,
      "",
      "plain",
      'quote " and \\ backslash',
      "line\nbreak\tand \u0001 control",
      "emoji 😀 and lone \ud800 surrogate",
      "\u2028 separators \u2029",
      { nested: [1, "a", null] },
      [1, 2],
      new Date(0),
      12n,
      () => 1,
      Symbol("s"),
    ];
    const viaAdd = new SequenceHash();
    const viaCase = new SequenceHash();
    let n = 0;
    for (const input of values) {
      for (const expected of values) {
        const id = n % 3 === 0 ? `case-${n}` : `id "${n}"\n`;
        viaAdd.add({ id, input, expected });
        viaCase.addCase(id, input, expected);
        n++;
      }
    }
    // Past one chunk too.
    for (let i = 0; i < 5000; i++) {
      viaAdd.add({ id: `c${i}`, input: "x".repeat(20), expected: i });
      viaCase.addCase(`c${i}`, "x".repeat(20), i);
    }
    expect(viaCase.digest()).toBe(viaAdd.digest());
  });
});
