import { resumeCommand } from "../cli/command-words.js";
import { findComparedRuns, nothingOnBranch } from "../cli/compared-runs.js";
import { compareRuns } from "../compare/compare-runs.js";
import type { Comparison } from "../compare/types.js";
import { NiceevalError } from "../errors.js";
import type { AttemptRecord, JudgmentState, Verdict } from "../eval/record.js";
import { evalFigures, passRateFigure, runMeanScoreFigure } from "../report/figures.js";
import type { EvalSummary } from "../runner/events.js";
import { runTroubles } from "../runner/load-troubles.js";
import { EvalAccumulator } from "../runner/stats.js";
import { runCases, runShareSums } from "../stats/clustered.js";
import type { Interval } from "../stats/interval.js";
import { importedRunAdvice } from "../store/imported.js";
import { runFilter } from "../store/manifest.js";
import {
  type AttemptQuery,
  isTruncated,
  type RunListQuery,
  type Store,
  type StoredRun,
} from "../store/types.js";
import { effectiveStatus } from "../store/writer.js";
import { withEvalFigures } from "./eval-row.js";

/**
 * The viewer's data: plain JSON shapes computed from a {@link Store}, served by the live API and
 * embedded by the static export, so both render the same thing.
 */

/** One line of the Runs page. */
export interface RunRow {
  runId: string;
  name: string | null;
  /** The shard the run holds (`"1/3"`), null for a whole run. */
  shard: string | null;
  /** The `--filter` that cut the run's cases, null for a run of every case (`runs` marks it `[filtered]`). */
  filter: string | null;
  branch: string | null;
  commit: string | null;
  dirty: boolean | null;
  startedAt: string;
  endedAt: string | null;
  status: StoredRun["status"];
  tags: Record<string, string>;
  evals: string[];
  cases: number;
  attempts: number;
  passed: number;
  failed: number;
  errored: number;
  skipped: number;
  /**
   * Errored attempts the run's stop cut off (`error.interrupted`), counted from its stored
   * attempts (also before it has summaries: running, crashed): not judged, so in no pass rate.
   */
  interrupted: number;
  /** passed / (attempts − skipped − interrupted); null when nothing was judged. */
  passRate: number | null;
  passRateInterval: Interval | null;
  /** With trials, the cases the interval counts (the attempts are their trials); null without. */
  passRateCases: number | null;
  meanScore: number | null;
  /**
   * The mean score's 95% t interval (src/report/figures.ts, `runMeanScoreFigure`: the evals' scores
   * pooled, over their cases with trials), from the run's summaries; null before them, for a lower
   * bound, or with no spread.
   */
  meanScoreInterval: Interval | null;
  scoredAttempts: number;
  /** With trials, the cases the scored attempts are trials of (from the summaries); null without. */
  meanScoreCases: number | null;
  /** Scored attempts whose score was partial (the mean is then a lower bound); null before the run's summaries. */
  partialAttempts: number | null;
  /**
   * What had changed when the run was resumed with --force (its manifest's `resumedWithChanges`):
   * its attempts are of two versions of those evals; null for any other run.
   */
  resumedWithChanges: string[] | null;
  /**
   * What failed the run besides its attempts (`1 file failed to load`, `2 evals left out`,
   * `1 error outside any case`), as `niceeval runs` says it; empty when nothing did.
   */
  troubles: string[];
  /** Per-eval pass rate and mean score with their 95% intervals, for the trend charts (finished runs only). */
  perEval: {
    evalId: string;
    passRate: number | null;
    passRateInterval: Interval | null;
    n: number;
    /** With trials, the cases the pass rate's interval counts (fewer than `n`); null without. */
    passRateCases: number | null;
    meanScore: number | null;
    meanScoreInterval: Interval | null;
    /** Scored attempts of the eval (n of its mean score). */
    scoredAttempts: number;
    /** With trials, the cases they are trials of (fewer than `scoredAttempts`); null without. */
    meanScoreCases: number | null;
    /** Scored attempts of the eval whose score was partial. */
    partialCases: number;
    /**
     * True when any of them was partial: the mean score is then a lower bound ("≥"), as the runs
     * table and the CLI say, and never a value to draw or compare as it is.
     */
    meanScoreLowerBound: boolean;
  }[];
}

