import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sampleBinomial } from "./binomial.js";
import { bootstrapRatios, quantileSorted } from "./bootstrap.js";
import { pairedDifference } from "./paired.js";
import { createRandom } from "./random.js";

describe("pairedDifference", () => {
  // Differences 0.1, 0.2, 0: mean 0.1, sd 0.1, SE 0.1/√3.
  const base = [0.5, 0.7, 0.9];
  const head = [0.6, 0.9, 0.9];

  it("works a small example by hand", () => {
    const d = pairedDifference(base, head, { resamples: 0 });
    expect(d.mean).toBeCloseTo(0.1, 12);
    expect(d.sd).toBeCloseTo(0.1, 12);
    expect(d.se).toBeCloseTo(0.1 / Math.sqrt(3), 12);
    expect(d.correlation).toBeCloseTo(Math.sqrt(3) / 2, 12); // 0.06 / √(0.08 · 0.06)
    // (z_0.975 + z_0.8) · SE = (1.959964 + 0.841621) · 0.0577350
    expect(d.mde).toBeCloseTo(2.801585 * 0.057735027, 5);
    expect(d.interval).toMatchObject({ level: 0.95, method: "clt" });
    expect(d.interval!.low).toBeCloseTo(0.1 - 1.959964 * 0.057735027, 5);
    expect(d.method).toBe("clt");
  });

  it("gives the exact bootstrap percentiles of a tiny sample", () => {
    // Means of 3 draws from {0, 0.1, 0.2}: P[mean = 0] = P[mean = 0.2] = 1/27 > 2.5%,
    // so the 95% percentile interval is exactly [0, 0.2].
    const d = pairedDifference(base, head, { seed: 3 });
    expect(d.method).toBe("paired-bootstrap");
    expect(d.resamples).toBe(10_000);
    expect(d.interval!.low).toBeCloseTo(0, 12);
    expect(d.interval!.high).toBeCloseTo(0.2, 12);
  });

  it("matches the enumerated bootstrap distribution", () => {
    // All 4^4 resamples of four differences, weighted equally: the exact bootstrap law.
    const diffs = [0, 0.1, 0.2, 0.7];
    const means: number[] = [];
    for (let a = 0; a < 4; a++)
      for (let b = 0; b < 4; b++)
        for (let c = 0; c < 4; c++)
          for (let e = 0; e < 4; e++)
            means.push((diffs[a]! + diffs[b]! + diffs[c]! + diffs[e]!) / 4);
    means.sort((x, y) => x - y);
    const d = pairedDifference([0, 0, 0, 0], diffs, { resamples: 40_000, seed: 9, budget: 1e9 });
    expect(d.interval!.low).toBeCloseTo(quantileSorted(means, 0.025), 1);
    expect(d.interval!.high).toBeCloseTo(quantileSorted(means, 0.975), 1);
  });

  it("is deterministic for a seed and varies with it", () => {
    const b = Array.from({ length: 200 }, (_, i) => (i % 7) / 7);
    const h = b.map((x, i) => Math.min(1, x + ((i * 37) % 11) / 50));
    const one = pairedDifference(b, h, { seed: 5 });
    expect(pairedDifference(b, h, { seed: 5 })).toEqual(one);
    expect(pairedDifference(b, h, { seed: 6 }).interval).not.toEqual(one.interval);
  });

  it("clusters: cluster-robust SE by hand, whole clusters resampled", () => {
    // d = 1, 1, 0, 0 in clusters {0, 0}, {1, 1}: S = (2, 0), mean 0.5,
    // SE² = G/(G−1) · Σ (S_g − n_g·mean)² / n² = 2 · 2 / 16.
    const d = pairedDifference([0, 0, 0, 0], [1, 1, 0, 0], {
      clusters: [0, 0, 1, 1],
      resamples: 0,
    });
    expect(d.se).toBeCloseTo(0.5, 12);
    expect(d.clusters).toBe(2);
    expect(d.method).toBe("cluster-clt");
    expect(pairedDifference([0, 0, 0, 0], [1, 1, 0, 0], { resamples: 0 }).se).toBeCloseTo(
      Math.sqrt(1 / 3) / 2,
      12,
    );
    const boot = pairedDifference([0, 0, 0, 0], [1, 1, 0, 0], { clusters: [0, 0, 1, 1] });
    expect(boot.method).toBe("cluster-bootstrap");
    // Two clusters with means 1 and 0: resamples give 0, 0.5 or 1 only.
    expect([0, 0.5, 1]).toContain(boot.interval!.low);
  });

  it("falls back to the CLT past the draw budget, and says so", () => {
    const random = createRandom(1);
    const b = Array.from({ length: 5000 }, () => random.float());
    const h = b.map((x) => x + random.float() * 0.1);
    const d = pairedDifference(b, h, { budget: 1e6 });
    expect(d.method).toBe("clt");
    expect(d.resamples).toBe(0);
    expect(d.resampling).toBeNull();
  });

  it("has no correlation when a side is constant but for rounding", () => {
    // Eight 0.9s average to 0.9000000000000001: a spread of about 1e-16, which gave r = −1.
    const nines = Array(8).fill(0.9);
    expect(nines.reduce((sum, x) => sum + x, 0) / 8).not.toBe(0.9);
    expect(pairedDifference(nines, Array(8).fill(0.1), { resamples: 0 }).correlation).toBeNull();
    const varied = [0.2, 0.4, 0.5, 0.9, 0.3, 0.6, 0.8, 0.1];
    expect(pairedDifference(nines, varied, { resamples: 0 }).correlation).toBeNull();
    expect(pairedDifference(varied, nines, { resamples: 0 }).correlation).toBeNull();
    // A small spread that is the data's, not rounding's, still has one.
    const close = nines.map((x, i) => x + i * 1e-6);
    expect(pairedDifference(close, varied, { resamples: 0 }).correlation).not.toBeNull();
    expect(pairedDifference(varied, varied, { resamples: 0 }).correlation).toBeCloseTo(1, 12);
  });

  it("has no interval or MDE when every difference is the same, but for rounding", () => {
    // Three cases that all fell by 1: the CLT and the bootstrap both gave [−1, −1].
    const fell = pairedDifference([1, 1, 1], [0, 0, 0]);
    expect(fell).toMatchObject({ equalDifferences: true, interval: null, mde: null, sd: 0 });
    expect(fell.test.pValue).toBe(0.25);
    // 0.8 − 0.9 and 0.7 − 0.8 are not quite −0.1, nor equal: rounding, not a spread.
    const base = [0.9, 0.8, 0.7, 0.6, 0.3];
    const head = [0.8, 0.7, 0.6, 0.5, 0.2];
    expect(0.8 - 0.9).not.toBe(0.7 - 0.8);
    const rounded = pairedDifference(base, head);
    expect(rounded).toMatchObject({ equalDifferences: true, interval: null, mde: null });
    // Clustered, the units are clusters: −1 and 0 average to what −0.5 and −0.5 do.
    const clusters = pairedDifference([1, 1, 1, 1], [0, 1, 0.5, 0.5], { clusters: [0, 0, 1, 1] });
    expect(clusters).toMatchObject({ clusters: 2, equalDifferences: true, interval: null });
    // A spread that is the data's keeps its interval, however small.
    const close = pairedDifference(
      base,
      head.map((x, i) => x + i * 1e-6),
    );
    expect(close.equalDifferences).toBe(false);
    expect(close.interval!.high - close.interval!.low).toBeGreaterThan(0);
    expect(close.mde).toBeGreaterThan(0);
    // One pair has no interval for want of a second, not for equal differences.
    expect(pairedDifference([1], [0]).equalDifferences).toBe(false);
  });

  it("finds no difference where case means differ only by the order trials were summed in", () => {
    // 0.1 + 0.2 + 0.3 is 0.6000000000000001, 0.3 + 0.2 + 0.1 is 0.6: every case "fell" by 3e-17.
    const base = Array.from({ length: 10 }, () => (0.1 + 0.2 + 0.3) / 3);
    const head = Array.from({ length: 10 }, () => (0.3 + 0.2 + 0.1) / 3);
    expect(head[0]! - base[0]!).toBeLessThan(0);
    for (const clusters of [undefined, [0, 0, 0, 1, 1, 2, 3, 4, 5, 6]]) {
      const d = pairedDifference(base, head, clusters ? { clusters } : {});
      expect(d.mean).toBe(0);
      expect(d.test).toMatchObject({ pValue: 1, differing: 0 });
      expect(d.interval).toBeNull();
      expect(d.mde).toBeNull();
    }
    // A real difference of one case among them is still one.
    const moved = [...head];
    moved[4] = 0.5;
    expect(pairedDifference(base, moved).test.differing).toBe(1);
  });

  it("has no correlation over two pairs, which always correlate ±1", () => {
    expect(pairedDifference([0.2, 0.9], [0.3, 0.5]).correlation).toBeNull();
    expect(pairedDifference([0.2, 0.9, 0.5], [0.3, 0.5, 0.4]).correlation).not.toBeNull();
  });

  it("has no interval below two pairs", () => {
    expect(pairedDifference([0.5], [0.7]).interval).toBeNull();
    expect(pairedDifference([0.5], [0.7]).mean).toBeCloseTo(0.2, 12);
    expect(() => pairedDifference([1], [1, 2])).toThrow(RangeError);
  });

  it("intervals are ordered, contain the CLT estimate, and stay within the differences", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.double({ min: 0, max: 1, noNaN: true }),
            fc.double({ min: 0, max: 1, noNaN: true }),
          ),
          {
            minLength: 2,
            maxLength: 40,
          },
        ),
        (pairs) => {
          const b = pairs.map(([x]) => x);
          const h = pairs.map(([, y]) => y);
          const clt = pairedDifference(b, h, { resamples: 0 });
          const boot = pairedDifference(b, h, { resamples: 500 });
          const diffs = pairs.map(([x, y]) => y - x);
          if (clt.equalDifferences) {
            // Equal but for rounding: a difference within 1e-9 of its pair's values is 0, and
            // what remains spreads within 1e-9 of its size (or so little that its square
            // underflows, as 5e-324's does).
            const kept = pairs.map(([x, y]) =>
              Math.abs(y - x) <= 1e-9 * Math.max(Math.abs(x), Math.abs(y)) ? 0 : y - x,
            );
            const size = Math.max(...kept.map(Math.abs));
            const range = Math.max(...kept) - Math.min(...kept);
            const bound = 2 * Math.sqrt(kept.length) * 1e-9 * size;
            expect(range).toBeLessThanOrEqual(Math.max(bound, 1e-150));
            expect([clt.interval, boot.interval, boot.equalDifferences]).toEqual([
              null,
              null,
              true,
            ]);
            return;
          }
          expect(clt.interval!.low).toBeLessThanOrEqual(clt.mean + 1e-12);
          expect(clt.interval!.high).toBeGreaterThanOrEqual(clt.mean - 1e-12);
          expect(boot.interval!.low).toBeLessThanOrEqual(boot.interval!.high);
          expect(boot.interval!.low).toBeGreaterThanOrEqual(Math.min(...diffs) - 1e-12);
          expect(boot.interval!.high).toBeLessThanOrEqual(Math.max(...diffs) + 1e-12);
        },
      ),
      { numRuns: 50 },
    );
  });
});

