// The web app's numbers read as the CLI's: the same rounding for the same mean.
import { describe, expect, it } from "vitest";
import { formatNumber } from "../../src/report/format.js";
import { num } from "../../viewer-app/src/numbers.js";

describe("the viewer's numbers", () => {
  it("round as the CLI's reports do (0.6625 is 0.663 in both)", () => {
    expect(formatNumber(0.6625)).toBe("0.663");
    expect(num(0.6625)).toBe("0.663");
    expect(num(0.5)).toBe("0.500");
    expect(num(null)).toBe("\u2014");
    for (const x of [0.1235, 0.0005, 0.9995, 0.33333, 1 / 3, 2 / 3])
      expect(Number(num(x))).toBe(Number(formatNumber(x)));
  });
});