/** One eval of a run, with its figures and their intervals. */
export interface EvalView {
  evalId: string;
  attempts: number;
  passed: number;
  failed: number;
  errored: number;
  skipped: number;
  /** Errored attempts the run's stop cut off: in no pass rate. */
  interrupted: number;
  passRate: number | null;
  passRateInterval: Interval | null;
  /** Attempts the pass rate is of (judged ones: skipped and cut off aside). */
  passRateN: number;
  /** With trials, the cases its interval counts (the attempts are their trials); null without. */
  passRateCases: number | null;
  meanScore: number | null;
  meanScoreInterval: Interval | null;
  scoredCases: number;
  partialCases: number;
  /** The run's summary (reducers, flaky cases), or one folded from its attempts so far. */
  summary?: EvalSummary;
}

/** The Run page's header: the run, its evals, and the judgment labels seen (for the scorer filter). */
export interface RunDetail {
  run: RunRow;
  manifest: StoredRun;
  evals: EvalView[];
  labels: string[];
  /** What finishes the run should it have stopped before its end (the page says it only then). */
  finish?: RunFinish;
}

/**
 * What finishes a run that stopped: the command that resumes it in the store the viewer or the
 * export read (`--store` as the user gave it), or, for a run imported here, what to do where it
 * ran, as `show` says it.
 */
export interface RunFinish {
  command?: string;
  advice?: string;
}

/** {@link RunFinish} of a run, with the `--store` the command that read it was given. */
export function runFinish(run: StoredRun, storeFlag: string | undefined): RunFinish {
  const advice = importedRunAdvice(run);
  return advice ? { advice } : { command: resumeCommand(run.runId, storeFlag) };
}

/** One line of the cases table: small, whatever the size of the attempt's output. */
export interface AttemptRow {
  evalId: string;
  caseId: string;
  trial: number;
  index: number | null;
  verdict: Verdict;
  score: AttemptRecord["score"];
  elapsedMs: number;
  /** The first judgment that did not match (label: reason), or the error. */
  why: string | null;
  /** Each judgment's label and, at the same position, its state. */
  labels: string[];
  states: JudgmentState[];
  /** The start of the output as text. */
  output: string | null;
}

const PREVIEW = 160;

/**
 * The cases a run's attempts are trials of, for its pass rate's interval: from its summaries,
 * or, before it has them (running, stopped), its stored case count when its evals ran trials
 * (without the summaries' per-case counts, that interval is the cautious Wilson's over the cases).
 */
function casesOfTrials(run: StoredRun): number | undefined {
  if (run.summaries?.length) return runCases(run.summaries);
  return run.evals.some((e) => e.trials > 1) ? run.totals.cases : undefined;
}

/** With trials, the cases the run's scored attempts are trials of, from its summaries. */
function scoredCasesOfTrials(run: StoredRun): number | null {
  const summaries = run.summaries ?? [];
  if (!summaries.some((s) => s.trials)) return null;
  const cases = summaries.reduce((sum, s) => sum + (s.trials?.scoredCases ?? s.scoredCases), 0);
  return cases < run.totals.scoredAttempts ? cases : null;
}

/**
 * A run as a Runs-page line: counts, pass rate with its Wilson interval, mean score. The figures
 * and intervals are the reports' (src/report/figures.ts), from the run's totals (which count the
 * attempts its stop cut off, in no pass rate, also before it has summaries) and summaries.
 */
