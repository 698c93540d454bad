import { describe, expect, it } from "vitest";
import { createRandom } from "../stats/random.js";
import { compareRuns } from "./compare-runs.js";
import { formatComparison, formatComparisonMarkdown } from "./format.js";
import { pText } from "./notes.js";
import { evalManifest, type Spec, storeWith } from "./test-support/memory-store.js";
import type { Comparison } from "./types.js";

// The pass rate's gate when cases ran several trials. McNemar's test counted the cases whose
// share of passing trials fell against those whose share rose, which is no fair coin when the runs
// ran other numbers of trials: base 1 trial against head 3, pure noise at a pass rate of 0.7 was
// "pass rate fell … McNemar p < 0.0001" (298 worse, 159 better of 600 cases).

/** A run of `evals` × `n` cases, `trials` each, every trial passing with `pass(i)`, seeded. */
function noiseRun(
  seed: number,
  { n, trials, pass, evals = ["qa"] }: RunShape & { trials: number },
): Spec[] {
  const random = createRandom(seed);
  return evals.flatMap((evalId) =>
    Array.from({ length: n * trials }, (_, at): Spec => {
      const i = Math.floor(at / trials);
      const passed = random.float() < pass(i);
      return { evalId, caseId: `c${i}`, trial: at % trials, verdict: passed ? "passed" : "failed" };
    }),
  );
}

interface RunShape {
  n: number;
  pass: (i: number) => number;
  evals?: string[];
}

/** Base and head of the same shape but their trials and seeds, compared. */
async function comparePair(
  shape: RunShape,
  trials: { base: number; head: number },
  seeds: { base: number; head: number },
  head: Partial<RunShape> = {},
  resamples?: number,
): Promise<Comparison> {
  const evals = shape.evals ?? ["qa"];
  const store = await storeWith(
    {
      base: noiseRun(seeds.base, { ...shape, trials: trials.base }),
      head: noiseRun(seeds.head, { ...shape, ...head, trials: trials.head }),
    },
    {
      base: evals.map((id) => evalManifest(id, { trials: trials.base })),
      head: evals.map((id) => evalManifest(id, { trials: trials.head })),
    },
  );
  return compareRuns(store, "base", "head", resamples ? { resamples } : {});
}

const sevenTenths = () => 0.7;
/** Cases from always failing to always passing, spread evenly (the golden-ratio sequence). */
const mixed = (i: number) => (i * 0.618034) % 1;

