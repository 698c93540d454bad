import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type RegexMatchInput, regexMatch } from "./regex-match.js";

describe("regexMatch", () => {
  it.each([
    [{ actual: 5, pattern: "a" }, "actual"],
    [{ actual: undefined, pattern: "a" }, "actual"],
    [{ actual: "a", pattern: 7 }, "pattern"],
    [{ actual: "a", pattern: "a", flags: 1 }, "flags"],
    [null, "(root)"],
  ])(
    "is errored, naming the field as the tool does, on %j (never an engine error)",
    (input, field) => {
      const score = regexMatch(input as unknown as RegexMatchInput);
      expect(score).toMatchObject({ value: 0, passed: false, errored: true, label: "regex-match" });
      expect(score.rationale).toMatch(
        new RegExp(`^invalid input: ${field.replace(/[()]/g, "\\$&")}: `),
      );
    },
  );

  it("is errored on a misspelt key, saying which was meant, instead of matching without it", () => {
    const score = regexMatch({ actual: "ABC", pattern: "abc", flag: "i" } as never);
    expect(score).toMatchObject({ value: 0, passed: false, errored: true });
    expect(score.rationale).toContain('unknown key "flag" (did you mean "flags"?)');
  });

  it("takes \\r\\n as a line end under m, as RegExp does (an answer with Windows line ends)", () => {
    const actual = "Réponse : 42\r\nConfiance : haute\r\n";
    expect(/^Réponse : \d+$/m.test(actual)).toBe(true);
    expect(regexMatch({ actual, pattern: "^Réponse : \\d+$", flags: "m" })).toMatchObject({
      value: 1,
      passed: true,
    });
    expect(regexMatch({ actual, pattern: "^Confiance : \\w+$", flags: "m" }).value).toBe(1);
  });

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

  it("understands Unicode with u, and matches by code point without it", () => {
    expect(regexMatch({ actual: "Ünïcödé", pattern: "^\\p{L}+$", flags: "u" }).passed).toBe(true);
    expect(regexMatch({ actual: "😀", pattern: "^.$", flags: "u" }).passed).toBe(true);
    // RE2 reads whole code points: one emoji is one character even without u.
    expect(regexMatch({ actual: "😀", pattern: "^.$" }).passed).toBe(true);
    expect(regexMatch({ actual: "b", pattern: "^[\\w]$", flags: "v" }).passed).toBe(true);
  });

  it("keeps JavaScript's meaning of \\s and the dot", () => {
    expect(regexMatch({ actual: "a\u00a0b", pattern: "a\\sb" }).passed).toBe(true);
    expect(regexMatch({ actual: "a\u00a0b", pattern: "a[^\\S]b" }).passed).toBe(true);
    expect(regexMatch({ actual: "a\rb", pattern: "a.b" }).passed).toBe(false);
    expect(regexMatch({ actual: "a\rb", pattern: "a.b", flags: "s" }).passed).toBe(true);
    expect(regexMatch({ actual: "[x]", pattern: "[[:alpha:]]" }).passed).toBe(false);
  });

  it("errors an invalid pattern with 'invalid pattern:' and never throws", () => {
    for (const pattern of ["(", "[a-", "a{2,1}", "*", "(?<n>a)(?<n>b)"]) {
      const score = regexMatch({ actual: "a", pattern });
      expect(score).toMatchObject({ value: 0, passed: false, errored: true, label: "regex-match" });
      expect(score.rationale).toMatch(/^invalid pattern: /);
    }
  });

  it("errors invalid or repeated flags with 'invalid pattern:'", () => {
    for (const flags of ["zz", "gg", "uv"]) {
      const score = regexMatch({ actual: "a", pattern: "a", flags });
      expect(score).toMatchObject({ value: 0, errored: true });
      expect(score.rationale).toMatch(/^invalid pattern: .*flags/i);
    }
  });

  it("errors what RE2 cannot run, saying what and what to do, instead of backtracking", () => {
    const cases: [string, string, RegExp][] = [
      ["(a)\\1", "", /backreference \(\\1\)/],
      ["(?<n>a)\\k<n>", "", /named backreference/],
      ["a(?=b)", "", /lookahead/],
      ["a(?!b)", "", /lookahead/],
      ["(?<=(a))b", "", /invalid capture in lookbehind/],
      ["[\\w--[a]]", "v", /set operations|nested class/],
      ["a{1001}", "", /repeat count/],
    ];
    for (const [pattern, flags, reason] of cases) {
      const score = regexMatch({ actual: "ab", pattern, flags });
      expect(score).toMatchObject({ value: 0, passed: false, errored: true });
      expect(score.rationale).toMatch(reason);
      expect(score.rationale).toMatch(/linear-time engine \(RE2/);
      expect(score.rationale).toMatch(/rewrite the pattern/);
    }
  });

  it("keeps a reason short and on one line whatever the pattern and flags", () => {
    const big = "x".repeat(2_000_000);
    const cut = `/${"x".repeat(60)}…/`;
    expect(regexMatch({ actual: "a", pattern: "x".repeat(5_000) }).rationale).toBe(
      `actual does not match ${cut} (5000 chars)`,
    );
    expect(regexMatch({ actual: "a", pattern: big }).rationale).toMatch(
      /^pattern \/x{60}…\/ \(2000000 chars\) cannot run on the linear-time engine \(RE2: expression too large\)/,
    );
    expect(regexMatch({ actual: "a", pattern: `${big}(` }).rationale).toBe(
      `invalid pattern: Invalid regular expression: ${cut} (2000001 chars): Unterminated group`,
    );
    const unsupported = regexMatch({ actual: "a", pattern: `${big}(?=a)` }).rationale ?? "";
    expect(unsupported).toContain(`pattern ${cut} (2000005 chars) uses a lookahead`);
    expect(unsupported.length).toBeLessThan(300);
    const flags = regexMatch({ actual: "a", pattern: "a", flags: "i".repeat(2_000_000) });
    expect(flags.rationale).toBe(
      `invalid pattern: invalid flags "${"i".repeat(60)}"… (2000000 chars): use each of dgimsuvy at most once`,
    );
    expect(regexMatch({ actual: "a\nb", pattern: "a\nb" }).rationale).toBe(
      "actual matches /a\\nb/",
    );
  });

  it("runs captureless lookbehinds (linear in RE2)", () => {
    expect(regexMatch({ actual: "foobar", pattern: "(?<=foo)bar" }).passed).toBe(true);
    expect(regexMatch({ actual: "bazbar", pattern: "(?<!foo)bar" }).passed).toBe(true);
    expect(regexMatch({ actual: "foobar", pattern: "(?<!foo)bar" }).passed).toBe(false);
  });

  it("answers correctly for nested-quantifier patterns", () => {
    expect(regexMatch({ actual: "hello world ", pattern: "^(\\w+\\s)+$" }).passed).toBe(true);
    expect(regexMatch({ actual: "hello world", pattern: "^(\\w+\\s)+$" }).passed).toBe(false);
    expect(regexMatch({ actual: "abab", pattern: "^(a|b)+$" }).passed).toBe(true);
  });

  it("answers catastrophic and polynomial backtracking patterns on long inputs (no timer, no worker)", () => {
    const long = `${"a".repeat(50_000)}!`;
    expect(regexMatch({ actual: long, pattern: "^(a+)+$" })).toMatchObject({ passed: false });
    expect(regexMatch({ actual: long, pattern: "^(a|aa)*c$" })).toMatchObject({ passed: false });
    const spaces = `${" ".repeat(50_000)}x`;
    expect(regexMatch({ actual: spaces, pattern: "\\s*\\s*\\s*$" }).passed).toBe(true);
    expect(regexMatch({ actual: spaces, pattern: "^\\s*\\s*\\s*$" }).passed).toBe(false);
    expect(regexMatch({ actual: "aaa", pattern: "^(a+)+$" }).passed).toBe(true);
  });

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
