import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileLinearRegex } from "./linear-regex.js";

const run = (source: string, flags: string, text: string) => {
  const compiled = compileLinearRegex(source, flags);
  if (!compiled.ok) throw new Error(compiled.reason);
  return compiled.regex.test(text);
};

describe("compileLinearRegex", () => {
  it("agrees with RegExp on patterns both engines express (property)", () => {
    const atom = fc.constantFrom(
      "a",
      "b",
      ".",
      "\\d",
      "\\s",
      "\\S",
      "\\w",
      "[ab]",
      "[^a]",
      "\\.",
      "x{",
    );
    const quantified = fc.tuple(atom, fc.constantFrom("", "*", "+", "?", "{2}", "{1,3}", "*?"));
    const sequence = fc
      .array(quantified, { minLength: 1, maxLength: 4 })
      .map((parts) => parts.map(([a, q]) => (a === "x{" ? "x\\{" : a) + q).join(""));
    const pattern = fc
      .tuple(sequence, fc.option(sequence), fc.boolean(), fc.boolean())
      .map(
        ([left, right, start, end]) =>
          `${start ? "^" : ""}(?:${left}${right ? `|${right}` : ""})${end ? "$" : ""}`,
      );
    const text = fc.stringMatching(/^[ab1 .\n\u00a0x{]{0,12}$/);
    fc.assert(
      fc.property(
        pattern,
        fc.constantFrom("", "i", "m", "s", "ims"),
        text,
        (source, flags, input) => {
          expect(run(source, flags, input)).toBe(new RegExp(source, flags).test(input));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("translates JavaScript escapes RE2 spells differently", () => {
    expect(run("\\u0041\\x42\\cJ", "", "AB\n")).toBe(true);
    expect(run("\\u{1F600}", "u", "😀")).toBe(true);
    expect(run("\\uD83D\\uDE00", "", "😀")).toBe(true);
    expect(run("(?<word>\\w+)-\\e", "", "hi-e")).toBe(true);
    expect(run("[^]", "", "\n")).toBe(true);
    expect(run("a|[]", "", "b")).toBe(false);
    expect(run("\\p{Script=Greek}", "u", "α")).toBe(true);
    expect(run("[\\b]", "", "\b")).toBe(true);
  });

  it("anchors y at the start and ignores g and d", () => {
    expect(run("a", "y", "ba")).toBe(false);
    expect(run("a", "y", "ab")).toBe(true);
    expect(run("a", "gd", "ba")).toBe(true);
  });

  it("says why a pattern cannot run: invalid, or a construct RE2 does not have", () => {
    expect(compileLinearRegex("(", "")).toMatchObject({ ok: false, problem: "invalid" });
    expect(compileLinearRegex("a", "q")).toMatchObject({ ok: false, problem: "invalid" });
    for (const source of ["(a)\\1", "a(?=b)", "a(?!b)", "\\k<n>(?<n>a)", "\\uD800"]) {
      const compiled = compileLinearRegex(source, "");
      expect(compiled).toMatchObject({ ok: false, problem: "unsupported" });
      if (!compiled.ok) expect(compiled.reason).toMatch(/RE2.*rewrite the pattern/);
    }
  });
});
