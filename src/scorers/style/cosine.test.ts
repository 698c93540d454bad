import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cosineToCentroid, EmbeddingDimensionError, referencesCancelOut } from "./cosine.js";

describe("cosineToCentroid", () => {
  it("is 1 for the centroid's direction, 0 orthogonal, -1 opposed", () => {
    const references = [
      [1, 1],
      [1, -1],
    ];
    expect(cosineToCentroid([1, 0], references)).toBe(1);
    expect(cosineToCentroid([0, 3], references)).toBe(0);
    expect(cosineToCentroid([-2, 0], references)).toBe(-1);
    expect(cosineToCentroid([1, 1], references)).toBeCloseTo(Math.SQRT1_2, 12);
  });

  it("returns 0, not NaN, for a zero candidate or a zero centroid", () => {
    expect(cosineToCentroid([0, 0], [[1, 2]])).toBe(0);
    expect(
      cosineToCentroid(
        [1, 2],
        [
          [1, 0],
          [-1, 0],
        ],
      ),
    ).toBe(0);
    expect(cosineToCentroid([], [[]])).toBe(0);
  });

  it("returns 0 when the references cancel out but for rounding (no direction is left)", () => {
    // The mean of 0.1, 0.2 and -0.3 is 1.4e-17, not 0: rounding, not a direction.
    expect(cosineToCentroid([1], [[0.1], [0.2], [-0.3]])).toBe(0);
    expect(referencesCancelOut([[0.1], [0.2], [-0.3]])).toBe(true);
    expect(
      referencesCancelOut([
        [1, 0],
        [-1, 0],
      ]),
    ).toBe(true);
    expect(
      referencesCancelOut([
        [1e-300, 0],
        [0, 0],
      ]),
    ).toBe(false);
    expect(
      referencesCancelOut([
        [1, 0],
        [-1, 1e-9],
      ]),
    ).toBe(false);
  });

  it("throws EmbeddingDimensionError naming the mismatched reference, never padding", () => {
    const error = (() => {
      try {
        cosineToCentroid(
          [1, 0, 0],
          [
            [1, 0, 0],
            [1, 0],
          ],
        );
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(EmbeddingDimensionError);
    expect(error).toMatchObject({
      code: "EMBEDDING_DIMENSION_MISMATCH",
      where: "references[1]",
      expected: 3,
      actual: 2,
    });
    expect((error as Error).message).toContain("same model");
  });

  it("throws a RangeError for an empty reference set or a non-finite component", () => {
    expect(() => cosineToCentroid([1], [])).toThrow(RangeError);
    expect(() => cosineToCentroid([1], [])).toThrow(/references is empty/);
    expect(() => cosineToCentroid([Number.NaN], [[1]])).toThrow(/candidate\[0\]/);
    expect(() => cosineToCentroid([1], [[Number.POSITIVE_INFINITY]])).toThrow(
      /references\[0\]\[0\]/,
    );
  });

  it("gives exactly 1 for a candidate equal to the centroid, and -1 for its opposite (seed 002)", () => {
    expect(cosineToCentroid([1, 2], [[1, 2]])).toBe(1);
    expect(cosineToCentroid([-1, -2], [[1, 2]])).toBe(-1);
    // Seeded random vectors: without rounding to ±1, v against [v] missed 1 in about 30% of them.
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1536 }).chain((dim) =>
          fc.array(fc.double({ min: -1, max: 1, noNaN: true }), {
            minLength: dim,
            maxLength: dim,
          }),
        ),
        (v) => {
          fc.pre(v.some((x) => Math.abs(x) > 1e-6));
          const twice = v.map((x) => 2 * x);
          expect(cosineToCentroid(v, [v])).toBe(1);
          expect(cosineToCentroid(v, [twice])).toBe(1);
          expect(cosineToCentroid(v, [v, twice, v])).toBe(1);
          expect(
            cosineToCentroid(
              v.map((x) => -x),
              [v],
            ),
          ).toBe(-1);
        },
      ),
      { seed: 20250101, numRuns: 300 },
    );
  });

  it("keeps a cosine further than rounding from 1 as it is", () => {
    const near = cosineToCentroid([1, 1e-5], [[1, 0]]);
    expect(near).toBeLessThan(1);
    expect(near).toBeGreaterThan(1 - 1e-9);
  });

  it("stays finite for huge and tiny components", () => {
    expect(cosineToCentroid([1e300, 1e300], [[1e300, 0]])).toBeCloseTo(Math.SQRT1_2, 12);
    expect(cosineToCentroid([1e-300, 0], [[5e-300, 0]])).toBe(1);
  });
});

// Near-subnormal components would round to 0 once scaled; they are not what this property is about.
const component = fc
  .double({ min: -1000, max: 1000, noNaN: true })
  .map((x) => (Math.abs(x) < 1e-6 ? 0 : x));
const vectorsArb = fc.integer({ min: 1, max: 8 }).chain((dim) =>
  fc.record({
    candidate: fc.array(component, { minLength: dim, maxLength: dim }),
    references: fc.array(fc.array(component, { minLength: dim, maxLength: dim }), {
      minLength: 1,
      maxLength: 5,
    }),
  }),
);
const scale = fc.double({ min: 1e-3, max: 1e3, noNaN: true });

describe("cosineToCentroid: properties", () => {
  it("is in [-1, 1] and never NaN", () => {
    fc.assert(
      fc.property(vectorsArb, ({ candidate, references }) => {
        const cosine = cosineToCentroid(candidate, references);
        expect(Number.isNaN(cosine)).toBe(false);
        expect(Math.abs(cosine)).toBeLessThanOrEqual(1);
      }),
    );
  });

  it("is invariant under positive scaling of the candidate and of all references together", () => {
    fc.assert(
      fc.property(vectorsArb, scale, scale, ({ candidate, references }, k, m) => {
        // References that nearly cancel leave a centroid made of rounding errors, whose direction
        // moves with any scaling (as in any floating-point sum): the property is of the others.
        const norm = (v: readonly number[]) => Math.hypot(...v);
        const centroid = references[0]!.map((_, i) =>
          references.reduce((sum, r) => sum + r[i]!, 0),
        );
        const largest = Math.max(...references.map(norm));
        fc.pre(norm(centroid) > 1e-6 * largest);
        const base = cosineToCentroid(candidate, references);
        const scaled = cosineToCentroid(
          candidate.map((x) => x * k),
          references.map((r) => r.map((x) => x * m)),
        );
        expect(scaled).toBeCloseTo(base, 6);
      }),
    );
  });
});
