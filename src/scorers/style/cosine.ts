import { NiceevalError } from "../../errors.js";

/** Embedding vectors of different lengths were compared; they come from different models. */
export class EmbeddingDimensionError extends NiceevalError {
  readonly expected: number;
  readonly actual: number;
  /** Which vector had the wrong length, e.g. "references[2]". */
  readonly where: string;
  constructor(where: string, expected: number, actual: number) {
    super(
      "EMBEDDING_DIMENSION_MISMATCH",
      `embedding ${where} has ${actual} dimensions, expected ${expected} like the candidate: embed every text with the same model (vectors are never padded or truncated)`,
    );
    this.name = "EmbeddingDimensionError";
    this.expected = expected;
    this.actual = actual;
    this.where = where;
  }
}

/**
 * Cosine similarity (-1..1) between a candidate vector and the centroid (arithmetic mean) of
 * reference vectors. Scaling the candidate, or all references together, leaves it unchanged.
 * A result within 1e-12 of 1 or -1 (floating-point rounding) is exactly 1 or -1, so a candidate
 * equal to the centroid scores 1.
 * A zero candidate, or references that cancel out (see {@link referencesCancelOut}), has no
 * direction: the result is 0, never NaN.
 * @throws EmbeddingDimensionError when a reference's length differs from the candidate's.
 * @throws RangeError when there is no reference or a component is not a finite number.
 * @example
 * cosineToCentroid([1, 0], [[1, 1], [1, -1]]) // → 1 (the centroid is [1, 0])
 */
export function cosineToCentroid(
  candidate: readonly number[],
  references: readonly (readonly number[])[],
): number {
  if (references.length === 0) {
    throw new RangeError(
      "cosineToCentroid: references is empty; give at least one reference vector",
    );
  }
  checkFinite(candidate, "candidate");
  references.forEach((reference, index) => {
    if (reference.length !== candidate.length) {
      throw new EmbeddingDimensionError(`references[${index}]`, candidate.length, reference.length);
    }
    checkFinite(reference, `references[${index}]`);
  });
  const centroid = directedCentroid(references, candidate.length);
  // Dividing by the largest component first keeps squares away from overflow and underflow.
  const candidateScale = maxAbs(candidate);
  if (candidateScale === 0 || centroid === undefined) return 0;
  const centroidScale = maxAbs(centroid);
  let dot = 0;
  let candidateNorm = 0;
  let centroidNorm = 0;
  for (let d = 0; d < candidate.length; d += 1) {
    const c = (candidate[d] ?? 0) / candidateScale;
    const m = (centroid[d] ?? 0) / centroidScale;
    dot += c * m;
    candidateNorm += c * c;
    centroidNorm += m * m;
  }
  return snapToUnit(dot / (Math.sqrt(candidateNorm) * Math.sqrt(centroidNorm)));
}

/**
 * How far from ±1 a cosine may be and still be ±1: rounding in a sum of a few thousand products
 * stays far below 1e-12 (v against [v] gave 0.9999999999999998), and a cosine of 1 - 1e-12 is an
 * angle of only 1.4e-6 radians.
 */
const ROUNDING = 1e-12;

/** A cosine within rounding of ±1 is exactly ±1 (a candidate equal to the centroid scores 1). */
function snapToUnit(cosine: number): number {
  if (cosine >= 1 - ROUNDING) return 1;
  if (cosine <= -1 + ROUNDING) return -1;
  return cosine;
}

/**
 * Whether references of one length (and finite components) have a centroid without direction:
 * every component is zero, as for `[[1, 0], [-1, 0]]`, or below 1e-12 of the references' largest
 * component, which is all that rounding leaves of vectors that cancel out.
 */
export function referencesCancelOut(references: readonly (readonly number[])[]): boolean {
  return directedCentroid(references, references[0]?.length ?? 0) === undefined;
}

/** Below this share of the references' largest component, a centroid's components are rounding. */
const CANCELLED = 1e-12;

/** The mean of the references, or undefined when they cancel out. */
function directedCentroid(
  references: readonly (readonly number[])[],
  dimensions: number,
): number[] | undefined {
  const centroid = new Array<number>(dimensions).fill(0);
  let largest = 0;
  for (const reference of references) {
    largest = Math.max(largest, maxAbs(reference));
    for (let d = 0; d < dimensions; d += 1)
      centroid[d] = (centroid[d] ?? 0) + (reference[d] ?? 0) / references.length;
  }
  return maxAbs(centroid) <= largest * CANCELLED ? undefined : centroid;
}

function maxAbs(vector: readonly number[]): number {
  let max = 0;
  for (const component of vector) max = Math.max(max, Math.abs(component));
  return max;
}

function checkFinite(vector: readonly number[], where: string): void {
  const bad = vector.findIndex(
    (component) => typeof component !== "number" || !Number.isFinite(component),
  );
  if (bad !== -1) {
    throw new RangeError(
      `cosineToCentroid: ${where}[${bad}] is ${String(vector[bad])}, not a finite number`,
    );
  }
}
