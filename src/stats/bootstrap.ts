import { sampleBinomial } from "./binomial.js";
import { createRandom, seedState } from "./random.js";

/**
 * Bootstrap distribution of a ratio of sums Σ sum_u / Σ size_u over units (cases, or clusters
 * of cases) drawn with replacement: the mean of a paired difference, resampled by case or by
 * cluster.
 */

/** How the resamples were drawn: unit by unit, or as multinomial counts over distinct units. */
export type ResamplingMode = "direct" | "multinomial";

/** Units with the same (sum, size) are interchangeable; past this many kinds, draw directly. */
const MAX_KINDS = 64;

/**
 * `resamples` bootstrap replicates of Σ sum / Σ size, sorted ascending, or null when the
 * direct draws would exceed `budget` and the units are too varied for multinomial counts.
 *
 * When few distinct (sum, size) pairs exist (pass/fail data, scores out of a few points), the
 * counts of each kind in a resample are drawn as one multinomial (sequential exact binomials),
 * which is the same distribution as drawing every unit, at a cost of about √n per kind.
 */
export function bootstrapRatios(
  sums: Float64Array,
  sizes: Float64Array,
  options: { resamples: number; seed: number; budget: number; mode?: ResamplingMode },
): { replicates: Float64Array; mode: ResamplingMode } | null {
  const units = sums.length;
  const { resamples, seed } = options;
  const kinds = options.mode === "direct" ? null : distinctKinds(sums, sizes);
  if (kinds && (options.mode === "multinomial" || kinds.counts.length < units / 4)) {
    return {
      replicates: multinomialReplicates(kinds, units, resamples, seed),
      mode: "multinomial",
    };
  }
  if (units * resamples > options.budget) return null;
  return { replicates: directReplicates(sums, sizes, resamples, seed), mode: "direct" };
}

interface Kinds {
  sums: number[];
  sizes: number[];
  counts: number[];
}

function distinctKinds(sums: Float64Array, sizes: Float64Array): Kinds | null {
  const index = new Map<string, number>();
  const kinds: Kinds = { sums: [], sizes: [], counts: [] };
  for (let u = 0; u < sums.length; u++) {
    const key = `${sums[u]}|${sizes[u]}`;
    const at = index.get(key);
    if (at !== undefined) {
      kinds.counts[at]!++;
      continue;
    }
    if (kinds.counts.length === MAX_KINDS) return null;
    index.set(key, kinds.counts.length);
    kinds.sums.push(sums[u]!);
    kinds.sizes.push(sizes[u]!);
    kinds.counts.push(1);
  }
  return kinds;
}

function multinomialReplicates(
  kinds: Kinds,
  units: number,
  resamples: number,
  seed: number,
): Float64Array {
  const random = createRandom(seed);
  const m = kinds.counts.length;
  const out = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let left = units;
    let mass = units;
    let sum = 0;
    let size = 0;
    for (let j = 0; j < m && left > 0; j++) {
      const count = kinds.counts[j]!;
      const drawn = j === m - 1 ? left : sampleBinomial(random, left, Math.min(1, count / mass));
      left -= drawn;
      mass -= count;
      sum += drawn * kinds.sums[j]!;
      size += drawn * kinds.sizes[j]!;
    }
    out[b] = sum / size;
  }
  return out.sort();
}

function directReplicates(
  sums: Float64Array,
  sizes: Float64Array,
  resamples: number,
  seed: number,
): Float64Array {
  const units = sums.length;
  const out = new Float64Array(resamples);
  // xoshiro128** inlined: this loop is the whole cost of a bootstrap.
  const state = seedState(seed);
  let s0 = state[0]! | 0;
  let s1 = state[1]! | 0;
  let s2 = state[2]! | 0;
  let s3 = state[3]! | 0;
  const scale = units / 4294967296;
  const clustered = sizes.some((size) => size !== 1);
  for (let b = 0; b < resamples; b++) {
    let sum = 0;
    let size = 0;
    for (let i = 0; i < units; i++) {
      const m = Math.imul(s1, 5);
      const r = Math.imul((m << 7) | (m >>> 25), 9) >>> 0;
      const t = s1 << 9;
      s2 ^= s0;
      s3 ^= s1;
      s1 ^= s2;
      s0 ^= s3;
      s2 ^= t;
      s3 = (s3 << 11) | (s3 >>> 21);
      const u = Math.floor(r * scale);
      sum += sums[u]!;
      if (clustered) size += sizes[u]!;
    }
    out[b] = clustered ? sum / size : sum / units;
  }
  return out.sort();
}

/** Quantile of sorted values, linear between order statistics (type 7). */
export function quantileSorted(sorted: Float64Array | readonly number[], p: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const h = (n - 1) * p;
  const low = Math.floor(h);
  const high = Math.min(n - 1, low + 1);
  return sorted[low]! + (h - low) * (sorted[high]! - sorted[low]!);
}
