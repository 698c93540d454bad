import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type PairwiseVerdict, type PairwiseWinner, pairwiseWinRate } from "./pairwise-win-rate.js";

const v = (
  item: string,
  judge: string,
  order: "normal" | "swapped",
  winner: PairwiseWinner,
): PairwiseVerdict => ({ item, judge, order, winner });

describe("pairwiseWinRate: win rate", () => {
  it("maps swapped winners back and averages the two orders", () => {
    // Normal: a wins 2 of 2 (rate 1). Swapped: shown-b (original a) wins 1 of 2 (rate 0.5).
    const result = pairwiseWinRate([
      v("q1", "j", "normal", "a"),
      v("q2", "j", "normal", "a"),
      v("q1", "j", "swapped", "b"),
      v("q2", "j", "swapped", "a"),
    ]);
    expect(result).toMatchObject({ winRate: 0.75, n: 4, nNormal: 2, nSwapped: 2, balanced: true });
  });

  it("cancels a judge that always picks the first position", () => {
    const result = pairwiseWinRate([
      v("q1", "j", "normal", "a"),
      v("q1", "j", "swapped", "a"),
      v("q2", "j", "normal", "a"),
      v("q2", "j", "swapped", "a"),
    ]);
    expect(result.winRate).toBe(0.5);
  });

  it("weights the orders equally even when their counts differ", () => {
    const result = pairwiseWinRate([
      v("q1", "j", "normal", "a"),
      v("q2", "j", "normal", "a"),
      v("q3", "j", "normal", "a"),
      v("q1", "j", "swapped", "a"),
    ]);
    expect(result.winRate).toBe(0.5);
  });

  it("counts a tie as half a win", () => {
    expect(
      pairwiseWinRate([v("q1", "j", "normal", "tie"), v("q1", "j", "swapped", "tie")]).winRate,
    ).toBe(0.5);
  });

  it("falls back to the one order present, flagged unbalanced", () => {
    const normalOnly = pairwiseWinRate([v("q1", "j", "normal", "a"), v("q2", "j", "normal", "b")]);
    expect(normalOnly).toMatchObject({ winRate: 0.5, nNormal: 2, nSwapped: 0, balanced: false });
    const swappedOnly = pairwiseWinRate([v("q1", "j", "swapped", "b")]);
    expect(swappedOnly).toMatchObject({ winRate: 1, nNormal: 0, nSwapped: 1, balanced: false });
  });

  it("gives winRate null and kappa null without verdicts", () => {
    expect(pairwiseWinRate([])).toEqual({
      winRate: null,
      kappa: null,
      n: 0,
      nNormal: 0,
      nSwapped: 0,
      balanced: false,
    });
  });

  it("rejects a verdict without item id, naming its index", () => {
    const bad = [v("q1", "j", "normal", "a"), { judge: "j", order: "normal", winner: "a" }];
    expect(() => pairwiseWinRate(bad as PairwiseVerdict[])).toThrow(/verdicts\[1\]\.item/);
    const badWinner = [{ item: "q", order: "normal", winner: "toString" }];
    expect(() => pairwiseWinRate(badWinner as unknown as PairwiseVerdict[])).toThrow(
      /verdicts\[0\]\.winner/,
    );
  });
});

