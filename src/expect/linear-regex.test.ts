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

  describe("line terminators other than \\n (\\r, U+2028, U+2029)", () => {
    const texts = [
      "a\r\nb\r\n",
      "a\rb",
      "a\u2028b",
      "a\u2029b\n",
      "a\n\rb",
      "a\r\r\nb",
      "\r\n",
      "\u2028",
      "",
      "Réponse : 42\r\nConfiance : haute\r\n",
    ];
    const flagSets = ["", "m", "s", "ms", "mi", "mu", "msu"];

    it("match as RegExp does when the pattern names none", () => {
      const patterns = [
        "^b$",
        "^a$",
        "a$",
        "b$",
        "^$",
        "^\\s*$",
        "^Réponse : \\d+$",
        "^Confiance : \\w+$",
        "a.b",
        "a..b",
        "a.$",
        "^.+$",
        "^.*$",
        "a\\s+b",
        "a\\S",
        "a\\W+b",
        "a\\D+b",
        "a[^x]+b",
        "a\\b",
        "\\Bb",
        "[\\s\\S]+b",
        "(?:^|x)b",
        "a(?:$|x)",
        "(?<=^)b",
        "(?<=a$)",
        "^[a-z]+$",
      ];
      const differences: string[] = [];
      for (const source of patterns)
        for (const flags of flagSets)
          for (const text of texts) {
            const expected = new RegExp(source, flags).test(text);
            if (run(source, flags, text) !== expected)
              differences.push(
                `/${source}/${flags} on ${JSON.stringify(text)}: RegExp ${expected}`,
              );
          }
      expect(differences).toEqual([]);
    });

    it("are seen as they are by a pattern that names one", () => {
      expect(run("a\\r\\nb", "m", "a\r\nb")).toBe(true);
      expect(run("a\\r$", "m", "a\r")).toBe(true);
      expect(run("\\x0d", "m", "\r")).toBe(true);
      expect(run("\\u2028", "m", "\u2028")).toBe(true);
      expect(run("\\p{Zp}", "mu", "\u2029")).toBe(true);
      expect(run("^a\\n", "m", "a\r\n")).toBe(false);
      // Without m, all agree with RegExp as before.
      const patterns = ["a\\r\\nb", "\\x0d", "[^\\n]+$", "\\u2028$", "[\\f-!]"];
      for (const source of patterns)
        for (const flags of ["", "s", "u"])
          for (const text of texts)
            expect(run(source, flags, text), `/${source}/${flags} on ${JSON.stringify(text)}`).toBe(
              new RegExp(source, flags).test(text),
            );
    });
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
