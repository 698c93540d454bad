import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseJsonText } from "./json-text.js";

const reasonOf = (text: string) => {
  const parsed = parseJsonText(text);
  return parsed.ok ? undefined : parsed.reason;
};

describe("parseJsonText", () => {
  it("parses JSON text as JSON.parse does", () => {
    expect(parseJsonText(' {"a": [1, -2.5e3, true, null, "\\u00e9"]} ')).toEqual({
      ok: true,
      value: { a: [1, -2.5e3, true, null, "é"] },
    });
  });

  it("says where text that is not JSON breaks, what JSON wanted there and what was found", () => {
    expect(reasonOf('Sure! Here is the JSON: {"answer": "q0"}')).toBe(
      'actual is not JSON: at line 1, column 1 (found "S"), wanted a JSON value: "Sure! Here is the JS…"',
    );
    expect(reasonOf('{\n  "a": 1,\n}')).toBe(
      'actual is not JSON: at line 3, column 1 (found "}"), wanted a property name in double quotes: "{\\n  \\"a\\": 1,\\n}"',
    );
    expect(reasonOf('{"a": 1} and more')).toMatch(
      /^actual is not JSON: at line 1, column 10 \(found "a"\), wanted the end of the text after the JSON value: /,
    );
    expect(reasonOf("[1, 2")).toMatch(/column 6 \(the text ends\), wanted "," or "\]"/);
    expect(reasonOf('{"a": tru}')).toMatch(/column 10 \(found "}"\), wanted "true"/);
    expect(reasonOf('"a\nb"')).toMatch(
      /column 3 \(found "\\n"\), wanted a control character escaped/,
    );
    expect(reasonOf("-")).toMatch(
      /column 2 \(the text ends\), wanted a digit after the minus sign/,
    );
    expect(reasonOf("01")).toMatch(/column 2 \(found "1"\), wanted a number as JSON writes it/);
    expect(reasonOf("  ")).toBe("actual is not JSON: it is empty");
    // A character that cannot be seen is named by its code point.
    expect(reasonOf('{"a": 1}\u200b')).toMatch(/column 9 \(found U\+200B, which cannot be seen\)/);
    expect(reasonOf('{"a": \u00a01}')).toMatch(/column 7 \(found U\+00A0, which cannot be seen\)/);
  });

  it("reads a text that starts with a byte-order mark as the text after it", () => {
    expect(parseJsonText('\ufeff{"a": 1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(reasonOf("\ufeff\ufeff{}")).toMatch(/column 1 \(found U\+FEFF, a byte-order mark\)/);
  });

  it("finds the break in text nested far deeper than the stack", () => {
    expect(reasonOf("[".repeat(200_000))).toMatch(/column 200001 \(the text ends\)/);
  });

  it("finds a break wherever JSON.parse refuses a text (property)", () => {
    const broken = fc
      .tuple(fc.json(), fc.nat(), fc.constantFrom("", ",", "}", "]", '"', "x", "{", ":", "\\"))
      .map(([text, at, insert]) => {
        const cut = at % (text.length + 1);
        return text.slice(0, cut) + insert + text.slice(cut + (insert === "" ? 1 : 0));
      });
    fc.assert(
      fc.property(broken, (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        const reason = reasonOf(text);
        if (valid) return reason === undefined;
        return (
          reason !== undefined &&
          /^actual is not JSON: (at line \d+, column \d+|it is empty)/.test(reason)
        );
      }),
      { numRuns: 2000 },
    );
  });
});