export function runRow(run: StoredRun): RunRow {
  const { totals } = run;
  const cases = casesOfTrials(run);
  const { interrupted } = totals;
  const rate = passRateFigure(
    { cases: totals.attempts, passed: totals.passed, skipped: totals.skipped, interrupted },
    cases,
    run.summaries?.length ? runShareSums(run.summaries) : undefined,
  );
  return {
    runId: run.runId,
    name: run.name ?? null,
    shard: run.shard ? `${run.shard.index}/${run.shard.count}` : null,
    filter: runFilter(run) ?? null,
    branch: run.git?.branch ?? null,
    commit: run.git?.commit ?? null,
    dirty: run.git?.dirty ?? null,
    startedAt: run.startedAt,
    endedAt: run.endedAt ?? null,
    status: effectiveStatus(run),
    tags: run.tags,
    evals: run.evals.map((e) => e.evalId),
    cases: totals.cases,
    attempts: totals.attempts,
    passed: totals.passed,
    failed: totals.failed,
    errored: totals.errored,
    skipped: totals.skipped,
    interrupted,
    passRate: rate.rate,
    passRateInterval: rate.interval,
    passRateCases: rate.cases ?? null,
    meanScore: totals.meanScore,
    meanScoreInterval: run.summaries?.length ? runMeanScoreFigure(run.summaries).interval : null,
    scoredAttempts: totals.scoredAttempts,
    meanScoreCases: scoredCasesOfTrials(run),
    partialAttempts: run.summaries?.length
      ? run.summaries.reduce((sum, s) => sum + s.partialCases, 0)
      : null,
    resumedWithChanges: run.resumedWithChanges?.length ? run.resumedWithChanges : null,
    troubles: runTroubles(run),
    perEval: (run.summaries ?? []).map((s) => {
      const figures = evalFigures(s);
      return {
        evalId: s.evalId,
        passRate: figures.passRate.rate,
        passRateInterval: figures.passRate.interval,
        n: figures.passRate.n,
        passRateCases: figures.passRate.cases ?? null,
        meanScore: s.meanScore,
        meanScoreInterval: figures.meanScore.interval,
        scoredAttempts: figures.meanScore.n,
        meanScoreCases: figures.meanScore.cases ?? null,
        partialCases: s.partialCases,
        meanScoreLowerBound: s.partialCases > 0,
      };
    }),
  };
}

/**
 * Runs newest first, as Runs-page lines; filtered on an eval, with that eval's own figures
 * ({@link evalRunRow}), as `niceeval runs --eval` gives them.
 */
export async function listRunRows(store: Store, query: RunListQuery = {}): Promise<RunRow[]> {
  const runs = await store.listRuns(query);
  const { evalId } = query;
  return evalId === undefined ? runs.map(runRow) : runs.map((run) => evalRunRow(run, evalId));
}

/** A run's line with the figures of one of its evals ({@link withEvalFigures}). */
export function evalRunRow(run: StoredRun, evalId: string): RunRow {
  return withEvalFigures(runRow(run), run.summaries, evalId);
}

/** A table line of an attempt. */
export function attemptRow(record: AttemptRecord): AttemptRow {
  const off = record.judgments.find((j) => j.state !== "matched");
  const why = record.error
    ? `${record.error.where}: ${record.error.message}`
    : off
      ? `${off.label}: ${off.state === "unavailable" ? "unavailable — " : ""}${off.reason}`
      : (record.skipReason ?? null);
  return {
    evalId: record.evalId,
    caseId: record.caseId,
    trial: record.trial ?? 0,
    index: record.index ?? null,
    verdict: record.verdict,
    score: record.score,
    elapsedMs: record.elapsedMs,
    why: why === null ? null : why.slice(0, PREVIEW * 2),
    labels: record.judgments.map((j) => j.label),
    states: record.judgments.map((j) => j.state),
    output: preview(record.output),
  };
}

function preview(value: unknown): string | null {
  if (value === undefined) return null;
  if (isTruncated(value))
    return `[truncated, ${value.bytes} bytes] ${value.head.slice(0, PREVIEW)}`;
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text === undefined ? null : text.slice(0, PREVIEW);
}

/**
 * Per-eval figures: from the summaries of a finished run; for a run without them (still running,
 * or stopped: crashed, killed), folded from its stored attempts, as `show` does, so a live run's
 * mean score is there as it fills in; the run's own figures then come from those summaries too.
 */
export async function runDetail(store: Store, run: StoredRun): Promise<RunDetail> {
  const summaries = new Map((run.summaries ?? []).map((s) => [s.evalId, s]));
  const folding = run.evals.some((e) => !summaries.has(e.evalId));
  if (folding)
    for (const s of await foldedSummaries(store, run))
      if (!summaries.has(s.evalId)) summaries.set(s.evalId, s);
  const evals: EvalView[] = [];
  const labels = new Set<string>();
  for (const { evalId } of run.evals) {
    const sample = await store.queryAttempts(run.runId, { evalId, limit: 50 });
    for (const record of sample.items) for (const j of record.judgments) labels.add(j.label);
    evals.push(fromSummary(summaries.get(evalId)!));
  }
  return {
    run: headerRow(run, folding ? summaries : undefined),
    manifest: run,
    evals,
    labels: [...labels].sort(),
  };
}

