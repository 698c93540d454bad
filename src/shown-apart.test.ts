import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decimals, fixedDecimals, shownApart } from "./shown-apart.js";

describe("shownApart", () => {
  it("keeps the fewest digits when they already show the comparison", () => {
    expect(shownApart(0.61234, 0.5, decimals, 3, 20)).toBe("0.612");
    expect(shownApart(0.5, 0.6, fixedDecimals, 2, 20)).toBe("0.50");
    expect(shownApart(0.6, 0.6, fixedDecimals, 2, 20)).toBe("0.60");
  });

  it("adds the digits that tell a value from its bound", () => {
    expect(shownApart(0.49999, 0.5, decimals, 3, 20)).toBe("0.49999");
    expect(shownApart(2 / 3, 0.67, fixedDecimals, 2, 20)).toBe("0.667");
    expect(shownApart(0.1 + 0.2, 0.3, decimals, 3, 20)).toBe("0.30000000000000004");
    // 0.49951 in three decimals is 0.5, above the 0.4996 it is below.
    expect(shownApart(0.49951, 0.4996, decimals, 3, 20)).toBe("0.4995");
    // A bound beside itself: as many digits as it needs to read as itself.
    expect(shownApart(0.675, 0.675, fixedDecimals, 2, 20)).toBe("0.675");
  });

  it("never writes a value on the other side of its bound (property)", () => {
    const number = fc
      .double({ min: -100, max: 100, noNaN: true })
      .map((x) => (Math.abs(x) < 1e-6 ? 0 : x));
    fc.assert(
      fc.property(
        number,
        number,
        fc.constantFrom(decimals, fixedDecimals),
        (value, bound, write) => {
          const shown = Number(shownApart(value, bound, write, 2, 20));
          expect(Math.sign(shown - bound) || 0).toBe(Math.sign(value - bound) || 0);
        },
      ),
      { seed: 4242, numRuns: 2000 },
    );
  });
});
