import type { AttemptRecord, Judgment } from "../eval/record.js";
import type { EvalSummary } from "../runner/events.js";
import type { RunSummary } from "../runner/run.js";
import type { UnavailableSummary } from "../runner/unavailable.js";
import type { CaseAverage, TrialSummary } from "../stats/trials.js";
import { attemptName } from "./failures.js";
import { formatMeanScore, formatPassRate, meanScoreFigure, passRateFigure } from "./figures.js";
import {
  formatJudgeUsage,
  formatMs,
  formatNumber,
  formatScore,
  judgmentMark,
  judgmentRole,
  oneLine,
  verdictMark,
} from "./format.js";
import { LineWriter, type Palette, type Part, palette, part } from "./output.js";
import type { EvalInfo, Reporter } from "./reporter.js";

/** Options of {@link consoleReporter}. */
export interface ConsoleReporterOptions {
  /** File descriptor of the report (default 1, stdout). */
  fd?: number;
  color?: boolean;
  /** Show a live progress line on stderr (TTY only). */
  progress?: boolean;
  /** Print passed cases and their judgments too (default true); false prints only the others. */
  verbose?: boolean;
  /** Leave out evals that ran no case (a filter skipped them all). */
  hideEmptyEvals?: boolean;
  /** Flaky cases listed per eval, at most (default 10); the others are counted. */
  maxFlaky?: number;
}

/**
 * The human report: per eval, per case, every judgment with its state, role, points and
 * reason; then a summary. Streams as records arrive; holds nothing per case.
 */