/**
 * The run's line for its page: with the summaries folded from its attempts (a run without its
 * own), its figures from them, as `show` folds them: the pass rate's interval over the cases with
 * a judged trial and from their per-case counts (where the Runs list, which folds nothing, has the
 * cautious one its stored counts allow), and how many of its scores were partial.
 */
function headerRow(run: StoredRun, folded: Map<string, EvalSummary> | undefined): RunRow {
  const row = runRow(run);
  if (!folded) return row;
  const exact = runRow({ ...run, summaries: run.evals.map((e) => folded.get(e.evalId)!) });
  const { passRateInterval, passRateCases, meanScoreCases, partialAttempts } = exact;
  return { ...row, passRateInterval, passRateCases, meanScoreCases, partialAttempts };
}

/** The per-eval summaries of a run's stored attempts, folded in one pass. */
async function foldedSummaries(store: Store, run: StoredRun): Promise<EvalSummary[]> {
  const folds = new Map(
    run.evals.map((e) => [e.evalId, new EvalAccumulator(e.evalId, e.style, e.trials)]),
  );
  for await (const record of store.streamAttempts(run.runId)) folds.get(record.evalId)?.add(record);
  // How long each eval took is not stored before the run ends.
  return [...folds.values()].map((fold) => fold.finish(0));
}

/** An eval's figures as the reports give them (src/report/figures.ts), intervals and all. */
function fromSummary(s: EvalSummary): EvalView {
  const figures = evalFigures(s);
  return {
    evalId: s.evalId,
    attempts: s.cases,
    passed: s.passed,
    failed: s.failed,
    errored: s.errored,
    skipped: s.skipped,
    interrupted: s.interrupted ?? 0,
    passRate: figures.passRate.rate,
    passRateInterval: figures.passRate.interval,
    passRateN: figures.passRate.n,
    passRateCases: figures.passRate.cases ?? null,
    meanScore: s.meanScore,
    meanScoreInterval: figures.meanScore.interval,
    scoredCases: s.scoredCases,
    partialCases: s.partialCases,
    summary: s,
  };
}

/** One page of the cases table. */
export interface RowPage {
  total: number;
  offset: number;
  items: AttemptRow[];
}

/** A page of table lines, filtered and sorted by the store. */
export async function attemptRows(
  store: Store,
  runId: string,
  query: AttemptQuery,
): Promise<RowPage> {
  const page = await store.queryAttempts(runId, query);
  return { total: page.total, offset: query.offset ?? 0, items: page.items.map(attemptRow) };
}

/** Every trial of one case, in trial order. */
export async function caseTrials(
  store: Store,
  runId: string,
  evalId: string,
  caseId: string,
): Promise<AttemptRecord[]> {
  const found: AttemptRecord[] = [];
  // The store searches case ids by substring; keep exact matches, page by page.
  for (let offset = 0; ; offset += 1000) {
    const page = await store.queryAttempts(runId, { evalId, text: caseId, offset, limit: 1000 });
    for (const record of page.items) if (record.caseId === caseId) found.push(record);
    if (offset + page.items.length >= page.total || page.items.length === 0) break;
  }
  return found.sort((a, b) => (a.trial ?? 0) - (b.trial ?? 0));
}

/** A comparison as the viewer's API answers it: with what finding a `branch:NAME` run noted. */
export type ViewerComparison = Comparison & { refNotes?: string[] };

/**
 * Compare two runs named as `niceeval compare` names them (id, prefix, name, latest~N,
 * `branch:NAME`); a branch with no run to compare is RUN_NOT_FOUND.
 */
export async function compareRefs(
  store: Store,
  base: string,
  head: string,
): Promise<ViewerComparison> {
  const refNotes: string[] = [];
  const runs = await findComparedRuns(store, base, head, (note) => refNotes.push(note.trim()), {
    command: "the comparison",
    example: "?base=branch:main&head=latest",
    names: { base: "base", head: "head" },
  });
  if (!runs.base)
    throw new NiceevalError(
      "RUN_NOT_FOUND",
      `${nothingOnBranch(base, runs.head)} yet: nothing to compare`,
    );
  const comparison = await compareRuns(store, runs.base.runId, runs.head.runId);
  return refNotes.length ? { ...comparison, refNotes } : comparison;
}
