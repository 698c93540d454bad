import { plural } from "../plural.js";
import { shownId } from "../report/shown-id.js";
import type { Interval } from "../stats/interval.js";
import type {
  ErroredCases,
  NoInterval,
  PassRateComparison,
  ScoreComparison,
  TooFewToDetect,
  Transitions,
  TrialRange,
} from "./types.js";

// What a comparison says where a figure is missing, shared by the CLI's forms and the viewer.

/** The evals only one run holds, as the console and the viewer name them: "evals only in head: b". */
export const evalsOnlyText = (side: "base" | "head", evalIds: readonly string[]): string =>
  `evals only in ${side}: ${evalIds.map(shownId).join(", ")}`;

/** A p-value for text: "p = 0.0215", or "p < 0.0001" when tiny (a Monte-Carlo p at its floor). */
export const pText = (p: number): string =>
  p < 1e-4 ? "p < 0.0001" : `p = ${Number(p.toPrecision(3))}`;

/** An alpha as text: 0.05, or 0.0167 for 0.05 over three evals. */
export const alphaText = (alpha: number): string => String(Number(alpha.toPrecision(3)));

/** What stands in for an MDE no test could reach: "5 paired cases cannot show … (6 needed)". */
export const tooFewText = (f: TooFewToDetect): string =>
  `${plural(f.units, f.unit === "case" ? "paired case" : "cluster")} cannot show a regression at alpha = ${alphaText(f.alpha)} (${f.needed} needed)`;

/** That a difference's units all differ alike: "the 3 paired differences are all equal". */
export const equalDifferencesText = (d: { n: number; clusters: number | null }): string =>
  d.clusters === null
    ? `the ${d.n} paired differences are all equal`
    : `the mean differences of the ${d.clusters} clusters are all equal`;

/**
 * That too few units changed for the test: "only 5 paired cases changed, …(6 needed)"; with the
 * permutation test of trials, too few cases whose trials disagree, the only ones it can move
 * ("only 2 paired cases have trials that disagree, …"), which need not have changed at all.
 */
export const fewChangedText = (f: TooFewToDetect): string => {
  const units = plural(f.units, f.unit === "case" ? "paired case" : "cluster");
  const what =
    f.counts === "disagreeing"
      ? `${units} ${f.units === 1 ? "has" : "have"} trials that disagree`
      : `${units} changed`;
  return `only ${what}, too few to show a regression at alpha = ${alphaText(f.alpha)} (${f.needed} needed)`;
};

/**
 * That an interval was set aside as the test disagreed: "the 95% interval would exclude 0, which
 * the gate's test does not find at alpha = 0.05".
 */
export const disagreesText = (setAside: Interval | null): string => {
  const level = setAside?.level ?? 0.95;
  return `the ${Number((level * 100).toPrecision(3))}% interval would exclude 0, which the gate's test does not find at alpha = ${alphaText(1 - level)}`;
};

/**
 * Why a difference shows no interval, in words: a too-few note, that its units agree, or that
 * its test disagrees with it.
 */
export function noIntervalText(
  d: { n: number; clusters: number | null },
  noInterval: NoInterval,
  tooFew: TooFewToDetect | null,
  fewChanged: TooFewToDetect | null,
  setAside: Interval | null = null,
): string {
  if (noInterval === "too-few" && tooFew) return tooFewText(tooFew);
  if (noInterval === "few-changed" && fewChanged) return fewChangedText(fewChanged);
  if (noInterval === "test-disagrees") return disagreesText(setAside);
  return equalDifferencesText(d);
}

/** How many cases changed (every transition but added, removed and unchanged). */
export const changedCases = (t: Transitions): number =>
  t.passToFail +
  t.failToPass +
  t.becameErrored +
  t.passRateDown +
  t.passRateUp +
  t.scoreDown +
  t.scoreUp;

/** That lists leave changes out: "200 more changed cases not listed (100 of 300)". */
export const unlistedText = (listed: number, changed: number): string =>
  `${plural(changed - listed, "more changed case")} not listed (${listed} of ${changed})`;

/**
 * The test a pass rate's gate decides by, named: "McNemar", "permutation of each case's trials",
 * "sign-flip over 13 clusters".
 */
export function passRateTestName(r: Pick<PassRateComparison, "decidedBy" | "paired">): string {
  if (r.decidedBy === "mcnemar") return "McNemar";
  if (r.decidedBy === "cluster-sign-flip")
    return `sign-flip over ${plural(r.paired.clusters ?? 0, "cluster")}`;
  return PERMUTATION_NAME;
}

const PERMUTATION_NAME = "permutation of each case's trials";

/** The test a mean score's gate decides by, named: "sign-flip", "permutation of each case's trials". */
export const scoreTestName = (d: Pick<ScoreComparison, "decidedBy">): string =>
  d.decidedBy === "permutation" ? PERMUTATION_NAME : "sign-flip";

/** The test of what errored cases may hide, named as the pass rate's is. */
export const erroredTestName = (errored: Pick<ErroredCases, "decidedBy">): string =>
  errored.decidedBy === "mcnemar"
    ? "McNemar"
    : errored.decidedBy === "cluster-sign-flip"
      ? "sign-flip over the clusters"
      : PERMUTATION_NAME;

/**
 * Why McNemar's test does not decide a pass rate of cases with trials: "McNemar's test needs one
 * judged trial per case in both runs (here base 1, head 3)".
 */
export const notMcNemarText = (r: Pick<PassRateComparison, "judgedTrials">): string =>
  `McNemar's test needs one judged trial per case in both runs (here base ${rangeText(r.judgedTrials.base)}, head ${rangeText(r.judgedTrials.head)})`;

/** Trials per case as text: "3", or "1–3" when cases ran different numbers. */
const rangeText = (range: TrialRange): string =>
  range.min === range.max ? String(range.min) : `${range.min}–${range.max}`;
