import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ToolInputError } from "../../errors.js";
import { runTool } from "../../tool/run-tool.js";
import { type ExactMatchInput, exactMatch, exactMatchTool } from "./exact-match.js";
import { evalScorersProvider } from "./provider.js";

describe("exactMatch", () => {
  it.each([
    [{ actual: undefined, expected: "a" }, "actual"],
    [{ actual: "a", expected: 3 }, "expected"],
    [{ actual: "a", expected: "a", trim: "yes" }, "trim"],
  ])("throws the tool's ToolInputError, naming the field, on %j", async (input, field) => {
    const direct = (() => {
      try {
        exactMatch(input as unknown as ExactMatchInput);
      } catch (error) {
        return error;
      }
    })();
    expect(direct).toBeInstanceOf(ToolInputError);
    expect((direct as ToolInputError).issues[0]?.path).toBe(field);
    const viaTool = await runTool({
      tool: exactMatchTool,
      candidates: [evalScorersProvider],
      input: input as unknown as ExactMatchInput,
    }).catch((error: unknown) => error);
    expect((direct as Error).message).toBe((viaTool as Error).message);
  });

  it("names every wrong field in one message, not the first and a count", () => {
    const input = { actual: 42, expected: 42 } as unknown as ExactMatchInput;
    expect(() => exactMatch(input)).toThrow(
      'invalid input for tool "eval.exact-match": actual: Invalid input: expected string, received number; expected: Invalid input: expected string, received number. Fix the value passed as `input` (or the binding\'s mapInput).',
    );
    const many = new ToolInputError(
      "demo",
      Array.from({ length: 12 }, (_, index) => ({ path: `f${index}`, message: "bad" })),
    );
    expect(many.message).toContain("f8: bad; f9: bad; and 2 more.");
  });

  it("refuses a misspelt key, saying which was meant, instead of scoring without it", () => {
    expect(() =>
      exactMatch({ actual: " a", expected: "a", trimm: true } as unknown as ExactMatchInput),
    ).toThrow('unknown key "trimm" (did you mean "trim"?); known keys: actual, expected, trim');
  });

  it("scores equal strings 1 with the seed's rationale", () => {
    expect(exactMatch({ actual: "hello", expected: "hello" })).toEqual({
      value: 1,
      passed: true,
      label: "exact-match",
      rationale: "actual equals expected",
    });
  });

  it("scores different strings 0 and says where they first differ", () => {
    const score = exactMatch({ actual: "hellp", expected: "hello" });
    expect(score).toMatchObject({ value: 0, passed: false, label: "exact-match" });
    expect(score.rationale).toBe(
      'actual differs from expected at character 4: actual "hellp", expected "hello"',
    );
  });

  it("reports a prefix as differing at the end of the shorter string", () => {
    expect(exactMatch({ actual: "hel", expected: "hello" }).rationale).toContain("at character 3");
  });

  it("does not trim unless asked", () => {
    expect(exactMatch({ actual: " hello\n", expected: "hello" }).passed).toBe(false);
    expect(exactMatch({ actual: " hello\n", expected: "hello", trim: true }).passed).toBe(true);
    expect(exactMatch({ actual: "hello", expected: "\thello ", trim: true }).passed).toBe(true);
  });

  it("trims Unicode whitespace such as no-break and ideographic spaces", () => {
    expect(exactMatch({ actual: "\u00a0日本\u3000", expected: "日本", trim: true }).value).toBe(1);
  });

  it("compares code units: composed and decomposed é differ, emoji compare whole", () => {
    expect(exactMatch({ actual: "caf\u00e9", expected: "cafe\u0301" }).passed).toBe(false);
    expect(exactMatch({ actual: "👋🏽 hi", expected: "👋🏽 hi" }).passed).toBe(true);
  });

  it("counts characters by code point and names two emoji that differ, not their halves", () => {
    // 😀 and 😁 share their first UTF-16 unit: the difference is the whole character.
    expect(exactMatch({ actual: "\u{1F600}", expected: "\u{1F601}" }).rationale).toBe(
      'actual differs from expected at character 0: actual "\u{1F600}", expected "\u{1F601}"',
    );
    expect(exactMatch({ actual: "👋 a", expected: "👋 b" }).rationale).toBe(
      'actual differs from expected at character 2: actual "👋 a", expected "👋 b"',
    );
    const hidden = exactMatch({ actual: "😀\u200b", expected: "😀" }).rationale;
    expect(hidden).toBe(
      'actual differs from expected at character 1: actual "😀\u200b", expected "😀" (there U+200B against the end)',
    );
  });

  it("says what the quoted strings cannot show: the code points there, another normalisation", () => {
    expect(exactMatch({ actual: "caf\u00e9", expected: "cafe\u0301" }).rationale).toBe(
      'actual differs from expected at character 3: actual "caf\u00e9", expected "cafe\u0301" (there U+00E9 against U+0065; the same text in another Unicode normalisation: actual NFC, expected NFD)',
    );
    expect(exactMatch({ actual: "a\u00a0b", expected: "a b" }).rationale).toBe(
      'actual differs from expected at character 1: actual "a\u00a0b", expected "a b" (there U+00A0 against U+0020)',
    );
    const long = "x".repeat(100);
    expect(exactMatch({ actual: `${long}a`, expected: `${long}b` }).rationale).toContain(
      "(there U+0061 against U+0062)",
    );
    expect(exactMatch({ actual: "search ", expected: "search" }).rationale).toBe(
      'actual differs from expected at character 6: actual "search ", expected "search"',
    );
  });

  it("is case sensitive", () => {
    expect(exactMatch({ actual: "Hello", expected: "hello" }).value).toBe(0);
  });

  it("cuts long strings in the rationale", () => {
    const long = "x".repeat(500);
    const rationale = exactMatch({ actual: long, expected: `${long}y` }).rationale ?? "";
    expect(rationale).toContain("(500 chars)");
    expect(rationale.length).toBeLessThan(250);
  });

  it("passes exactly when the strings are equal (property)", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        const score = exactMatch({ actual: a, expected: b });
        expect(score.passed).toBe(a === b);
        expect(score.value).toBe(a === b ? 1 : 0);
      }),
    );
  });
});