export function consoleReporter(options: ConsoleReporterOptions = {}): Reporter {
  const out = new LineWriter(options.fd ?? 1);
  const c = palette(options.color ?? false);
  const verbose = options.verbose ?? true;
  const maxFlaky = options.maxFlaky ?? 10;
  // Trials of the eval being printed: case lines name their trial when there are several.
  let trials: number | undefined;
  let anyTrials = false;
  let lastProgress = 0;
  let progressShown = false;
  const clearProgress = () => {
    if (progressShown) {
      process.stderr.write("\r\u001b[2K");
      progressShown = false;
    }
  };

  // An eval's header waits for its first case when empty evals are hidden.
  let pendingHeader: string | undefined;
  const printHeader = () => {
    if (pendingHeader === undefined) return;
    out.line();
    out.line(pendingHeader);
    pendingHeader = undefined;
  };

  // Lines are put together in place from parts encoded once they are seen again: the mark of a
  // verdict, what follows a case's name for its verdict and score, and a judgment line up to its
  // reason, or whole. What is seen once is written as text, as it would be without parts.
  const dimmed = c.dim("x");
  const dimOpen = dimmed.slice(0, dimmed.indexOf("x"));
  const caseTail = part(`${dimmed.slice(dimmed.indexOf("x") + 1)}\n`);
  const caseMemos = new Map<string, CaseLineMemo>();
  const caseLine = (record: AttemptRecord) => {
    const { verdict, score } = record;
    let memo = caseMemos.get(verdict);
    if (memo === undefined) {
      memo = {
        head: part(`  ${verdictMark(verdict, c)} `),
        state: "",
        earned: Number.NaN,
        max: Number.NaN,
        restText: "",
        rest: undefined,
      };
      caseMemos.set(verdict, memo);
    }
    // The score of a case like the one before it with its verdict (most of a dataset's) is kept.
    let rest: Part | undefined;
    if (score.state !== memo.state || score.earned !== memo.earned || score.max !== memo.max) {
      memo.restText = ` ${c.dim(verdict)} · ${formatScore(score)} ${dimOpen}· `;
      memo.state = score.state;
      memo.earned = score.earned;
      memo.max = score.max;
      memo.rest = undefined;
    } else {
      memo.rest ??= part(memo.restText);
      rest = memo.rest;
    }
    const name = `${attemptName(record, trials)}`;
    const ms = formatMs(record.elapsedMs);
    out.putPart(memo.head);
    out.putText(name);
    if (rest !== undefined) out.putPart(rest);
    else out.putText(memo.restText);
    out.putText(ms);
    out.putPart(caseTail);
    out.endLine();
  };

  // A judgment line like one of the last few at its place (most of a dataset's) is reused: its
  // head when all but the reason is alike, the whole line when the reason is too.
  const places: LinePlace[] = [];
  const judgmentLine = (judgment: Judgment, at: number) => {
    const cachedCalls = (judgment.judge?.cachedCalls ?? 0) > 0;
    let place = places[at];
    if (place === undefined && at < MAX_LINE_PLACES) {
      place = { memos: [], oldest: 0 };
      places[at] = place;
    }
    let memo: JudgmentLineMemo | undefined;
    if (place !== undefined)
      for (const m of place.memos)
        if (
          m.label === judgment.label &&
          m.state === judgment.state &&
          m.gate === judgment.gate &&
          m.points === judgment.points &&
          m.earned === judgment.earned &&
          m.value === judgment.value &&
          m.cachedCalls === cachedCalls
        ) {
          memo = m;
          break;
        }
    if (memo === undefined) {
      const headText = judgmentHead(judgment, cachedCalls, c);
      const reason = oneLine(judgment.reason);
      if (place !== undefined) {
        // A place keeps a few memos; past them, the oldest is written over.
        const { memos } = place;
        if (memos.length < MEMOS_PER_PLACE) {
          memo = {
            label: judgment.label,
            state: judgment.state,
            gate: judgment.gate,
            points: judgment.points,
            earned: judgment.earned,
            value: judgment.value,
            cachedCalls,
            headText,
            head: undefined,
            reason: judgment.reason,
            line: undefined,
          };
          memos.push(memo);
        } else {
          memo = memos[place.oldest]!;
          place.oldest = (place.oldest + 1) % MEMOS_PER_PLACE;
          memo.label = judgment.label;
          memo.state = judgment.state;
          memo.gate = judgment.gate;
          memo.points = judgment.points;
          memo.earned = judgment.earned;
          memo.value = judgment.value;
          memo.cachedCalls = cachedCalls;
          memo.headText = headText;
          memo.head = undefined;
          memo.reason = judgment.reason;
          memo.line = undefined;
        }
      }
      out.line(headText + reason);
      return;
    }
    if (memo.reason === judgment.reason) {
      // The same line again: worth encoding once.
      memo.line ??= part(`${memo.headText}${oneLine(judgment.reason)}\n`);
      out.putPart(memo.line);
      out.endLine();
      return;
    }
    const reason = oneLine(judgment.reason);
    memo.reason = judgment.reason;
    memo.line = undefined;
    memo.head ??= part(memo.headText);
    out.putPart(memo.head);
    out.putText(reason);
    out.putPart(NEWLINE);
    out.endLine();
  };

  // One line of reducers per eval, then one line per flaky case (bounded).
  const trialLines = (t: TrialSummary) => {
    const n = t.trials.min === t.trials.max ? `${t.trials.max}` : `${t.trials.min}–${t.trials.max}`;
    const reducers = [
      ...t.byK.map((r) => `pass@${r.k} ${rate(r.passAtK)}`),
      ...t.byK.filter((r) => r.k > 1).map((r) => `pass^${r.k} ${rate(r.passHatK)}`),
    ];
    const score =
      t.score.mean.value === null
        ? ""
        : ` · per-case score mean ${formatNumber(t.score.mean.value)}, median ${formatNumber(t.score.median.value!)}, max ${formatNumber(t.score.max.value!)}`;
    const flaky =
      t.flaky.count > 0
        ? c.yellow(` · ${plural(t.flaky.count, "flaky case")}`)
        : " · no flaky case";
    out.line(
      c.dim(`  trials: ${plural(t.cases, "case")} × ${n} · ${reducers.join(" · ")}${score}`) +
        flaky,
    );
    const shown = t.flaky.cases.slice(0, maxFlaky);
    for (const f of shown)
      out.line(
        `    ${c.yellow("~")} ${f.caseId} flaky: ${f.passed}/${f.trials} passed ${c.dim(`(${oneLine(f.verdicts.map((v) => verdictMark(v, c)).join(""), 60)})`)}`,
      );
    if (t.flaky.count > shown.length)
      out.line(c.dim(`    … and ${t.flaky.count - shown.length} more flaky cases`));
  };

  return {
    onRunStart(info) {
      out.line(
        c.bold("niceeval run") +
          c.dim(
            ` · ${plural(info.evals, "eval")} from ${plural(info.files, "file")} · concurrency ${info.concurrency}`,
          ),
      );
    },
    onEvalStart(info: EvalInfo) {
      trials = info.trials;
      if ((info.trials ?? 1) > 1) anyTrials = true;
      pendingHeader = `${c.bold(info.evalId)} ${c.dim(`${info.style}${info.file ? ` · ${info.file}` : ""}${(info.trials ?? 1) > 1 ? ` · ${info.trials} trials` : ""}`)}`;
      if (!options.hideEmptyEvals) printHeader();
    },
    onCaseFinished(record: AttemptRecord) {
      // --failures-only: a passed case prints nothing; its eval's summary line still counts it.
      if (!verbose && record.verdict === "passed") return;
      printHeader();
      caseLine(record);
      if (record.skipReason !== undefined)
        out.line(`      ${c.yellow("-")} skipped: ${oneLine(record.skipReason)}`);
      if (record.error)
        out.line(`      ${c.magenta("!")} ${record.error.where}: ${oneLine(record.error.message)}`);
      const { judgments } = record;
      for (let i = 0; i < judgments.length; i++) judgmentLine(judgments[i]!, i);
      // The reasons are on the judgments above; say only what they do to the score.
      if (record.score.state === "complete") return;
      const missing = record.judgments.filter((j) => j.points > 0 && j.earned === null);
      if (missing.length) {
        const points = missing.reduce((sum, j) => sum + j.points, 0);
        out.line(
          `      ${c.dim(`${record.score.state}: ${formatNumber(points)} pts without evidence stay in max (${oneLine(missing.map((j) => j.label).join(", "), 200)})`)}`,
        );
      }
    },
    onEvalFinished(summary: EvalSummary) {
      if (pendingHeader !== undefined) {
        pendingHeader = undefined;
        return;
      }
      const meanScore = meanScoreFigure(summary);
      const mean =
        meanScore.mean === null ? "score n/a" : `mean score ${formatMeanScore(meanScore)}`;
      out.line(
        c.dim(
          `  ${plural(summary.cases, summary.trials ? "attempt" : "case")}: ${summary.passed} passed, ${summary.failed} failed, ${summary.errored} errored, ${summary.skipped} skipped · ${mean}${summary.judge.calls + summary.judge.cachedCalls > 0 ? ` · judge: ${formatJudgeUsage(summary.judge)}` : ""} · ${formatMs(summary.elapsedMs)}`,
        ),
      );
      if (summary.trials) trialLines(summary.trials);
    },
    onProgress(done) {
      if (!options.progress) return;
      const now = Date.now();
      if (now - lastProgress < 100) return;
      lastProgress = now;
      out.flush();
      process.stderr.write(`\r\u001b[2K${c.dim(`running… ${done} cases done`)}`);
      progressShown = true;
    },
    onRunFinished(summary: RunSummary) {
      clearProgress();
      const t = summary.totals;
      out.line();
      out.line(c.bold("Summary"));
      if (summary.loadErrors.length) {
        out.line(`  ${c.magenta(`${plural(summary.loadErrors.length, "file")} failed to load:`)}`);
        for (const error of summary.loadErrors)
          out.line(`    ${error.file}: ${oneLine(error.message, 2000)}`);
      }
      const rate = passRateFigure(t);
      const passRate = rate.rate === null ? "" : ` (${formatPassRate(rate)})`;
      out.line(
        `  ${plural(t.evals, "eval")} · ${plural(t.cases, anyTrials ? "attempt" : "case")} · ${c.green(`${t.passed} passed`)}${passRate} · ${t.failed ? c.red(`${t.failed} failed`) : "0 failed"} · ${t.errored ? c.magenta(`${t.errored} errored`) : "0 errored"} · ${t.skipped} skipped`,
      );
      if (summary.cancelled)
        out.line(`  ${c.yellow("cancelled: cases that had not started did not run")}`);
      if (summary.unavailable && summary.unavailable.judgments > 0)
        for (const line of unavailableLines(summary.unavailable, c)) out.line(line);
      out.line(`  judge: ${formatJudgeUsage(summary.judge)}`);
      out.line(`  time: ${formatMs(summary.elapsedMs)}`);
      out.line(summary.ok ? c.green("PASS") : c.red("FAIL"));
      out.flush();
    },
  };
}

