import { describe, expect, it } from "vitest";
import { blockedMessage } from "./blocked.js";

describe("blockedMessage", () => {
  it("advises --hang-timeout only when it stops such code sooner than the attempt's time limit", () => {
    expect(blockedMessage(1080, 1000, false, 60_000)).not.toMatch(/--hang-timeout/);
    expect(blockedMessage(1080, 1000, false, 1000)).not.toMatch(/--hang-timeout/);
    expect(blockedMessage(400, 120_000, false, 60_000)).toMatch(
      /or set --hang-timeout lower \(now 60000 ms\) to stop such code sooner$/,
    );
  });
});
