import { describe, expect, it } from "vitest";
import { namesLineTerminator, toLineFeeds } from "./line-terminators.js";

describe("toLineFeeds", () => {
  it("maps \\r, U+2028 and U+2029 to \\n one for one, keeping the length", () => {
    const text = "a\r\nb\rc\u2028d\u2029e";
    expect(toLineFeeds(text)).toBe("a\n\nb\nc\nd\ne");
    expect(toLineFeeds(text)).toHaveLength(text.length);
  });
});

describe("namesLineTerminator", () => {
  it.each([
    "a\\r\\nb",
    "\\n",
    "\\x0d",
    "\\u2028",
    "\\u000a",
    "\\cJ",
    "[\\x09-\\x0d]",
    "\\u{2029}",
    "\\cM",
    "\\p{Zl}",
    "\\P{L}",
    "[^\\n]+$",
    "a\rb",
    "a\nb",
    "a\u2028b",
    "a\\\u2029b",
    "[\\f-!]",
    "[\\0-a]",
    "[ -\u{1F600}]",
    "[ -\u3000]",
  ])("is true for %j", (source) => {
    expect(namesLineTerminator(source)).toBe(true);
  });

  it.each([
    "^Réponse : \\d+$",
    "^.+$",
    "a\\s+b",
    "[\\s\\S]",
    "\\W\\w\\d\\D\\b\\B",
    "[^x]",
    "[a-z]",
    "[!-~]",
    "[a-c-e]",
    "[\\t]",
    "[\\--\\/]",
    "(?<name>a)\\k<name>",
    "\u{1F600}+",
    "[^]",
    "a{2}\\.",
    "\\x41",
    "^R\\u00e9ponse : \\d+$",
    "^R\\xe9ponse$",
    "\\u{61}",
    "\\cI",
    "[\\x20-\\x7e]",
    "\\x",
  ])("is false for %j", (source) => {
    expect(namesLineTerminator(source)).toBe(false);
  });
});
