import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { REGEX_TIMEOUT_MS, regexMatch } from "./regex-match.js";

describe("regexMatch", () => {
  it("scores a match 1 and a miss 0, naming the pattern", () => {
    expect(regexMatch({ actual: "Order #123 shipped", pattern: "#\\d+" })).toEqual({
      value: 1,
      passed: true,
      label: "regex-match",
      rationale: "actual matches /#\\d+/",
    });
    expect(regexMatch({ actual: "no order", pattern: "#\\d+" })).toEqual({
      value: 0,
      passed: false,
      label: "regex-match",
      rationale: "actual does not match /#\\d+/",
    });
  });

  it("applies flags", () => {
    expect(regexMatch({ actual: "HELLO", pattern: "hello" }).passed).toBe(false);
    expect(regexMatch({ actual: "HELLO", pattern: "hello", flags: "i" }).passed).toBe(true);
    expect(regexMatch({ actual: "a\nb", pattern: "^b$" }).passed).toBe(false);
    expect(regexMatch({ actual: "a\nb", pattern: "^b$", flags: "m" }).passed).toBe(true);
    expect(regexMatch({ actual: "a\nb", pattern: "a.b", flags: "s" }).passed).toBe(true);
    expect(regexMatch({ actual: "x", pattern: "x", flags: "i" }).rationale).toBe(
      "actual matches /x/i",
    );
  });

  it("gives the same answer on every call with the stateful g and y flags", () => {
    for (let round = 0; round < 3; round++) {
      expect(regexMatch({ actual: "abc abc", pattern: "abc", flags: "g" }).passed).toBe(true);
      expect(regexMatch({ actual: "abc", pattern: "a", flags: "y" }).passed).toBe(true);
    }
  });

  it("understands Unicode with the u and v flags", () => {
    expect(regexMatch({ actual: "Ünïcödé", pattern: "^\\p{L}+$", flags: "u" }).passed).toBe(true);
    expect(regexMatch({ actual: "😀", pattern: "^.$" }).passed).toBe(false);
    expect(regexMatch({ actual: "😀", pattern: "^.$", flags: "u" }).passed).toBe(true);
    expect(regexMatch({ actual: "b", pattern: "^[\\w--[a]]$", flags: "v" }).passed).toBe(true);
  });

  it("fails an invalid pattern with 'invalid pattern:' and never throws", () => {
    for (const pattern of ["(", "[a-", "a{2,1}", "*", "(?<n>a)(?<n>b)"]) {
      const score = regexMatch({ actual: "a", pattern });
      expect(score).toMatchObject({ value: 0, passed: false, label: "regex-match" });
      expect(score.rationale).toMatch(/^invalid pattern: /);
    }
  });

  it("fails invalid or repeated flags with 'invalid pattern:'", () => {
    for (const flags of ["zz", "gg", "uv"]) {
      const score = regexMatch({ actual: "a", pattern: "a", flags });
      expect(score.value).toBe(0);
      expect(score.rationale).toMatch(/^invalid pattern: .*flags/i);
    }
  });

  it("answers correctly for nested-quantifier patterns that do not blow up", () => {
    expect(regexMatch({ actual: "hello world ", pattern: "^(\\w+\\s)+$" }).passed).toBe(true);
    expect(regexMatch({ actual: "hello world", pattern: "^(\\w+\\s)+$" }).passed).toBe(false);
    expect(regexMatch({ actual: "abab", pattern: "^(a|b)+$" }).passed).toBe(true);
  });

  it(
    "stops a catastrophically backtracking pattern and fails the score instead of hanging",
    () => {
      const started = performance.now();
      const score = regexMatch({ actual: `${"a".repeat(40)}!`, pattern: "^(a+)+$" });
      const elapsed = performance.now() - started;
      expect(score).toMatchObject({ value: 0, passed: false, label: "regex-match" });
      expect(score.rationale).toMatch(/ran over 1000 ms on 41 chars and was stopped/);
      expect(elapsed).toBeGreaterThanOrEqual(REGEX_TIMEOUT_MS - 5);
      expect(elapsed).toBeLessThan(REGEX_TIMEOUT_MS * 5);
      // The worker is replaced: the next guarded pattern still gets an answer.
      expect(regexMatch({ actual: "aaa", pattern: "^(a+)+$" }).passed).toBe(true);
    },
    REGEX_TIMEOUT_MS * 10,
  );

  it("keeps answering correctly past the compile cache's bound", () => {
    for (let n = 0; n < 700; n++) {
      expect(regexMatch({ actual: `id-${n}`, pattern: `^id-${n}$` }).passed).toBe(true);
    }
    expect(regexMatch({ actual: "id-1", pattern: "^id-1$" }).passed).toBe(true);
  });

  it("agrees with RegExp.test on escaped literal patterns (property)", () => {
    const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    fc.assert(
      fc.property(fc.string(), fc.string({ maxLength: 4 }), (actual, needle) => {
        const score = regexMatch({ actual, pattern: literal(needle) });
        expect(score.passed).toBe(actual.includes(needle));
      }),
    );
  });
});