describe("pairwiseWinRate: kappa", () => {
  it("is 1 for two judges in full agreement over varied items", () => {
    const verdicts = ["a", "b", "tie"].flatMap((winner, i) => [
      v(`q${i}`, "j1", "normal", winner as PairwiseWinner),
      v(`q${i}`, "j2", "normal", winner as PairwiseWinner),
    ]);
    expect(pairwiseWinRate(verdicts).kappa).toBe(1);
  });

  it("computes Cohen's kappa on item-level answers", () => {
    // j1: a, a, b, b ; j2: a, b, b, b → po = 3/4, pe = (2/4)(1/4) + (2/4)(3/4) = 1/2, kappa = 0.5.
    const j1: PairwiseWinner[] = ["a", "a", "b", "b"];
    const j2: PairwiseWinner[] = ["a", "b", "b", "b"];
    const verdicts = j1.flatMap((w, i) => [
      v(`q${i}`, "j1", "normal", w),
      v(`q${i}`, "j2", "normal", j2[i]!),
    ]);
    expect(pairwiseWinRate(verdicts).kappa).toBeCloseTo(0.5, 12);
  });

  it("joins a normal+swapped pair on one item into one observation", () => {
    // Each judge gives both orders per item; consistent answers. 2 items → kappa defined.
    const verdicts = [
      v("q1", "j1", "normal", "a"),
      v("q1", "j1", "swapped", "b"),
      v("q2", "j1", "normal", "b"),
      v("q2", "j1", "swapped", "a"),
      v("q1", "j2", "normal", "a"),
      v("q2", "j2", "swapped", "a"),
    ];
    // As observations: j1 = {q1: a, q2: b}, j2 = {q1: a, q2: b} → perfect agreement, kappa 1.
    expect(pairwiseWinRate(verdicts).kappa).toBe(1);
  });

  it("reads an inconsistent pair of orders as a tie", () => {
    const verdicts = [
      v("q1", "j1", "normal", "a"),
      v("q1", "j1", "swapped", "a"), // position bias: original a then original b
      v("q2", "j1", "normal", "b"),
      v("q1", "j2", "normal", "tie"),
      v("q2", "j2", "normal", "b"),
    ];
    expect(pairwiseWinRate(verdicts).kappa).toBe(1);
  });

  it("uses the two most represented judges", () => {
    const verdicts = [
      v("q1", "big1", "normal", "a"),
      v("q2", "big1", "normal", "b"),
      v("q3", "big1", "normal", "a"),
      v("q1", "big2", "normal", "a"),
      v("q2", "big2", "normal", "b"),
      v("q3", "big2", "normal", "a"),
      v("q1", "small", "normal", "b"),
      v("q2", "small", "normal", "a"),
    ];
    expect(pairwiseWinRate(verdicts).kappa).toBe(1);
  });

  it("is null with a single judge (never a default 1)", () => {
    const verdicts = [v("q1", "j", "normal", "a"), v("q2", "j", "normal", "b")];
    expect(pairwiseWinRate(verdicts).kappa).toBeNull();
    const anonymous = [
      { item: "q1", order: "normal", winner: "a" },
      { item: "q2", order: "normal", winner: "b" },
    ] as const;
    expect(pairwiseWinRate(anonymous as unknown as PairwiseVerdict[]).kappa).toBeNull();
  });

  it("is null with fewer than two common items", () => {
    const verdicts = [
      v("q1", "j1", "normal", "a"),
      v("q1", "j1", "swapped", "b"),
      v("q2", "j1", "normal", "b"),
      v("q1", "j2", "normal", "a"),
      v("q1", "j2", "swapped", "b"),
      v("q3", "j2", "normal", "a"),
    ];
    expect(pairwiseWinRate(verdicts).kappa).toBeNull();
  });

  it("is null when both judges always gave the same single answer", () => {
    const verdicts = [
      v("q1", "j1", "normal", "a"),
      v("q2", "j1", "normal", "a"),
      v("q1", "j2", "normal", "a"),
      v("q2", "j2", "normal", "a"),
    ];
    expect(pairwiseWinRate(verdicts).kappa).toBeNull();
  });
});

const verdictArb = fc.record({
  item: fc.constantFrom("q1", "q2", "q3", "q4"),
  judge: fc.constantFrom("j1", "j2", "j3"),
  order: fc.constantFrom("normal" as const, "swapped" as const),
  winner: fc.constantFrom("a" as const, "b" as const, "tie" as const),
});

const flip = (winner: PairwiseWinner): PairwiseWinner =>
  winner === "a" ? "b" : winner === "b" ? "a" : "tie";

describe("pairwiseWinRate: properties", () => {
  it("keeps winRate in [0, 1] and kappa in [-1, 1] or null", () => {
    fc.assert(
      fc.property(fc.array(verdictArb, { minLength: 1, maxLength: 40 }), (verdicts) => {
        const { winRate, kappa, n, nNormal, nSwapped } = pairwiseWinRate(verdicts);
        expect(winRate).not.toBeNull();
        expect(winRate!).toBeGreaterThanOrEqual(0);
        expect(winRate!).toBeLessThanOrEqual(1);
        if (kappa !== null) {
          expect(Number.isFinite(kappa)).toBe(true);
          expect(kappa).toBeGreaterThanOrEqual(-1 - 1e-12);
          expect(kappa).toBeLessThanOrEqual(1 + 1e-12);
        }
        expect(nNormal + nSwapped).toBe(n);
      }),
    );
  });

  it("is unchanged when every verdict is re-expressed in the other order", () => {
    // Showing the pair the other way round and flipping the shown winner is the same judgment.
    fc.assert(
      fc.property(fc.array(verdictArb, { minLength: 1, maxLength: 40 }), (verdicts) => {
        const mirrored = verdicts.map((x) => ({
          ...x,
          order: x.order === "normal" ? ("swapped" as const) : ("normal" as const),
          winner: flip(x.winner),
        }));
        const a = pairwiseWinRate(verdicts);
        const b = pairwiseWinRate(mirrored);
        expect(b.winRate).toBeCloseTo(a.winRate!, 12);
        expect(b.kappa).toEqual(a.kappa);
        expect([b.nNormal, b.nSwapped]).toEqual([a.nSwapped, a.nNormal]);
      }),
    );
  });

  it("gives 1 - winRate when the candidates swap roles", () => {
    fc.assert(
      fc.property(fc.array(verdictArb, { minLength: 1, maxLength: 40 }), (verdicts) => {
        const swappedRoles = verdicts.map((x) => ({ ...x, winner: flip(x.winner) }));
        expect(pairwiseWinRate(swappedRoles).winRate).toBeCloseTo(
          1 - pairwiseWinRate(verdicts).winRate!,
          12,
        );
      }),
    );
  });
});