describe("bootstrap resampling", () => {
  it("multinomial counts and direct draws give the same distribution", () => {
    const n = 2000;
    const sums = new Float64Array(n).map((_, i) => (i % 10 < 3 ? -1 : i % 10 < 5 ? 1 : 0));
    const sizes = new Float64Array(n).fill(1);
    const options = { resamples: 4000, seed: 2, budget: 1e12 };
    const multi = bootstrapRatios(sums, sizes, { ...options, mode: "multinomial" })!;
    const direct = bootstrapRatios(sums, sizes, { ...options, mode: "direct" })!;
    expect(multi.mode).toBe("multinomial");
    expect(direct.mode).toBe("direct");
    for (const p of [0.025, 0.5, 0.975]) {
      expect(quantileSorted(multi.replicates, p)).toBeCloseTo(
        quantileSorted(direct.replicates, p),
        2,
      );
    }
    // Both centre on the mean −0.1 with SE √(Var/n) = √(0.49 / 2000).
    const sd = (xs: Float64Array) => {
      const m = xs.reduce((a, x) => a + x, 0) / xs.length;
      return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
    };
    expect(sd(multi.replicates)).toBeCloseTo(Math.sqrt(0.49 / 2000), 3);
    expect(sd(direct.replicates)).toBeCloseTo(Math.sqrt(0.49 / 2000), 3);
  });

  it("samples the binomial with the right mean and variance", () => {
    const random = createRandom(11);
    for (const [n, p] of [
      [10, 0.3],
      [100_000, 0.02],
      [50_000, 0.5],
    ] as const) {
      let sum = 0;
      let sq = 0;
      let inRange = true;
      const draws = 20_000;
      for (let i = 0; i < draws; i++) {
        const x = sampleBinomial(random, n, p);
        inRange &&= Number.isInteger(x) && x >= 0 && x <= n;
        sum += x;
        sq += x * x;
      }
      expect(inRange).toBe(true);
      const mean = sum / draws;
      const variance = sq / draws - mean * mean;
      expect(Math.abs(mean - n * p)).toBeLessThan(5 * Math.sqrt((n * p * (1 - p)) / draws));
      expect(variance / (n * p * (1 - p))).toBeCloseTo(1, 1);
    }
    expect(sampleBinomial(random, 10, 0)).toBe(0);
    expect(sampleBinomial(random, 10, 1)).toBe(10);
  });
});
