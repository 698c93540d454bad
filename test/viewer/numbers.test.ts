// The web app's numbers read as the CLI's: the same rounding for the same mean.
import { describe, expect, it } from "vitest";
import { formatMean, meanScoreFigure } from "../../src/report/figures.js";
import { formatMs, formatNumber } from "../../src/report/format.js";
import type { EvalSummary } from "../../src/runner/events.js";
import { meanText, msNumber, num, sizeText } from "../../viewer-app/src/numbers.js";

describe("the viewer's numbers", () => {
  it("round as the CLI's reports do (0.6625 is 0.663 in both)", () => {
    expect(formatNumber(0.6625)).toBe("0.663");
    expect(num(0.6625)).toBe("0.663");
    expect(num(0.5)).toBe("0.500");
    expect(num(null)).toBe("\u2014");
    for (const x of [0.1235, 0.0005, 0.9995, 0.33333, 1 / 3, 2 / 3])
      expect(Number(num(x))).toBe(Number(formatNumber(x)));
  });

  it("mark a mean score over partial scores as a lower bound (≥), as the CLI does", () => {
    for (const partialCases of [0, 2]) {
      const summary = { meanScore: 0.902, sdScore: 0.1, scoredCases: 10, partialCases };
      const cli = formatMean(meanScoreFigure(summary as EvalSummary));
      expect(meanText(0.902, partialCases)).toBe(cli);
    }
    expect(meanText(0.902, 2)).toBe("\u2265 0.902");
    expect(meanText(null, 2)).toBe("\u2014");
  });

  it("give a sample size with the cases its interval counts, as the CLI's runs list words it", () => {
    expect(sizeText(42, 14)).toBe("n=42 (14 cases)");
    expect(sizeText(2, 1)).toBe("n=2 (1 case)");
    expect(sizeText(14, null)).toBe("n=14");
    expect(sizeText(14, 14)).toBe("n=14");
  });

  it("give an attempt's time in ms as the CLI's reports round it (0.19 ms is not 0)", () => {
    for (const ms of [0, 0.004, 0.19, 0.5, 0.994, 1, 1.5, 96.4, 999.4])
      expect(`${msNumber(ms)} ms`).toBe(formatMs(ms));
    expect(msNumber(0.19)).toBe("0.19");
    expect(msNumber(20_004.6)).toBe("20005");
  });
});
