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

describe("formatJudgeUsage", () => {
  it("counts calls and retries in the singular for one", () => {
    const usage = { ...emptyJudgeUsage(), calls: 1, retries: 1, inputTokens: 5, outputTokens: 2 };
    expect(formatJudgeUsage(usage)).toBe("1 call, 0 cached, 5 in / 2 out tokens, 1 retry");
    expect(formatJudgeUsage({ ...usage, calls: 3, retries: 2 })).toBe(
      "3 calls, 0 cached, 5 in / 2 out tokens, 2 retries",
    );
  });
});
