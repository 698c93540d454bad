import { describe, expect, it } from "vitest";
import { NiceevalError } from "./errors.js";
import { MAX_STACK_FRAMES, thrownStack } from "./thrown-stack.js";

describe("thrownStack", () => {
  it("keeps the frames of a thrown error, bounded, counting the rest", () => {
    const error = new Error("deep");
    const frames = Array.from({ length: 60 }, (_, i) => `    at f${i} (/app/src/f.ts:${i + 1}:1)`);
    error.stack = `Error: deep\n${frames.join("\n")}`;
    const kept = thrownStack(error)!.split("\n");
    expect(kept).toHaveLength(MAX_STACK_FRAMES + 1);
    expect(kept[0]).toBe("at f0 (/app/src/f.ts:1:1)");
    expect(kept.at(-1)).toBe("… 10 more frames");
  });

  it("cuts a long frame and keeps none of niceeval's own errors or of a value", () => {
    const error = new Error("long");
    error.stack = `Error: long\n    at ${"x".repeat(2000)} (/app/a.js:1:1)`;
    expect(thrownStack(error)).toBe(`at ${"x".repeat(497)}…`);
    expect(thrownStack(new NiceevalError("TIMEOUT", "late"))).toBeUndefined();
    expect(thrownStack("plain")).toBeUndefined();
  });

  it("keeps the frames of the user's error that niceeval's own wraps", () => {
    const cause = new Error("no key");
    cause.stack = "Error: no key\n    at makeClient (/app/scorers.ts:7:11)";
    const wrapped = new NiceevalError("SCORER_FACTORY", "factory threw", { cause });
    expect(thrownStack(wrapped)).toBe("at makeClient (/app/scorers.ts:7:11)");
  });
});