/** A verdict's mark and what follows a case's name for its last score (a part once seen twice). */
interface CaseLineMemo {
  head: Part;
  state: string;
  earned: number;
  max: number;
  restText: string;
  rest: Part | undefined;
}

/** What a judgment line is made of, its head, and its last reason (parts once seen twice). */
interface JudgmentLineMemo {
  label: string;
  state: Judgment["state"];
  gate: boolean;
  points: number;
  earned: number | null;
  value: number | null | undefined;
  cachedCalls: boolean;
  headText: string;
  head: Part | undefined;
  reason: string;
  line: Part | undefined;
}

/** The memos of one place in a case's judgments, and the one to write over next. */
interface LinePlace {
  memos: JudgmentLineMemo[];
  oldest: number;
}

/** Places of judgments in a case whose lines are kept, and how many lines per place. */
const MAX_LINE_PLACES = 256;
const MEMOS_PER_PLACE = 4;

const NEWLINE = part("\n");

/** A judgment line up to its reason: mark, label, role, points, value, cached. */
function judgmentHead(judgment: Judgment, cachedCalls: boolean, c: Palette): string {
  const points =
    judgment.points > 0
      ? judgment.earned === null
        ? `—/${formatNumber(judgment.points)}`
        : `${formatNumber(judgment.earned)}/${formatNumber(judgment.points)}`
      : judgment.state;
  const value =
    judgment.value !== undefined &&
    judgment.value !== null &&
    (judgment.earned === null ||
      Math.abs(judgment.value * judgment.points - judgment.earned) > 1e-9)
      ? ` value ${formatNumber(judgment.value)}`
      : "";
  const cached = cachedCalls ? c.dim(" [cached]") : "";
  return `      ${judgmentMark(judgment, c)} ${judgment.label} ${c.dim(`(${judgmentRole(judgment)})`)} ${points}${value}${cached} ${c.dim("—")} `;
}

/** Reasons shown under the unavailable line; the JSON summary keeps more. */
const SHOWN_REASONS = 3;

/** The judgments a run could not make, said loudly: how many, in how many attempts, and why. */
function unavailableLines(
  unavailable: UnavailableSummary,
  c: ReturnType<typeof palette>,
): string[] {
  const { judgments, attempts, reasons } = unavailable;
  const lines = [
    `  ${c.bold(c.yellow(`! ${plural(judgments, "judgment")} unavailable in ${plural(attempts, "attempt")}`))}${c.yellow(": their scores are partial, not zero (--strict fails the run on this)")}`,
  ];
  for (const { reason, count } of reasons.slice(0, SHOWN_REASONS))
    lines.push(`    ${c.yellow(`${count} ×`)} ${oneLine(reason, 300)}`);
  const rest = reasons.length - SHOWN_REASONS;
  if (rest > 0)
    lines.push(c.dim(`    … and ${plural(rest, "more reason")} (see the JSON summary)`));
  return lines;
}

/** "88.9%" of a reducer averaged over cases. */
function rate(average: CaseAverage): string {
  return average.value === null ? "n/a" : `${formatNumber(100 * average.value, 1)}%`;
}

/** "1 case", "2 cases". */
function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
