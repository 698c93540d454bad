import { normalCdf } from "./normal.js";
import { createRandom } from "./random.js";

/** How a {@link SignFlipTest}'s p-value was obtained. */
export type SignFlipMethod = "exact" | "monte-carlo" | "normal";

/** The paired sign-flip (randomization) test of a mean difference against zero. */
export interface SignFlipTest {
  /** Two-sided p-value of "no difference". */
  pValue: number;
  method: SignFlipMethod;
  /** Units whose difference is not zero: only they can change sign. */
  differing: number;
  /** Random sign patterns drawn (monte-carlo only). */
  resamples: number;
}

/** Options of {@link signFlipTest}. */
export interface SignFlipOptions {
  /**
   * Random sign patterns when there are too many units to enumerate (default 10,000; under 1,000:
   * the normal approximation).
   */
  resamples?: number;
  seed?: number;
  /** Most units × resamples drawn (default 2·10^7); beyond it, the normal approximation. */
  budget?: number;
}

/** Fewest random sign patterns drawn; with fewer asked, the normal approximation is used. */
const MIN_DRAWS = 1000;

/** Up to this many differing units, all 2^m sign patterns are enumerated. */
const EXACT_UP_TO = 16;

/**
 * Two-sided p-value that the differences `units` (one per pair, or per cluster: a cluster's sum)
 * are centred on zero. Under "no difference" each unit's sign is as likely one way as the other,
 * so the p-value is the share of sign patterns whose sum is at least as far from zero as the
 * observed one: exact (every pattern) for up to 16 differing units, otherwise drawn at random
 * (seeded, with the usual +1 correction), or, past the budget, the normal approximation with the
 * permutation variance Σ u². Valid at any n, unlike a bootstrap interval, which with a few
 * differing cases out of twenty calls a drop significant that an exact test does not.
 * @example
 * signFlipTest([-1, -1, -1, -1, 0, 0]).pValue; // 0.125: 2 of the 16 patterns are as extreme
 */
export function signFlipTest(
  units: ArrayLike<number>,
  options: SignFlipOptions = {},
): SignFlipTest {
  const differing: number[] = [];
  let observed = 0;
  let scale = 0;
  let squares = 0;
  for (let i = 0; i < units.length; i++) {
    const u = units[i]!;
    if (u === 0) continue;
    differing.push(Math.abs(u));
    observed += u;
    scale += Math.abs(u);
    squares += u * u;
  }
  const m = differing.length;
  if (m === 0) return { pValue: 1, method: "exact", differing: 0, resamples: 0 };
  // Sums equal to the observed one up to rounding count as extreme.
  const threshold = Math.abs(observed) - 1e-9 * scale;
  if (m <= EXACT_UP_TO) {
    return {
      pValue: extremeShare(differing, threshold),
      method: "exact",
      differing: m,
      resamples: 0,
    };
  }
  const resamples = options.resamples ?? 10_000;
  // Fewer draws could not give a p-value below 1/(draws + 1): the normal approximation then.
  if (resamples >= MIN_DRAWS && m * resamples <= (options.budget ?? 2e7)) {
    const random = createRandom(options.seed ?? 1);
    let extreme = 0;
    for (let r = 0; r < resamples; r++) {
      let sum = 0;
      for (let j = 0; j < m; j += 32) {
        const bits = random.uint32();
        const end = Math.min(m, j + 32);
        for (let k = j; k < end; k++)
          sum += (bits >>> (k - j)) & 1 ? differing[k]! : -differing[k]!;
      }
      if (Math.abs(sum) >= threshold) extreme++;
    }
    return {
      pValue: (extreme + 1) / (resamples + 1),
      method: "monte-carlo",
      differing: m,
      resamples,
    };
  }
  const z = Math.abs(observed) / Math.sqrt(squares);
  return {
    pValue: Math.min(1, 2 * normalCdf(-z)),
    method: "normal",
    differing: m,
    resamples: 0,
  };
}

/**
 * Fewest differing units with which an exact sign test (this one, or McNemar's on discordant
 * pairs) can give a two-sided p below `alpha`: its smallest p, every unit one way, is 2/2^m.
 * Past 16 units the sign-flip test draws or approximates, but by then 2/2^m is below 3·10^-5.
 * @example
 * unitsToReach(0.05); // 6: with 5, the smallest p is 0.0625
 */
export function unitsToReach(alpha: number): number {
  if (!(alpha > 0 && alpha <= 1)) {
    throw new RangeError(`unitsToReach needs an alpha in (0, 1], got ${alpha}`);
  }
  let units = 1;
  while (smallestSignTestP(units) >= alpha) units++;
  return units;
}

/** The smallest two-sided p of an exact sign test over `units` differing units (1 for none). */
export const smallestSignTestP = (units: number): number => Math.min(1, 2 ** (1 - units));

/** Share of the 2^m sign patterns of `magnitudes` whose sum is at least `threshold` from zero. */
function extremeShare(magnitudes: readonly number[], threshold: number): number {
  const m = magnitudes.length;
  const patterns = 2 ** m;
  let extreme = 0;
  for (let pattern = 0; pattern < patterns; pattern++) {
    let sum = 0;
    for (let k = 0; k < m; k++) sum += (pattern >>> k) & 1 ? magnitudes[k]! : -magnitudes[k]!;
    if (Math.abs(sum) >= threshold) extreme++;
  }
  return extreme / patterns;
}