describe("the pass rate's gate with trials", () => {
  it("does not call pure noise a regression when the trials differ (base 1, head 3), and says which test decided", async () => {
    const shape = { n: 200, pass: sevenTenths, evals: ["alpha", "beta", "gamma"] };
    const c = await comparePair(shape, { base: 1, head: 3 }, { base: 11, head: 41 });
    const r = c.overall.passRate!;
    // McNemar's counts lean the way 1 trial against 3 pushes them, whatever the pass rate did.
    expect(r.test.worse).toBeGreaterThan(1.5 * r.test.better);
    expect(r.test.pValue).toBeLessThan(1e-4);
    expect(r.decidedBy).toBe("permutation");
    expect(r.pValue).toBe(r.permutationTest!.pValue);
    expect(r.pValue).toBeGreaterThan(0.05);
    expect(r.judgedTrials).toEqual({ base: { min: 1, max: 1 }, head: { min: 3, max: 3 } });
    expect(c.decision).toMatchObject({ regression: false, passRate: false, evals: [] });
    for (const e of c.evals) expect(e.passRate!.decidedBy).toBe("permutation");

    const text = formatComparison(c);
    expect(text).toContain("no significant regression at alpha = 0.05");
    expect(text).toMatch(
      /\d+ worse, \d+ better; permutation of each case's trials p = [\d.]+, the gate's: McNemar's test needs one judged trial per case in both runs \(here base 1, head 3\)\)/,
    );
    expect(text).not.toMatch(/McNemar p/);
    const md = formatComparisonMarkdown(c);
    expect(md).toContain("| eval | n | pass rate | pass rate p |");
    expect(md).toContain(
      "_Pass rate p: the test the gate decides by, the permutation test of each case's trials where cases ran trials (McNemar's test needs one judged trial per case in both runs (here base 1, head 3))._",
    );
    // In JSON, the test and its p beside McNemar's counts.
    const json = JSON.parse(JSON.stringify(c)) as Comparison;
    expect(json.overall.passRate).toMatchObject({ decidedBy: "permutation", pValue: r.pValue });
  });

  it("still finds a real fall with trials, naming the test that found it", async () => {
    const shape = { n: 200, pass: sevenTenths };
    for (const trials of [
      { base: 1, head: 3 },
      { base: 3, head: 5 },
    ]) {
      const c = await comparePair(shape, trials, { base: 3, head: 4 }, { pass: () => 0.5 });
      expect(c.decision.passRate, JSON.stringify(trials)).toBe(true);
      expect(c.decision.reasons[0]).toMatch(
        /^pass rate fell from [\d.]+% to [\d.]+% \(n = 200, permutation of each case's trials p [<=] [\d.]+ < 0\.05\)$/,
      );
    }
  });

  it("fires on pure noise at most at alpha (1 vs 3 and 3 vs 5 trials), and on a 20-point fall nearly always", async () => {
    // Seeded pairs of runs of one target (each trial passes with the same chance in both runs) of
    // 100 cases: the gate, pass rate and mean score, may fire at alpha = 0.05 at most (it fires
    // on a fall only: about half of that is expected). It fires in 0%, 2.7%, 2% and 1.3% of these
    // pairs; McNemar's count of cases that fell fired in 40% of them at 0.7 with 1 trial against 3
    // (8% with 3 against 5), and in nearly every pair of 600 cases.
    const pairs = 150;
    const rates: Record<string, { gate: number; mcnemar: number }> = {};
    for (const [name, pass] of [
      ["0.7", sevenTenths],
      ["mixed", mixed],
    ] as const) {
      for (const trials of [
        { base: 1, head: 3 },
        { base: 3, head: 5 },
      ]) {
        let gate = 0;
        let mcnemar = 0;
        for (let k = 0; k < pairs; k++) {
          const seeds = { base: 1000 + 2 * k, head: 1001 + 2 * k };
          const c = await comparePair({ n: 100, pass }, trials, seeds, {}, 1000);
          if (c.decision.regression) gate++;
          const t = c.overall.passRate!.test;
          if (t.worse > t.better && t.pValue < 0.05) mcnemar++;
        }
        rates[`${name} ${trials.base} vs ${trials.head}`] = {
          gate: gate / pairs,
          mcnemar: mcnemar / pairs,
        };
      }
    }
    for (const [name, rate] of Object.entries(rates))
      expect(rate.gate, `${name}: ${JSON.stringify(rate)}`).toBeLessThanOrEqual(0.05);
    // The bias the gate no longer decides by: 1 trial against 3 at 0.7.
    expect(rates["0.7 1 vs 3"]!.mcnemar).toBeGreaterThan(0.3);

    let found = 0;
    const falls = 20;
    for (let k = 0; k < falls; k++) {
      const trials = k % 2 === 0 ? { base: 1, head: 3 } : { base: 3, head: 5 };
      const seeds = { base: 5000 + 2 * k, head: 5001 + 2 * k };
      const c = await comparePair(
        { n: 200, pass: sevenTenths },
        trials,
        seeds,
        { pass: () => 0.5 },
        1000,
      );
      if (c.decision.passRate) found++;
    }
    expect(found).toBe(falls);
  });

  it("tests what errored cases may hide as the pass rate is, when the trials differ", async () => {
    // Noise, 1 trial against 3, and a case whose three head trials errored: no finding.
    const base = noiseRun(21, { n: 200, trials: 1, pass: sevenTenths });
    const head = noiseRun(22, { n: 200, trials: 3, pass: sevenTenths }).map(
      (spec): Spec =>
        spec.caseId === "c0" ? { ...spec, verdict: "errored", score: "unavailable" } : spec,
    );
    const noise = await compareRuns(
      await storeWith(
        { base, head },
        { base: [evalManifest("qa", { trials: 1 })], head: [evalManifest("qa", { trials: 3 })] },
      ),
      "base",
      "head",
    );
    const errored = noise.overall.errored!;
    expect(errored).toMatchObject({ cases: 1, decidedBy: "permutation" });
    expect(errored.asFailures.worse).toBeGreaterThan(1.5 * errored.asFailures.better);
    expect(errored.pValue).toBeGreaterThan(0.05);
    expect(noise.decision.regression).toBe(false);
    expect(formatComparison(noise)).toContain(
      "1 case errored in every trial of a run, left out (counted as failures: permutation of each case's trials p = ",
    );

    // Six of ten passing cases erroring in all three trials (a judge outage) still fail the gate.
    const outage = await compareRuns(
      await storeWith({
        base: Array.from({ length: 10 }, (_, i): Spec => ({ caseId: `c${i}` })),
        head: Array.from({ length: 30 }, (_, at): Spec => {
          const i = Math.floor(at / 3);
          return {
            caseId: `c${i}`,
            trial: at % 3,
            ...(i < 6 ? { verdict: "errored", score: "unavailable" } : {}),
          };
        }),
      }),
      "base",
      "head",
    );
    expect(outage.decision.checks).toEqual(["errors"]);
    expect(outage.decision.reasons[0]).toContain(
      "had their errored trials failed, the pass rate would have fallen (permutation of each case's trials p = 0.000244 < 0.05)",
    );
  });

  it("fires on pure noise at most at alpha with 1 trial against 10 at a 0.95 pass rate over 20 cases", async () => {
    // Each case mostly 0.9 − 1 (one of ten head trials failed), rarely 1 − 0: the sign-flip test
    // over the pass shares and mean scores, which decided before, called a third of these pairs
    // a fall.
    const pairs = 100;
    let gate = 0;
    for (let k = 0; k < pairs; k++) {
      const seeds = { base: 7000 + 2 * k, head: 7001 + 2 * k };
      const c = await comparePair({ n: 20, pass: () => 0.95 }, { base: 1, head: 10 }, seeds);
      expect(c.overall.passRate!.decidedBy).toBe("permutation");
      expect(c.overall.meanScore!.decidedBy).toBe("permutation");
      if (c.decision.regression) gate++;
    }
    expect(gate / pairs).toBeLessThanOrEqual(0.05);
  });

  it("tests what errored cases may hide over clusters when cases share them", async () => {
    // 6 clusters of 8 cases; every case of one cluster errored in the head run. Counted as
    // failures, one cluster of six fell: no test over clusters can call that a fall.
    const base = Array.from(
      { length: 48 },
      (_, i): Spec => ({
        caseId: `c${i}`,
        cluster: `k${Math.floor(i / 8)}`,
      }),
    );
    const head = base.map(
      (spec, i): Spec => (i < 8 ? { ...spec, verdict: "errored", score: "unavailable" } : spec),
    );
    const c = await compareRuns(await storeWith({ base, head }), "base", "head");
    expect(c.overall.errored).toMatchObject({ cases: 8, decidedBy: "cluster-sign-flip" });
    expect(c.overall.errored!.asFailures.worse).toBe(8);
    expect(c.overall.errored!.pValue).toBe(1);
    expect(c.decision.regression).toBe(false);
    expect(formatComparison(c)).toContain(
      "8 cases errored in every trial of a run, left out (counted as failures: sign-flip over the clusters p = 1)",
    );
  });
});

describe("the mean score's test in the Markdown comparison", () => {
  it("shows the p of the test the gate decides by, the permutation, where scored trials differ", async () => {
    // 20 cases, 1 scored trial in the base run against 3 in the head: each case's head scores
    // spread around its base score, so the sign-flip test over the mean scores and the
    // permutation test of the trial scores give other p-values.
    const base: Spec[] = Array.from({ length: 20 }, (_, i) => ({
      caseId: `c${i}`,
      score: i % 2 === 0 ? 1 : 0.5,
    }));
    const head: Spec[] = Array.from({ length: 60 }, (_, at) => {
      const i = Math.floor(at / 3);
      return { caseId: `c${i}`, trial: at % 3, score: at % 3 === 0 ? 0 : 1 };
    });
    const store = await storeWith(
      { base, head },
      { base: [evalManifest("qa", { trials: 1 })], head: [evalManifest("qa", { trials: 3 })] },
    );
    const c = await compareRuns(store, "base", "head");
    const d = c.overall.meanScore!;
    expect(d.decidedBy).toBe("permutation");
    expect(d.pValue).not.toBe(d.test.pValue);
    const markdown = formatComparisonMarkdown(c);
    const row = markdown.split("\n").find((line) => line.startsWith("| qa |"))!;
    expect(row).toContain(`permutation of each case's trials ${pText(d.pValue)}`);
    expect(row).not.toContain(pText(d.test.pValue));
  });
});
