import { describe, expect, it } from "vitest";
import { emptyJudgeUsage } from "../eval/record.js";
import { formatJudgeUsage, oneLine } from "./format.js";

describe("oneLine", () => {
  it("drops colour sequences and shows other control characters as pictures, never as controls", () => {
    expect(oneLine("red \u001b[31mALERT\u001b[0m\u0007 bell\u0000 nul\r back")).toBe(
      "red ALERT␇ bell␀ nul␍ back",
    );
    expect(oneLine("del\u007f c1\u009b esc\u001b alone")).toBe("del␡ c1\ufffd esc␛ alone");
    // Tab stays; line breaks become ⏎ as before.
    expect(oneLine("a\tb\n  c")).toBe("a\tb ⏎ c");
    expect(oneLine("plain text")).toBe("plain text");
  });
});

describe("oneLine's cut", () => {
  it("falls between characters, never between an emoji's halves", () => {
    expect(oneLine("ab👩👩", 4)).toBe("ab…");
    expect(oneLine("a👩👩", 4)).toBe("a👩…");
    expect(oneLine("abcdef", 4)).toBe("abc…");
  });
});

describe("formatJudgeUsage", () => {
  it("counts calls and retries in the singular for one", () => {
    const usage = { ...emptyJudgeUsage(), calls: 1, retries: 1, inputTokens: 5, outputTokens: 2 };
    expect(formatJudgeUsage(usage)).toBe("1 call, 0 cached, 5 in / 2 out tokens, 1 retry");
    expect(formatJudgeUsage({ ...usage, calls: 3, retries: 2 })).toBe(
      "3 calls, 0 cached, 5 in / 2 out tokens, 2 retries",
    );
  });

  it("gives the cost as a lower bound, or as unknown, when the price table had no price for some calls", () => {
    const usage = { ...emptyJudgeUsage(), calls: 6, inputTokens: 1400, outputTokens: 180 };
    expect(formatJudgeUsage({ ...usage, costUsd: 0.0008 })).toBe(
      "6 calls, 0 cached, 1400 in / 180 out tokens, $0.0008",
    );
    const unpriced = { calls: 4, inputTokens: 400, outputTokens: 80, models: ["openai/gpt-5"] };
    expect(formatJudgeUsage({ ...usage, costUsd: 0.0008, unpriced })).toBe(
      "6 calls, 0 cached, 1400 in / 180 out tokens, ≥ $0.0008, 4 calls unpriced (add openai/gpt-5 to configureJudges({ prices }))",
    );
    const models = ["a/1", "b/2", "c/3", "d/4", "e/5"];
    expect(formatJudgeUsage({ ...usage, unpriced: { ...unpriced, calls: 6, models } })).toBe(
      "6 calls, 0 cached, 1400 in / 180 out tokens, cost unknown, 6 calls unpriced (add a/1, b/2, c/3 and 2 more to configureJudges({ prices }))",
    );
  });

  it("says tokens and cost are unknown, or lower bounds, when answers reported no usage, never 0", () => {
    const none = { ...emptyJudgeUsage(), calls: 2, unreportedCalls: 2 };
    expect(formatJudgeUsage(none)).toBe(
      "2 calls, 0 cached, tokens unknown (usage not reported by 2 calls), cost unknown",
    );
    const some = { ...none, calls: 3, unreportedCalls: 1, inputTokens: 120, outputTokens: 30 };
    expect(formatJudgeUsage({ ...some, costUsd: 0.0003 })).toBe(
      "3 calls, 0 cached, ≥ 120 in / ≥ 30 out tokens (usage not reported by 1 call), ≥ $0.0003",
    );
    const unpriced = { calls: 1, inputTokens: 0, outputTokens: 0, models: ["openai/gpt-5"] };
    expect(formatJudgeUsage({ ...none, unpriced })).toBe(
      "2 calls, 0 cached, tokens unknown (usage not reported by 2 calls), cost unknown, 1 call unpriced (add openai/gpt-5 to configureJudges({ prices }))",
    );
  });
});
