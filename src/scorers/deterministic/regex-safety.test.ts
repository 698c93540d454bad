import { describe, expect, it } from "vitest";
import { mayBacktrackCatastrophically } from "./regex-safety.js";

describe("mayBacktrackCatastrophically", () => {
  it.each([
    "^(a+)+$",
    "(a*)*",
    "(\\w+\\s?)*$",
    "(?:x{1,3})+",
    "(a|ab)*c",
    "((a+)b)+",
    "(a+){2,}",
    "(?<word>\\w+)+",
  ])("flags %s", (pattern) => {
    expect(mayBacktrackCatastrophically(pattern, "")).toBe(true);
  });

  it.each([
    "^abc$",
    "\\d+-\\d+",
    "(ab)+",
    "(\\d{3}-)+",
    "(a+)?",
    "[(a+)+]",
    "\\(a+\\)+",
    "a{2}",
    "(?:https?|ftp)://\\S+",
    "a+?b*?",
    "x{",
  ])("lets %s run inline", (pattern) => {
    expect(mayBacktrackCatastrophically(pattern, "")).toBe(false);
  });

  it("reads nested classes under the v flag", () => {
    expect(mayBacktrackCatastrophically("[[a-z]--[aeiou]]+", "v")).toBe(false);
    expect(mayBacktrackCatastrophically("([[a-z]--[q]]+)+", "v")).toBe(true);
  });
});
