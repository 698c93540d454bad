import { describe, expect, it } from "vitest";
import type { ItemOutcome } from "./outcome.js";
import { agreeWithVitest } from "./verdict.js";

const passed: ItemOutcome = {
  item: "a",
  passed: true,
  score: 1,
  scores: [{ name: "s", score: 1 }],
};
const failed: ItemOutcome = {
  ...passed,
  passed: false,
  score: 0,
  scores: [{ name: "s", score: 0 }],
};
const soft = { name: "AssertionError", message: "expected 1 to be 2\n\nExpected: 2" };

describe("agreeWithVitest", () => {
  it("keeps niceeval's judgment when Vitest agrees, or when niceeval failed the item itself", () => {
    expect(agreeWithVitest(passed, "a", { state: "pass" })).toBe(passed);
    expect(agreeWithVitest(failed, "a", { state: "fail", errors: [soft] })).toBe(failed);
  });

  it("fails an item Vitest failed after niceeval passed it, with the try's first error", () => {
    expect(
      agreeWithVitest(passed, "a", { state: "fail", errors: [soft, { ...soft, name: "Error" }] }),
    ).toEqual({
      ...passed,
      passed: false,
      testError: "AssertionError: expected 1 to be 2 (and 1 more)",
    });
  });

  it("reads only the errors of this try: a retried test keeps those of the tries before", () => {
    const earlier = { name: "NiceevalError", message: "an earlier try missed the threshold" };
    expect(
      agreeWithVitest(passed, "a", { state: "fail", errors: [earlier, soft] }, 1)?.testError,
    ).toBe("AssertionError: expected 1 to be 2");
  });

  it("gives an item Vitest failed before niceeval judged it no score", () => {
    expect(agreeWithVitest(undefined, "a", { state: "fail", errors: [] })).toEqual({
      item: "a",
      passed: false,
      score: null,
      scores: [],
      testError: "Vitest failed the test",
    });
    expect(agreeWithVitest(undefined, "a", { state: "skip" })).toBeUndefined();
  });
});
