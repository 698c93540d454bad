import { describe, expect, it } from "vitest";
import { NiceevalError } from "../errors.js";
import type { AttemptRecord, Verdict } from "../eval/record.js";
import { addShareCase, emptyShareSums, passRateInterval } from "../stats/clustered.js";
import type { RunManifest } from "../store/types.js";
import { compareRuns } from "./compare-runs.js";
import { formatComparison, formatComparisonMarkdown } from "./format.js";
import {
  cases,
  evalManifest,
  MemoryStore,
  manifest,
  record,
  type Spec,
  storeWith,
} from "./test-support/memory-store.js";

describe("compareRuns", () => {
  it("pairs cases by id and lists regressions with the judgment that changed", async () => {
    const store = await storeWith({
      base: [
        { caseId: "a" },
        { caseId: "b", verdict: "failed" },
        { caseId: "c" },
        { caseId: "d" },
        { caseId: "gone" },
      ],
      // Order differs and a case is inserted: pairing is by id, never by position.
      head: [
        { caseId: "new" },
        { caseId: "d" },
        { caseId: "c", verdict: "errored", score: "unavailable" },
        { caseId: "b" },
        { caseId: "a", verdict: "failed", reason: "expected 4, got 5" },
      ],
    });
    const c = await compareRuns(store, "base", "head");
    const qa = c.evals[0]!;
    expect(qa.transitions).toEqual({
      passToFail: 1,
      failToPass: 1,
      becameErrored: 1,
      passRateDown: 0,
      passRateUp: 0,
      scoreDown: 0,
      scoreUp: 0,
      added: 1,
      removed: 1,
      unchanged: 1,
    });
    expect(qa.addedCases).toEqual(["new"]);
    expect(qa.removedCases).toEqual(["gone"]);
    // c errored: no evidence that it fails, so not a new failure (it became errored).
    expect(qa.newFailures).toBe(1);
    expect(qa.newFailureCases).toEqual(["a"]);
    expect(qa.changes.map((x) => [x.caseId, x.kind, x.regression])).toEqual([
      ["c", "became-errored", true],
      ["a", "pass-to-fail", true],
      ["b", "fail-to-pass", false],
    ]);
    const a = qa.changes[1]!;
    expect(a.judgments).toEqual([
      {
        label: "exact",
        source: "scorer",
        gate: true,
        base: { state: "matched", reason: "equal", earned: 1, points: 1 },
        head: { state: "mismatched", reason: "expected 4, got 5", earned: 0, points: 1 },
      },
    ]);
    expect(qa.changes[0]!.error).toBe("target: boom");
    // The errored attempt has no score: left out of the score comparison, and named.
    expect(qa.leftOut).toMatchObject({ unavailableAttempts: 1, unscoredCases: 1 });
    expect(qa.leftOut.attempts).toEqual([
      { run: "head", evalId: "qa", caseId: "c", trial: 0, trials: 1, state: "unavailable" },
    ]);
    expect(qa.meanScore!.n).toBe(3);
    // c is left out of the pass rate too, and counted apart with what it may hide.
    expect(qa.passRate!.n).toBe(3);
    expect(qa.passRate!.test).toMatchObject({ worse: 1, better: 1 });
    expect(qa.errored).toMatchObject({ cases: 1, asFailures: { worse: 2, better: 1 } });
    expect(c.warnings).toEqual([]);
  });

  it("computes McNemar on the discordant pairs", async () => {
    // 1 pass→fail, 9 fail→pass, 10 unchanged: p = 22/1024.
    const base = cases(20, (i) => ({ verdict: i === 0 || i >= 10 ? "passed" : "failed" }));
    const head = cases(20, (i) => ({ verdict: i === 0 ? "failed" : "passed" }));
    const c = await compareRuns(await storeWith({ base, head }), "base", "head");
    expect(c.overall.passRate!.test.pValue).toBeCloseTo(0.021484375, 12);
    expect(c.overall.passRate!.base).toBeCloseTo(11 / 20, 12);
    expect(c.overall.passRate!.head).toBeCloseTo(19 / 20, 12);
    expect(c.decision.regression).toBe(false);
    expect(c.overall.meanScore!.mean).toBeCloseTo(0.4, 12);
    expect(c.overall.meanScore!.method).toBe("paired-bootstrap");
  });

  it("decides a regression when the drop is significant, and on new failures when asked", async () => {
    const base = cases(40, () => ({ verdict: "passed" }));
    const head = cases(40, (i) => ({ verdict: i < 15 ? "failed" : "passed" }));
    const store = await storeWith({ base, head });
    const c = await compareRuns(store, "base", "head");
    expect(c.decision).toMatchObject({
      regression: true,
      passRate: true,
      meanScore: true,
      newFailures: 15,
    });
    expect(c.decision.reasons[0]).toMatch(
      /pass rate fell from 100.0% to 62.5% \(n = 40, McNemar p < 0.0001/,
    );
    expect(c.evals[0]!.regressed).toEqual({ passRate: true, meanScore: true });

    const one = await storeWith({
      base,
      head: cases(40, (i) => ({ verdict: i < 1 ? "failed" : "passed" })),
    });
    expect((await compareRuns(one, "base", "head")).decision.regression).toBe(false);
    const strict = await compareRuns(one, "base", "head", { failOnNewFailures: true });
    expect(strict.decision.regression).toBe(true);
    expect(strict.decision.reasons).toEqual(["1 case passed every trial before and pass none now"]);
  });

  it("gives no interval that excludes 0 where the gate's test finds no difference (seven changed cases, p = 0.125)", async () => {
    // Six cases fell and one rose: the exact tests can reach 0.05 with seven changed cases, but
    // give p = 0.125 here, while a bootstrap over ten cases excludes 0.
    const base = [1, 1, 1, 1, 1, 1, 0, 1, 1, 1];
    const head = [0, 0, 0, 0, 0, 0, 1, 1, 1, 1];
    const side = (scores: number[]) =>
      cases(10, (i) => ({ verdict: scores[i] ? "passed" : "failed", score: scores[i]! }));
    const c = await compareRuns(
      await storeWith({ base: side(base), head: side(head) }),
      "base",
      "head",
    );
    const score = c.overall.meanScore!;
    expect(score.pValue).toBeCloseTo(0.125, 12);
    expect(score).toMatchObject({ interval: null, noInterval: "test-disagrees", fewChanged: null });
    expect(score.intervalSetAside!.high).toBeLessThan(0);
    expect(score.mde).not.toBeNull();
    expect(c.decision.regression).toBe(false);
    expect(formatComparison(c)).toContain(
      "no interval: the 95% interval would exclude 0, which the gate's test does not find at alpha = 0.05; sign-flip p = 0.125 exact",
    );
    expect(formatComparisonMarkdown(c)).toContain("none (the test finds no difference)");
    // Where the test finds the difference, the interval stays.
    const agreed = await compareRuns(
      await storeWith({ base: side(base), head: side([0, 0, 0, 0, 0, 0, 0, 0, 1, 1]) }),
      "base",
      "head",
    );
    expect(agreed.overall.meanScore).toMatchObject({ noInterval: null, intervalSetAside: null });
    expect(agreed.overall.meanScore!.interval!.high).toBeLessThan(0);
  });

  it("does not call four flipped cases of twenty a regression on the mean score (exact sign-flip p = 0.125)", async () => {
    // With 0/1 scores the mean score is the pass rate; a percentile bootstrap interval of the
    // mean difference would exclude 0 here, but neither exact test can with four changed cases:
    // no interval is given, only why (the MDE, over twenty cases, stays).
    const base = cases(20, () => ({ verdict: "passed" }));
    const flipped = (k: number) => cases(20, (i) => ({ verdict: i < k ? "failed" : "passed" }));
    const four = await compareRuns(await storeWith({ base, head: flipped(4) }), "base", "head");
    const fewChanged = { unit: "case", units: 4, alpha: 0.05, smallestP: 0.125, needed: 6 };
    expect(four.overall.meanScore).toMatchObject({
      interval: null,
      noInterval: "few-changed",
      fewChanged,
      tooFew: null,
    });
    expect(four.overall.meanScore!.mde).not.toBeNull();
    expect(four.overall.passRate).toMatchObject({ noInterval: "few-changed", fewChanged });
    expect(four.overall.passRate!.paired.interval).toBeNull();
    expect(formatComparison(four)).toContain(
      "no interval: only 4 paired cases changed, too few to show a regression at alpha = 0.05 (6 needed); sign-flip p = 0.125 exact",
    );
    expect(four.overall.meanScore!.test).toMatchObject({ method: "exact", differing: 4 });
    expect(four.overall.meanScore!.test.pValue).toBeCloseTo(0.125, 12);
    expect(four.overall.passRate!.test.pValue).toBeCloseTo(0.125, 12);
    expect(four.decision).toMatchObject({ regression: false, passRate: false, meanScore: false });

    const eight = await compareRuns(await storeWith({ base, head: flipped(8) }), "base", "head");
    expect(eight.decision).toMatchObject({ regression: true, passRate: true, meanScore: true });
    // The run's one eval regressed with it, listed as evals that regressed.
    expect(eight.decision.evals).toEqual(["qa"]);
    expect(four.decision.evals).toEqual([]);
    expect(eight.overall.meanScore!.interval!.high).toBeLessThan(0);
    expect(eight.overall.meanScore!.fewChanged).toBeNull();
    expect(eight.decision.reasons[1]).toBe(
      "mean score fell by 0.400 (n = 20, sign-flip p = 0.00781 < 0.05)",
    );
  });

  it("gives no MDE where the exact tests cannot reach alpha with so few cases, and says how many would", async () => {
    // Every case drops by 0.38: the sign-flip test's smallest p with 5 cases is 2/2^5 = 0.0625.
    const scores = [0.9, 0.8, 0.9, 0.7, 1];
    const five = await compareRuns(
      await storeWith({
        base: cases(5, (i) => ({ score: scores[i]! })),
        head: cases(5, (i) => ({ score: scores[i]! - 0.38, verdict: "failed" })),
      }),
      "base",
      "head",
    );
    const tooFew = { unit: "case", units: 5, alpha: 0.05, smallestP: 0.0625, needed: 6 };
    const score = five.overall.meanScore!;
    expect(score.test.pValue).toBe(0.0625);
    expect(score).toMatchObject({ mde: null, tooFew });
    expect(five.overall.passRate).toMatchObject({ paired: { mde: null }, tooFew });
    // A field of the JSON, not only words.
    expect(JSON.parse(JSON.stringify(five)).overall.meanScore.tooFew).toEqual(tooFew);
    const text = formatComparison(five);
    expect(text).not.toContain("MDE");
    // Said once: the pass rate's note would say the same of the same cases.
    expect(text.split("cannot show").length).toBe(2);
    expect(text).toMatch(
      /mean score .*sign-flip p = 0\.0625 exact; .*5 paired cases cannot show a regression at alpha = 0\.05 \(6 needed\)\)$/m,
    );
    expect(formatComparisonMarkdown(five)).toContain("| none (6 cases needed at alpha = 0.05) |");
    // Without a mean score to carry it, the pass rate says it.
    const unscored = await compareRuns(
      await storeWith({
        base: cases(3, () => ({})),
        head: cases(3, () => ({ verdict: "errored", score: "unavailable" })),
      }),
      "base",
      "head",
    );
    expect(unscored.overall.meanScore).toBeNull();
    expect(unscored.overall.passRate).toBeNull();
    expect(formatComparison(unscored)).toContain(
      "pass rate: no paired case but 3 cases errored in every trial of a run, left out (counted as failures: McNemar p = 0.25)",
    );

    // Six cases can: the MDE is given.
    const six = await compareRuns(
      await storeWith({
        base: cases(6, () => ({})),
        head: cases(6, (i) => ({ score: 0.4 + 0.1 * (i % 3) })),
      }),
      "base",
      "head",
    );
    expect(six.overall.meanScore!.tooFew).toBeNull();
    expect(six.overall.passRate!.tooFew).toBeNull();
    expect(formatComparison(six)).toMatch(/MDE 0\.\d{3} at 80% power/);

    // Two evals of six: each is judged at 0.05 / 2, where six cases cannot; all twelve can.
    const two = await compareRuns(
      await storeWith({
        base: [...cases(6, () => ({})), ...cases(6, () => ({ evalId: "qb" }))],
        head: [...cases(6, () => ({ score: 0.5 })), ...cases(6, () => ({ evalId: "qb" }))],
      }),
      "base",
      "head",
    );
    expect(two.evals[0]!.meanScore!.tooFew).toMatchObject({ units: 6, alpha: 0.025, needed: 7 });
    expect(two.overall.meanScore!.tooFew).toBeNull();
    expect(formatComparison(two)).toContain(
      "6 paired cases cannot show a regression at alpha = 0.025 (7 needed)",
    );

    // Clustered, the sign-flip test flips clusters: 8 cases in 4 clusters.
    const clustered = await compareRuns(
      await storeWith({
        base: cases(8, (i) => ({ cluster: `doc${i % 4}` })),
        head: cases(8, (i) => ({ score: 0.5, cluster: `doc${i % 4}` })),
      }),
      "base",
      "head",
    );
    expect(clustered.overall.meanScore!.tooFew).toMatchObject({ unit: "cluster", units: 4 });
    // The pass rate's gate flips clusters too.
    expect(clustered.overall.passRate!.tooFew).toMatchObject({ unit: "cluster", units: 4 });
    expect(formatComparison(clustered)).toContain(
      "4 clusters cannot show a regression at alpha = 0.05 (6 needed)",
    );
  });

  it("reaches a small alpha past 16 differing cases, and gives each run's own pass-rate interval", async () => {
    // 20 cases each drop by a different amount: the exact p would be 2/2^20; 10,000 random
    // patterns could not go below 1/10,001, so an alpha of 0.00005 was never reached.
    const drop = await compareRuns(
      await storeWith({
        base: cases(20, () => ({ score: 0.9 })),
        head: cases(20, (i) => ({ score: 0.8 - i / 100 })),
      }),
      "base",
      "head",
      { alpha: 0.00005 },
    );
    expect(drop.overall.meanScore!.test.pValue).toBeLessThan(0.00005);
    expect(drop.decision.meanScore).toBe(true);
    // Its interval's level is said with its digits, not rounded to 100%.
    expect(formatComparison(drop)).toContain("99.995% [");
    // With trials, a run's pass rate over the paired cases has the interval its report gives
    // (Korn-Graubard over the cases): 4 cases × 2 trials, 5 of 8 passing.
    const verdicts = [
      "passed",
      "passed",
      "passed",
      "failed",
      "passed",
      "failed",
      "passed",
      "failed",
    ];
    const trials = (i: number) => ({ trial: i % 2, verdict: verdicts[i] as Verdict });
    const withTrials = await compareRuns(
      await storeWith({
        base: Array.from({ length: 8 }, (_, i) => ({ caseId: `c${i >> 1}`, ...trials(i) })),
        head: Array.from({ length: 8 }, (_, i) => ({ caseId: `c${i >> 1}` })),
      }),
      "base",
      "head",
    );
    const sums = emptyShareSums();
    for (const passed of [2, 1, 1, 1]) addShareCase(sums, passed, 2);
    expect(withTrials.overall.passRate!.baseInterval).toEqual(passRateInterval(5, 8, 4, sums));
  });

  it("lists a case whose score moved while its pass share held, with the points that moved", async () => {
    // A score eval's check worth half its points flipped while its gates held: both runs pass.
    const c = await compareRuns(
      await storeWith({
        base: [{ caseId: "a" }, { caseId: "b", score: 0.5 }, { caseId: "same", score: 0.3 }],
        head: [{ caseId: "a", score: 0.5 }, { caseId: "b" }, { caseId: "same", score: 0.3 }],
      }),
      "base",
      "head",
    );
    const qa = c.evals[0]!;
    expect(qa.transitions).toMatchObject({ scoreDown: 1, scoreUp: 1, unchanged: 1 });
    expect(qa.changes.map((x) => [x.caseId, x.kind, x.regression])).toEqual([
      ["a", "score-down", true],
      ["b", "score-up", false],
    ]);
    expect(qa.changes[0]!.judgments).toEqual([
      expect.objectContaining({
        base: { state: "matched", reason: "equal", earned: 1, points: 1 },
        head: { state: "matched", reason: "equal", earned: 0.5, points: 1 },
      }),
    ]);
    const text = formatComparison(c);
    expect(text).toContain("  score-down qa/a: 1/1 passed, score 1.000 → 1/1 passed, score 0.500");
    expect(text).toContain('gate exact (scorer): matched 1/1 "equal" → matched 0.5/1 "equal"');
    expect(text).toContain("1 score down, 1 score up, 0 added");
  });

  it("decides the pass rate over clusters when cases share them", async () => {
    // 20 cases; the 8 of one document fail together. McNemar over cases: p = 2/2^8 = 0.0078;
    // over the 13 clusters one changed: p = 1, and the mean score's test says the same.
    const cluster = (i: number) => (i < 8 ? "d0" : `own${i}`);
    const c = await compareRuns(
      await storeWith({
        base: cases(20, (i) => ({ cluster: cluster(i) })),
        head: cases(20, (i) => ({
          cluster: cluster(i),
          ...(i < 8 ? { verdict: "failed" as const, score: 0 } : {}),
        })),
      }),
      "base",
      "head",
    );
    const r = c.overall.passRate!;
    expect(r.test.pValue).toBeCloseTo(0.0078125, 12);
    expect(r.clusterTest).toMatchObject({ pValue: 1, differing: 1 });
    expect(r.paired.clusters).toBe(13);
    expect(c.decision.regression).toBe(false);
    expect(formatComparison(c)).toContain(
      "McNemar p = 0.00781; over 13 clusters, sign-flip p = 1 (the gate's)",
    );
  });

  it("leaves cases that errored out of the pass rate, and fails the gate only where they may hide a fall", async () => {
    // 10 cases passed; now 6 errored in every trial (a judge outage) and 4 still pass.
    const outage = await compareRuns(
      await storeWith({
        base: cases(10, () => ({})),
        head: cases(10, (i) => (i < 6 ? { verdict: "errored", score: "unavailable" } : {})),
      }),
      "base",
      "head",
    );
    expect(outage.overall.passRate).toMatchObject({ n: 4, base: 1, head: 1 });
    expect(outage.overall.errored).toMatchObject({ cases: 6, asFailures: { worse: 6, better: 0 } });
    expect(outage.overall.newFailures).toBe(0);
    expect(outage.decision).toMatchObject({
      regression: true,
      passRate: false,
      checks: ["errors"],
    });
    expect(outage.decision.reasons[0]).toBe(
      "6 cases errored in every trial of a run, which is no evidence either way; had their errored trials failed, the pass rate would have fallen (McNemar p = 0.0313 < 0.05): run them again (niceeval run --retry-errors) before deciding",
    );
    // One errored case of ten could not make it fall significantly: no failure for it.
    const one = await compareRuns(
      await storeWith({
        base: cases(10, () => ({})),
        head: cases(10, (i) => (i < 1 ? { verdict: "errored", score: "unavailable" } : {})),
      }),
      "base",
      "head",
    );
    expect(one.decision.regression).toBe(false);
    expect(formatComparison(one)).toContain(
      "and 1 case errored in every trial of a run, left out (counted as failures: McNemar p = 1)",
    );
  });

  it("gives no interval where its gate's test cannot reach alpha, nor where every case moved alike", async () => {
    // Three cases that all passed and now all fail: the CLT and the bootstrap gave [−1, −1]
    // beside McNemar and sign-flip p = 0.25.
    const three = await compareRuns(
      await storeWith({
        base: cases(3, () => ({})),
        head: cases(3, () => ({ verdict: "failed" })),
      }),
      "base",
      "head",
    );
    const { passRate, meanScore } = three.overall;
    expect(passRate).toMatchObject({ noInterval: "too-few", paired: { interval: null } });
    expect(passRate!.baseInterval!.method).toBe("wilson");
    expect(meanScore).toMatchObject({ noInterval: "too-few", interval: null, mde: null });
    const json = JSON.parse(JSON.stringify(three)).overall;
    expect([json.passRate.paired.interval, json.meanScore.interval]).toEqual([null, null]);
    expect([json.passRate.noInterval, json.meanScore.noInterval]).toEqual(["too-few", "too-few"]);
    const text = formatComparison(three);
    expect(text).toContain(
      "mean score 1.000 → 0.000 (-1.000, n = 3; sign-flip p = 0.25 exact; 3 paired cases cannot show a regression at alpha = 0.05 (6 needed))",
    );
    expect(formatComparisonMarkdown(three)).toContain(
      "| none (too few cases) | none (6 cases needed at alpha = 0.05) |",
    );

    // Eight cases that each fell by 0.3 (but for rounding): enough for the tests, and a
    // regression, but an interval of zero width would claim a certainty eight cases do not give.
    const scores = [0.9, 0.8, 0.7, 0.6, 0.95, 0.85, 0.75, 0.65];
    const eight = await compareRuns(
      await storeWith({
        base: cases(8, (i) => ({ score: scores[i]! })),
        head: cases(8, (i) => ({ score: scores[i]! - 0.3, verdict: "failed" })),
      }),
      "base",
      "head",
    );
    expect(eight.decision).toMatchObject({ regression: true, passRate: true, meanScore: true });
    expect(eight.overall.meanScore).toMatchObject({
      tooFew: null,
      equalDifferences: true,
      noInterval: "equal-differences",
      interval: null,
      mde: null,
    });
    expect(eight.overall.passRate).toMatchObject({
      noInterval: "equal-differences",
      paired: { interval: null, mde: null },
    });
    const line = formatComparison(eight)
      .split("\n")
      .find((l) => l.includes("mean score 0.775"));
    expect(line).toBe(
      "  mean score 0.775 → 0.475 (-0.300, n = 8; no interval or MDE: the 8 paired differences are all equal; sign-flip p = 0.00781 exact; r = 1.00)",
    );
    expect(formatComparisonMarkdown(eight)).toContain(
      "| none (8 equal differences) | none (equal differences) |",
    );
    // Clustered, it is the clusters' mean differences that are all equal.
    const clustered = await compareRuns(
      await storeWith({
        base: cases(8, (i) => ({ score: scores[i]!, cluster: `doc${i % 6}` })),
        head: cases(8, (i) => ({ score: scores[i]! - 0.3, cluster: `doc${i % 6}` })),
      }),
      "base",
      "head",
    );
    expect(clustered.overall.meanScore).toMatchObject({ clusters: 6, interval: null });
    expect(formatComparison(clustered)).toContain(
      "no interval or MDE: the mean differences of the 6 clusters are all equal",
    );
    expect(formatComparisonMarkdown(clustered)).toContain(
      "| none (6 clusters, equal differences) |",
    );
  });

  it("prints no correlation between runs whose scores are constant but for rounding", async () => {
    const c = await compareRuns(
      await storeWith({
        base: cases(8, () => ({ score: 0.9 })),
        head: cases(8, () => ({ score: 0.1, verdict: "failed" })),
      }),
      "base",
      "head",
    );
    expect(c.overall.meanScore!.meanBase).not.toBe(0.9);
    expect(c.overall.meanScore!.correlation).toBeNull();
    expect(formatComparison(c)).not.toContain("r = ");
  });

  it("averages trials per case and never compares a partial score as complete", async () => {
    const t = (caseId: string, verdicts: Verdict[], scores: NonNullable<Spec["score"]>[]) =>
      verdicts.map((verdict, trial): Spec => ({ caseId, verdict, trial, score: scores[trial]! }));
    const store = await storeWith(
      {
        base: [
          ...t("always", ["passed", "passed", "passed"], [1, 1, 1]),
          ...t("often", ["passed", "passed", "failed"], [1, 1, 0.5]),
        ],
        head: [
          ...t("always", ["failed", "failed", "failed"], [0, 0.2, "partial"]),
          ...t("often", ["passed", "failed", "failed"], [1, 0.5, 0.5]),
        ],
      },
      { base: [evalManifest("qa", { trials: 3 })], head: [evalManifest("qa", { trials: 3 })] },
    );
    const c = await compareRuns(store, "base", "head");
    const qa = c.evals[0]!;
    expect(qa.newFailureCases).toEqual(["always"]);
    // Every trial to none is pass-to-fail; 2 of 3 to 1 of 3 is a pass rate that fell.
    expect(qa.transitions).toMatchObject({ passToFail: 1, passRateDown: 1 });
    expect(qa.changes.map((x) => [x.caseId, x.kind, x.regression])).toEqual([
      ["always", "pass-to-fail", true],
      ["often", "pass-rate-down", true],
    ]);
    expect(qa.changes[0]!.base).toEqual({ trials: 3, passed: 3, errored: 0, score: 1 });
    // Mean of the complete trials only (0 and 0.2): the partial 0 is left out, and named.
    expect(qa.changes[0]!.head.score).toBeCloseTo(0.1, 12);
    expect(qa.leftOut.partialAttempts).toBe(1);
    expect(qa.leftOut.attempts).toEqual([
      { run: "head", evalId: "qa", caseId: "always", trial: 2, trials: 3, state: "partial" },
    ]);
    expect(formatComparison(c)).toContain("the attempt: head:qa/always [trial 3] (partial)");
    expect(qa.passRate!.base).toBeCloseTo((1 + 2 / 3) / 2, 12);
    expect(qa.passRate!.head).toBeCloseTo((0 + 1 / 3) / 2, 12);
  });

  it("explains a change with trials from the trial that changed, the same trial number on both sides", async () => {
    // Trial 0 failed in both runs (reason "low"); trial 1 passed in the base and errored in the
    // head. The change is trial 1's, not the base's passing trial 1 against the head's trial 0.
    const store = await storeWith({
      base: [
        { caseId: "c", verdict: "failed", trial: 0, reason: "low" },
        { caseId: "c", verdict: "passed", trial: 1, reason: "high" },
      ],
      head: [
        { caseId: "c", verdict: "failed", trial: 0, reason: "low" },
        { caseId: "c", verdict: "errored", trial: 1, reason: "threw" },
      ],
    });
    const [change] = (await compareRuns(store, "base", "head")).evals[0]!.changes;
    expect(change).toMatchObject({ kind: "pass-rate-down", trials: { base: 1, head: 1 } });
    expect(change!.judgments).toEqual([
      expect.objectContaining({
        base: { state: "matched", reason: "high", earned: 1, points: 1 },
        head: { state: "errored", reason: "threw", earned: 0, points: 1 },
      }),
    ]);
    expect(change!.error).toBe("target: boom");
  });

  it("calls a case that passed every trial that did not error and now fails every one a new failure, and shows errors that grew", async () => {
    const t = (caseId: string, verdicts: Verdict[]) =>
      verdicts.map(
        (verdict, trial): Spec => ({
          caseId,
          verdict,
          trial,
          ...(verdict === "errored" ? { score: "unavailable" as const } : {}),
        }),
      );
    const [p, f, e] = ["passed", "failed", "errored"] as const;
    const trials3 = {
      base: [evalManifest("qa", { trials: 3 })],
      head: [evalManifest("qa", { trials: 3 })],
    };
    const store = await storeWith(
      {
        // a: every judged trial passed (one errored), now every one fails: a new failure.
        // c: every trial passed; now one errored: its share of passing trials fell.
        base: [...t("a", [p, e, p]), ...t("c", [p, p, p])],
        head: [...t("a", [f, f, f]), ...t("c", [p, e, p])],
      },
      trials3,
    );
    const c = await compareRuns(store, "base", "head", { failOnNewFailures: true });
    const qa = c.evals[0]!;
    expect(qa.changes.map((x) => [x.caseId, x.kind, x.regression])).toEqual([
      ["a", "pass-to-fail", true],
      ["c", "pass-rate-down", true],
    ]);
    expect(qa.newFailureCases).toEqual(["a"]);
    expect(c.overall.newFailures).toBe(1);
    // Every trial of one side errored: nothing judged to compare with, so all trials count.
    const outage = await storeWith(
      { base: [...t("a", [e, e, e])], head: [...t("a", [f, f, f])] },
      trials3,
    );
    const o = await compareRuns(outage, "base", "head");
    expect(o.evals[0]!.changes).toEqual([]);
    expect(o.overall.newFailures).toBe(0);
  });

  it("labels a share of trials that moved short of all or none pass-rate-down or pass-rate-up, in text and Markdown", async () => {
    const t = (caseId: string, verdicts: Verdict[]) =>
      verdicts.map((verdict, trial): Spec => ({ caseId, verdict, trial }));
    const [p, f] = ["passed", "failed"] as const;
    const store = await storeWith({
      base: [...t("down", [p, p, p, f, f]), ...t("up", [p, f, f, f, f]), ...t("none", [f, f])],
      // none: 0/2 → 2/2, every trial passing after none did, is fail-to-pass.
      head: [...t("down", [f, f, f, f, f]), ...t("up", [p, p, f, f, f]), ...t("none", [p, p])],
    });
    const c = await compareRuns(store, "base", "head");
    expect(c.evals[0]!.changes.map((x) => [x.caseId, x.kind, x.regression])).toEqual([
      ["down", "pass-rate-down", true],
      ["up", "pass-rate-up", false],
      ["none", "fail-to-pass", false],
    ]);
    expect(c.overall.transitions).toMatchObject({
      passToFail: 0,
      failToPass: 1,
      passRateDown: 1,
      passRateUp: 1,
    });
    const text = formatComparison(c);
    expect(text).toContain("pass-rate-down qa/down: 3/5 passed, score 0.600 → 0/5 passed");
    expect(text).toContain("pass-rate-up qa/up: 1/5 passed");
    expect(text).toContain("fail-to-pass qa/none: 0/2 passed");
    expect(text).toContain(
      "0 pass→fail, 0 became errored, 1 fail→pass, 1 pass rate down, 1 pass rate up, 0 added",
    );
    const md = formatComparisonMarkdown(c);
    expect(md).toContain("| 0↓ 0⚠ 1↑ 1↘ 1↗ +0 −0 |");
    expect(md).toContain("↘ pass rate down, ↗ pass rate up");
    expect(md).toContain("- **qa/down** pass-rate-down: 3/5 passed");
    // With one trial each, the labels and the text are as they were.
    const single = await compareRuns(
      await storeWith({ base: [{ caseId: "a" }], head: [{ caseId: "a", verdict: "failed" }] }),
      "base",
      "head",
    );
    expect(formatComparison(single)).toContain(
      "1 paired case: 1 pass→fail, 0 became errored, 0 fail→pass, 0 added",
    );
    expect(formatComparisonMarkdown(single)).not.toContain("↘");
  });

  it("clusters the statistics when cases carry a cluster", async () => {
    const base = cases(30, (i) => ({ score: (i % 5) / 5, cluster: `doc${i % 6}` }));
    // Clusters whose differences vary (each of ((i + 1) % 5) / 5 would sum to its base's).
    const head = cases(30, (i) => ({
      score: (((i * 3 + 1) % 5) / 5) * (i % 4 === 0 ? 0.5 : 1),
      cluster: `doc${i % 6}`,
    }));
    const c = await compareRuns(await storeWith({ base, head }), "base", "head");
    expect(c.overall.meanScore!.clusters).toBe(6);
    expect(c.overall.meanScore!.method).toBe("cluster-bootstrap");
    expect(c.overall.passRate!.paired.method).toBe("cluster-clt");
  });

  it("warns when configuration, dataset or judge models differ", async () => {
    const store = await storeWith(
      { base: [{ caseId: "a" }], head: [{ caseId: "a" }] },
      {
        base: [evalManifest("qa")],
        head: [
          evalManifest("qa", {
            configHash: "cfg2",
            datasetHash: "data2",
            judgeModels: ["anthropic:claude"],
          }),
        ],
      },
    );
    const c = await compareRuns(store, "base", "head");
    expect(c.warnings.map((w) => w.kind)).toEqual(["config", "dataset", "judge-models"]);
    expect(c.warnings[2]!.message).toContain(
      'eval "qa": the judge models differ between the runs (base openai:gpt-5, head anthropic:claude)',
    );
  });

  it("warns that a run which did not finish counts the cases it never ran as removed", async () => {
    const store = await storeWith(
      { base: cases(5, () => ({})), head: cases(2, () => ({})) },
      {},
      { head: "crashed" },
    );
    const c = await compareRuns(store, "base", "head");
    expect(c.overall.transitions).toMatchObject({ removed: 3, unchanged: 2 });
    expect(c.warnings).toEqual([
      {
        kind: "unfinished",
        base: "finished",
        head: "crashed",
        message:
          "the head run crashed before it finished: the cases it did not run, or ran only until its stop cut them off, count as removed, not as changes of the dataset; finish it with niceeval run --resume head and compare again",
      },
    ]);
    expect(formatComparison(c)).toContain("warning: the head run crashed before it finished");
  });

  it("leaves out the attempts a stop cut off: not judged, they are neither errors nor failures", async () => {
    const store = await storeWith(
      {
        base: cases(10, () => ({})),
        head: cases(10, (i) =>
          i < 4 ? {} : { verdict: "errored", score: "unavailable", cutOff: true },
        ),
      },
      {},
      { head: "interrupted" },
    );
    const c = await compareRuns(store, "base", "head");
    // Counted as failures, 6 cut-off cases would read as a significant fall (McNemar p = 0.031).
    expect(c.overall.errored).toBeNull();
    expect(c.overall.transitions).toMatchObject({ becameErrored: 0, removed: 6, unchanged: 4 });
    expect(c.overall.passRate).toMatchObject({ base: 1, head: 1 });
    expect(c.decision.regression).toBe(false);
    expect(c.warnings.map((w) => w.kind)).toEqual(["unfinished"]);
  });

  it("warns when base and head are the same run", async () => {
    const store = await storeWith({ base: cases(3, () => ({})) }, {}, {}, { base: { name: "b8" } });
    const c = await compareRuns(store, "base", "base");
    expect(c.warnings).toEqual([
      {
        kind: "same-run",
        base: "base",
        head: "base",
        message:
          "base and head are the same run (base, b8): every case is compared with itself, so nothing can differ; compare two runs (`niceeval compare latest~1 latest` compares the last two)",
      },
    ]);
    expect(formatComparison(c)).toContain("warning: base and head are the same run (base, b8)");
    expect(formatComparisonMarkdown(c)).toContain("> ⚠️ base and head are the same run");
  });

  it("warns when the runs hold different shards, or a shard and a whole run", async () => {
    const runs = { base: cases(3, () => ({})), head: cases(3, () => ({})) };
    const shards = (base?: [number, number], head?: [number, number]) =>
      storeWith(
        runs,
        {},
        {},
        {
          base: base ? { shard: { index: base[0], count: base[1] } } : {},
          head: head ? { shard: { index: head[0], count: head[1] } } : {},
        },
      ).then((store) => compareRuns(store, "base", "head"));
    const counts = await shards([2, 3], [2, 4]);
    expect(counts.warnings).toEqual([
      {
        kind: "shard",
        base: "2/3",
        head: "2/4",
        message:
          "the base run is shard 2/3 and the head run shard 2/4: they hold different cases, so the cases of one only count as removed or added, not as changes; compare the same shard of two runs, or the merged runs (`niceeval merge`)",
      },
    ]);
    expect((await shards(undefined, [1, 2])).warnings[0]).toMatchObject({
      kind: "shard",
      base: "whole",
      head: "1/2",
      message: expect.stringContaining("the base run is a whole run and the head run shard 1/2"),
    });
    expect((await shards([1, 2], [1, 2])).warnings).toEqual([]);
    expect((await shards()).warnings).toEqual([]);
  });

  it("says to export an imported run again rather than resume it here", async () => {
    const compare = (imported: RunManifest["imported"]) =>
      storeWith(
        { base: cases(5, () => ({})), head: cases(5, () => ({})) },
        {},
        { base: "interrupted" },
        { base: imported ? { imported } : {} },
      ).then((store) => compareRuns(store, "base", "head"));
    const cut = await compare({ at: "2026-12-01T00:00:00.000Z", cutShort: true });
    expect(cut.warnings[0]!.message).toBe(
      "the base run interrupted before it finished: the cases it did not run, or ran only until its stop cut them off, count as added, not as changes of the dataset; it was imported from an export that ended before its end line (cut short): export it again where it ran (`niceeval export base --ndjson <file>`) and import that, then compare again",
    );
    const stopped = await compare({ at: "2026-12-01T00:00:00.000Z" });
    expect(stopped.warnings[0]!.message).toContain(
      "it was imported, and did not finish where it ran: finish it there (`niceeval run --resume base`), export it again (`niceeval export base --ndjson <file>`) and import that, then compare again",
    );
    expect((await compare(undefined)).warnings[0]!.message).toContain(
      "finish it with niceeval run --resume base and compare again",
    );
  });

  it("reports evals only in one run and compares the rest", async () => {
    const store = await storeWith({
      base: [{ caseId: "a" }, { caseId: "x", evalId: "old" }],
      head: [{ caseId: "a" }, { caseId: "y", evalId: "fresh" }],
    });
    const c = await compareRuns(store, "base", "head");
    expect(c.addedEvals).toEqual(["fresh"]);
    expect(c.removedEvals).toEqual(["old"]);
    expect(c.evals.map((e) => e.evalId)).toEqual(["qa"]);
    expect(c.overall.transitions).toMatchObject({ added: 1, removed: 1 });
  });

  it("says the pass rate and mean score are over the paired cases when cases were added or removed", async () => {
    // Base c1..c5 (3 pass: 60%), head c3..c7 (2 pass: 40%); paired c3..c5.
    const verdicts = (passing: string[]) => (caseId: string) => ({
      caseId,
      verdict: passing.includes(caseId) ? ("passed" as const) : ("failed" as const),
    });
    const store = await storeWith({
      base: ["c1", "c2", "c3", "c4", "c5"].map(verdicts(["c1", "c2", "c3"])),
      head: ["c3", "c4", "c5", "c6", "c7"].map(verdicts(["c3", "c6"])),
    });
    const c = await compareRuns(store, "base", "head");
    expect(c.overall.passRate).toMatchObject({ n: 3, base: 1 / 3, head: 1 / 3 });
    const note =
      "the pass rate and mean score are over the 3 paired cases only, not over the cases only in one run (2 only in base, 2 only in head); niceeval runs gives each run's own figures";
    const text = formatComparison(c);
    expect(text).toContain(`pass rate 33.3% → 33.3% (+0.0 pts, n = 3;`);
    expect(text).toContain(`  ${note}`);
    expect(formatComparisonMarkdown(c)).toContain(
      "_The pass rate and mean score are over the 3 paired cases only, not over the cases only in one run (2 only in base, 2 only in head); niceeval runs gives each run's own figures._",
    );
    // Every case in both runs: no note.
    const same = await compareRuns(
      await storeWith({ base: cases(3, () => ({})), head: cases(3, () => ({})) }),
      "base",
      "head",
    );
    expect(formatComparison(same)).not.toContain("paired cases only");
    expect(formatComparisonMarkdown(same)).not.toContain("paired cases only");
  });

  it("takes the references niceeval compare takes: a name, an id prefix, latest~N", async () => {
    const store = await storeWith(
      {
        "run-0123456789": [{ caseId: "a" }],
        "run-abcdefghij": [{ caseId: "a", verdict: "failed" }],
      },
      {},
      {},
      { "run-0123456789": { name: "main" }, "run-abcdefghij": { name: "pr" } },
    );
    const byName = await compareRuns(store, "main", "pr");
    expect([byName.base.runId, byName.head.runId]).toEqual(["run-0123456789", "run-abcdefghij"]);
    const byPrefix = await compareRuns(store, "run-0123", "run-abcd");
    expect(byPrefix.head.runId).toBe("run-abcdefghij");
    const byLatest = await compareRuns(store, "latest~1", "latest");
    expect(byLatest.overall.transitions.passToFail).toBe(1);
    await expect(compareRuns(store, "main", "nope")).rejects.toMatchObject({
      code: "COMPARE_RUN_NOT_FOUND",
      message: expect.stringContaining("Name a run by id, id prefix, name, latest or latest~N"),
    });
  });

  it("says, when nothing is in common, that a run's eval file failed to load and where to read why", async () => {
    const store = await storeWith(
      { base: [{ caseId: "a" }], head: [] },
      {},
      {},
      { head: { loadErrors: [{ file: "evals/qa.eval.ts", message: "Cannot find package 'x'" }] } },
    );
    const error = await compareRuns(store, "base", "head").catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "COMPARE_NOTHING_IN_COMMON" });
    expect((error as Error).message).toContain(
      "The head run had 1 file failed to load, so the evals in it ran no case (`niceeval show head` says why). Compare two runs",
    );
    // Runs that loaded every file are told nothing of it.
    const plain = await storeWith({ base: [{ caseId: "a" }], head: [{ caseId: "b" }] });
    const message = ((await compareRuns(plain, "base", "head").catch((e: unknown) => e)) as Error)
      .message;
    expect(message).not.toContain("failed to load");
  });

  it("throws a coded error when nothing is in common or a run is missing", async () => {
    const store = await storeWith({ base: [{ caseId: "a" }], head: [{ caseId: "b" }] });
    const error = await compareRuns(store, "base", "head").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NiceevalError);
    expect(error).toMatchObject({ code: "COMPARE_NOTHING_IN_COMMON" });
    expect((error as Error).message).toMatch(
      /runs base \(1 case in 1 eval\) and head .* no case in common/,
    );
    await expect(compareRuns(store, "base", "nope")).rejects.toMatchObject({
      code: "COMPARE_RUN_NOT_FOUND",
      message: expect.stringContaining('no run "nope" in memory'),
    });
    await expect(compareRuns(store, "base", "head", { alpha: 2 })).rejects.toMatchObject({
      code: "COMPARE_OPTIONS",
    });
    // From code as from the CLI: a string alpha, a fractional seed, a bootstrap of 10 draws.
    const refused = async (options: object, message: string) =>
      expect(compareRuns(store, "base", "head", options)).rejects.toMatchObject({
        code: "COMPARE_OPTIONS",
        message: `compareRuns: ${message}`,
      });
    await refused({ alpha: "0.05" }, 'alpha must be a number between 0 and 1, got "0.05"');
    await refused({ seed: 1.5 }, "seed must be a whole number from 0 to 4294967295, got 1.5");
    // The resampling takes a 32-bit seed: -1 and 2^32 would draw as 4294967295 and 0 do.
    await refused({ seed: -1 }, "seed must be a whole number from 0 to 4294967295, got -1");
    await refused(
      { seed: 2 ** 32 },
      "seed must be a whole number from 0 to 4294967295, got 4294967296",
    );
    await refused(
      { resamples: 10 },
      "resamples must be 0 (no bootstrap) or a whole number ≥ 1000, got 10",
    );
    // A misspelt option was ignored: the gate off, or alpha at its default.
    await refused(
      { failOnNewFailure: true },
      'unknown key "options.failOnNewFailure" (did you mean "options.failOnNewFailures"?); known keys: options.alpha, options.seed, options.resamples, options.failOnNewFailures, options.onChange',
    );
    // Two edits from a five-letter key are too far for a guess; the keys there are are listed.
    await refused(
      { alfa: 0.01 },
      'unknown key "options.alfa"; known keys: options.alpha, options.seed, options.resamples, options.failOnNewFailures, options.onChange',
    );
    await refused(null as never, "options must be an object when given, got null");
  });

  it("formats regressions first, then improvements, with n and why there is no interval", async () => {
    // Six cases, enough for the exact tests to reach 0.05, but only two changed: no interval.
    const same = ["c", "d", "e", "f"].map((caseId) => ({ caseId }));
    const store = await storeWith({
      base: [{ caseId: "a" }, { caseId: "b", verdict: "failed" }, ...same],
      head: [{ caseId: "a", verdict: "failed", reason: "got | 5" }, { caseId: "b" }, ...same],
    });
    const c = await compareRuns(store, "base", "head");
    const text = formatComparison(c);
    expect(text.indexOf("Regressions:")).toBeGreaterThan(0);
    expect(text.indexOf("Regressions:")).toBeLessThan(text.indexOf("Improvements:"));
    expect(text).toContain("pass-to-fail qa/a: 1/1 passed, score 1.000 → 0/1 passed, score 0.000");
    expect(text).toContain(
      "1 pass→fail, 0 became errored, 1 fail→pass, 0 added, 0 removed, 4 unchanged; 1 new failure\n",
    );
    expect(text).toContain('gate exact (scorer): matched 1/1 "equal" → mismatched 0/1 "got | 5"');
    expect(text).toMatch(
      /pass rate 83\.3% → 83\.3% \(\+0\.0 pts, n = 6; 1 worse, 1 better, McNemar p = 1\)/,
    );
    expect(text).toMatch(
      /mean score 0\.833 → 0\.833 \(\+0\.000, n = 6; SE .*; no interval: only 2 paired cases changed, too few to show a regression at alpha = 0\.05 \(6 needed\); sign-flip p = 1 exact/,
    );
    const md = formatComparisonMarkdown(c);
    expect(md).toContain("| eval | n | pass rate | McNemar p |");
    expect(md).toContain("| qa | 6 | 83.3% → 83.3% (+0.0 pts) | 1 |");
    expect(md).toContain("got \\| 5");
    expect(md.indexOf("Regressions (1)")).toBeLessThan(md.indexOf("Improvements (1)"));
  });

  it("lists a failed case that now errors apart from improvements, and says how many changes it left out", async () => {
    const store = await storeWith({
      base: [{ caseId: "x", verdict: "failed" }, ...cases(102, () => ({}))],
      head: [{ caseId: "x", verdict: "errored" }, ...cases(102, () => ({ verdict: "failed" }))],
    });
    const c = await compareRuns(store, "base", "head");
    const text = formatComparison(c);
    expect(text).not.toContain("Improvements:");
    expect(text).toMatch(/\nNow errored \(failed before\):\n {2}became-errored qa\/x: /);
    expect(text).toContain(
      "\n2 more changed cases not listed (101 of 103); `compare --json` counts them all in `transitions`.\n",
    );
    const md = formatComparisonMarkdown(c);
    expect(md).toContain("<summary>Now errored (failed before) (1)</summary>");
    expect(md).toContain("_2 more changed cases not listed (101 of 103)");
  });

  it("escapes model output in the Markdown form, so it cannot close the details block or add markup", async () => {
    const answer = "</details>\n\n# INJECTED | a | b\n<img src=x> [link](http://x) *bold*";
    const store = await storeWith({
      base: [{ caseId: "a" }],
      head: [{ caseId: "a", verdict: "failed", reason: answer }],
    });
    const md = formatComparisonMarkdown(await compareRuns(store, "base", "head"));
    expect(md).not.toContain("</details>\n\n# INJECTED");
    expect(md).not.toMatch(/(^|[^\\])<img/);
    expect(md).toContain(
      "\\</details\\> \\# INJECTED \\| a \\| b \\<img src=x\\> \\[link\\](http\\://x) \\*bold\\*",
    );
    // Two evals: the total row's name is bold, not escaped asterisks.
    const two = await storeWith({
      base: [{ caseId: "a" }, { caseId: "b", evalId: "e_2" }],
      head: [{ caseId: "a" }, { caseId: "b", evalId: "e_2" }],
    });
    const table = formatComparisonMarkdown(await compareRuns(two, "base", "head"));
    expect(table).toContain("| **all** | 2 |");
    expect(table).toContain("| e\\_2 | 1 |");
    // The only raw HTML is the report's own collapsible blocks.
    expect(md.match(/(?<!\\)<\/?[a-z]+/g)).toEqual([
      "<details",
      "<summary",
      "</summary",
      "</details",
    ]);
  });

  it("compares two 100,000-case runs with the full bootstrap", async () => {
    const n = 100_000;
    const store = new MemoryStore();
    // Scores out of 10 points; head moves every 13th case by 3 points (mod 11).
    const make = (shift: number) => {
      const records: AttemptRecord[] = [];
      for (let i = 0; i < n; i++) {
        const points = (i * 7 + shift * (i % 13 === 0 ? 1 : 0)) % 11;
        records.push(
          record(
            { caseId: `case-${i}`, verdict: points >= 5 ? "passed" : "failed", score: points / 10 },
            i,
          ),
        );
      }
      return records;
    };
    await store.beginRun(manifest("base", [evalManifest("qa")]));
    await store.appendAttempts("base", make(0));
    await store.beginRun(manifest("head", [evalManifest("qa")]));
    await store.appendAttempts("head", make(3));
    // Its speed is a figure of `npm run bench` (bench/history.mjs), not asserted here.
    const c = await compareRuns(store, "base", "head");
    expect(c.overall.pairs).toBe(n);
    expect(c.overall.meanScore!.resamples).toBe(10_000);
  });

  it("compares an eval of 200,000 cases, more than a call's arguments can hold", async () => {
    const specs = cases(200_000, (i) => ({ verdict: i % 2 === 0 ? "passed" : "failed" }));
    const store = await storeWith({ base: specs, head: specs });
    const c = await compareRuns(store, "base", "head");
    expect(c.overall.pairs).toBe(200_000);
  });
});
