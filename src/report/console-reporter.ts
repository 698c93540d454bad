import type { AttemptRecord } from "../eval/record.js";
import { plural, pluralNoun } from "../plural.js";
import type { EvalSummary } from "../runner/events.js";
import { loadTroubles } from "../runner/load-troubles.js";
import type { RunSummary } from "../runner/run.js";
import type { RunStartInfo } from "../runner/sink.js";
import { NO_CASE_GATE } from "../runner/summary.js";
import type { UnavailablePlace, UnavailableSummary } from "../runner/unavailable.js";
import { showAsStored } from "../scorers/deterministic/preview.js";
import { formatShard, type Shard } from "../shard/shard.js";
import type { TrialSummary } from "../stats/trials.js";
import { visible } from "../visible.js";
import { erroredBecause } from "./failures.js";
import {
  formatAppUsage,
  formatMeanScore,
  formatPassRate,
  meanScoreFigure,
  runPassRateFigure,
} from "./figures.js";
import {
  evalWord,
  formatJudgeUsage,
  formatMs,
  formatNumber,
  oneLine,
  verdictMark,
} from "./format.js";
import { LineWriter, type Palette, palette } from "./output.js";
import { RecordLines } from "./record-lines.js";
import type { EvalInfo, Reporter } from "./reporter.js";
import { shownId } from "./shown-id.js";
import { stoppedWords } from "./stopped.js";
import { flakyCount, flakyPassed, trialFigures } from "./trial-text.js";

/** Options of {@link consoleReporter}. */
export interface ConsoleReporterOptions {
  /** File descriptor of the report (default 1, stdout). */
  fd?: number | undefined;
  color?: boolean | undefined;
  /** Show a live progress line on stderr (TTY only). */
  progress?: boolean | undefined;
  /** Print passed cases and their judgments too (default true); false prints only the others. */
  verbose?: boolean | undefined;
  /** Leave out evals that ran no case (a filter skipped them all). */
  hideEmptyEvals?: boolean | undefined;
  /** The run's --filter, said in the header: its eval count is of the files, before filtering. */
  filter?: string | undefined;
  /**
   * The run's --shard, said in the header as the filter is, beside each eval it left no case of,
   * and in the summary's heading (`Summary of shard 2/3`), whose counts are of the evals that ran
   * a case.
   */
  shard?: Shard | undefined;
  /** Flaky cases listed per eval, at most (default 10); the others are counted. */
  maxFlaky?: number | undefined;
  /** How long the eval files took to load, ms: said beside the run's time when it took a second or more. */
  loadMs?: number | undefined;
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
  // Evals the shard left no case of: shown, but not counted by the summary.
  let emptyEvals = 0;
  // The run's summary was printed: a run finished again (a caller finishing its reporters after
  // the engine did) prints nothing more; a reporter reused for another run reports that run.
  let finished = false;
  const inShard = options.shard ? ` in shard ${formatShard(options.shard)}` : "";
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

  const lines = new RecordLines(out, c);

  return {
    onRunStart(info) {
      trials = undefined;
      anyTrials = false;
      emptyEvals = 0;
      finished = false;
      pendingHeader = undefined;
      out.line(runStartLine(info, options, c));
    },
    onEvalStart(info: EvalInfo) {
      trials = info.trials;
      if ((info.trials ?? 1) > 1) anyTrials = true;
      pendingHeader = `${c.bold(oneLine(info.evalId, 200))} ${c.dim(`${evalWord(info)}${info.file ? ` · ${oneLine(info.file, 400)}` : ""}${(info.trials ?? 1) > 1 ? ` · ${info.trials} trials` : ""}`)}`;
      if (!options.hideEmptyEvals) printHeader();
    },
    onCaseFinished(record: AttemptRecord) {
      // --failures-only: a passed or skipped case prints nothing (as `show --failures-only --json`
      // keeps only failed and errored ones); its eval's summary line still counts it.
      if (!verbose && (record.verdict === "passed" || record.verdict === "skipped")) return;
      printHeader();
      caseLines(record, trials, lines, out, c);
    },
    onEvalFinished(summary: EvalSummary) {
      if (pendingHeader !== undefined) {
        pendingHeader = undefined;
        return;
      }
      if (summary.cases === 0) {
        // No attempt: no counts, figures or trials to show (a "× 0" trials line).
        if (options.shard) emptyEvals++;
        out.line(c.dim(`  no case${inShard}`));
        return;
      }
      for (const line of evalSummaryLines(summary, c, maxFlaky)) out.line(line);
    },
    onProgress(done) {
      if (!options.progress) return;
      const now = Date.now();
      if (now - lastProgress < 100) return;
      lastProgress = now;
      out.flush();
      // With trials, each trial of a case is one attempt done, as the summary counts them.
      const noun = anyTrials ? "attempt" : "case";
      process.stderr.write(`\r\u001b[2K${c.dim(`running… ${plural(done, noun)} done`)}`);
      progressShown = true;
    },
    onRunFinished(summary: RunSummary) {
      clearProgress();
      if (finished) return;
      finished = true;
      out.line();
      const empty = emptyEvals > 0 ? ` (${emptyEvals} more with no case${inShard})` : "";
      const heading = options.shard ? `Summary of shard ${formatShard(options.shard)}` : "Summary";
      for (const line of summaryLines(
        summary,
        anyTrials,
        c,
        { heading, emptyEvals: empty },
        options.loadMs,
      ))
        out.line(line);
      out.flush();
    },
  };
}

/** The run's first line: what it runs, how much at once. */
function runStartLine(info: RunStartInfo, options: ConsoleReporterOptions, c: Palette): string {
  return (
    c.bold("niceeval run") +
    c.dim(
      ` · ${plural(info.evals, "eval")}${info.files > 0 ? ` from ${plural(info.files, "file")}` : ""}${options.filter !== undefined ? `, cases matching --filter ${oneLine(options.filter, 200)}` : ""}${options.shard ? `, cases of shard ${formatShard(options.shard)}` : ""} · concurrency ${info.concurrency}`,
    )
  );
}

/** An eval's counts, mean score, judge use and time; then its trials' lines, if it ran several. */
function evalSummaryLines(summary: EvalSummary, c: Palette, maxFlaky: number): string[] {
  const meanScore = meanScoreFigure(summary);
  const mean = meanScore.mean === null ? "score n/a" : `mean score ${formatMeanScore(meanScore)}`;
  const lines = [
    c.dim(
      `  ${plural(summary.cases, summary.trials ? "attempt" : "case")}: ${summary.passed} passed, ${summary.failed} failed, ${summary.errored} errored, ${summary.skipped} skipped · ${mean}${summary.judge.calls + summary.judge.cachedCalls > 0 ? ` · judge: ${formatJudgeUsage(summary.judge)}` : ""} · ${formatMs(summary.elapsedMs)}`,
    ),
  ];
  if (summary.trials) lines.push(...trialLines(summary.trials, c, maxFlaky));
  return lines;
}

/** A case's line, why it was skipped or errored, its judgments, and what lacks evidence. */
function caseLines(
  record: AttemptRecord,
  trials: number | undefined,
  lines: RecordLines,
  out: LineWriter,
  c: Palette,
): void {
  lines.caseLine(record, trials);
  if (record.skipReason !== undefined)
    out.line(`      ${c.yellow("-")} skipped: ${oneLine(record.skipReason)}`);
  if (record.error)
    out.line(`      ${c.magenta("!")} ${record.error.where}: ${oneLine(record.error.message)}`);
  const because = erroredBecause(record);
  if (because !== undefined) out.line(`      ${c.magenta("!")} errored: ${oneLine(because)}`);
  const { judgments } = record;
  for (let i = 0; i < judgments.length; i++) lines.judgmentLine(judgments[i]!, i);
  if (record.verdict === "failed") valueLines(record, out, c);
  // The reasons are on the judgments above; say only what they do to the score.
  if (record.score.state === "complete") return;
  const missing = record.judgments.filter((j) => j.points > 0 && j.earned === null);
  if (missing.length) {
    const points = missing.reduce((sum, j) => sum + j.points, 0);
    out.line(
      `      ${c.dim(`${record.score.state}: ${formatNumber(points)} ${pluralNoun(points, "pt")} without evidence ${points === 1 ? "stays" : "stay"} in max (${oneLine(missing.map((j) => j.label).join(", "), 200)})`)}`,
    );
  }
}

/** What a failed case returned, and what its case expected, as short previews. */
function valueLines(record: AttemptRecord, out: LineWriter, c: Palette): void {
  // As the store keeps them, so that `niceeval show` gives the same lines; JSON escapes only the
  // C0 controls, so the C1, separator and bidirectional ones are shown as an id's are.
  if ("output" in record)
    out.line(`      ${c.dim("output:")}   ${visible(showAsStored(record.output))}`);
  if (record.expected !== undefined)
    out.line(`      ${c.dim("expected:")} ${visible(showAsStored(record.expected))}`);
}

/** One line of reducers per eval, then one line per flaky case (at most `maxFlaky`). */
function trialLines(t: TrialSummary, c: Palette, maxFlaky: number): string[] {
  const flaky = flakyCount(t);
  const lines = [
    c.dim(`  trials: ${trialFigures(t)}`) +
      (t.flaky.count > 0 ? c.yellow(` · ${flaky}`) : ` · ${flaky}`),
  ];
  const shown = t.flaky.cases.slice(0, maxFlaky);
  for (const f of shown)
    lines.push(
      `    ${c.yellow("~")} ${shownId(f.caseId)} flaky: ${flakyPassed(f)} ${c.dim(`(${oneLine(f.verdicts.map((v) => verdictMark(v, c)).join(""), 60)})`)}`,
    );
  if (t.flaky.count > shown.length)
    lines.push(c.dim(`    … and ${t.flaky.count - shown.length} more flaky cases`));
  return lines;
}

/** The run's summary: files that failed to load, totals, unavailable judgments, judge usage, time. */
function summaryLines(
  summary: RunSummary,
  anyTrials: boolean,
  c: Palette,
  { heading, emptyEvals }: { heading: string; emptyEvals: string },
  loadMs = 0,
): string[] {
  const t = summary.totals;
  const lines = [c.bold(heading)];
  const load = loadTroubles(summary.loadErrors);
  if (load.failed.length) {
    lines.push(`  ${c.magenta(`${plural(load.files, "file")} failed to load:`)}`);
    for (const error of load.failed)
      lines.push(`    ${oneLine(`${error.file}: ${error.message}`, 2000)}`);
  }
  if (load.leftOut.length) {
    lines.push(`  ${c.magenta(`${plural(load.evals, "eval")} left out:`)}`);
    for (const error of load.leftOut)
      lines.push(`    ${oneLine(`${error.file}: ${error.message}`, 2000)}`);
  }
  const outside = summary.runErrors ?? [];
  if (outside.length) {
    lines.push(
      `  ${c.magenta(`${plural(outside.length, "error")} in user code belonged to no case (the run fails):`)}`,
    );
    for (const error of outside.slice(0, 5)) lines.push(`    ${oneLine(error, 2000)}`);
    if (outside.length > 5) lines.push(c.dim(`    … and ${outside.length - 5} more`));
  }
  const rate = runPassRateFigure(summary);
  const passRate = rate.rate === null ? "" : ` (${formatPassRate(rate)})`;
  lines.push(
    `  ${plural(t.evals, "eval")}${emptyEvals} · ${plural(t.cases, anyTrials ? "attempt" : "case")} · ${c.green(`${t.passed} passed`)}${passRate} · ${t.failed ? c.red(`${t.failed} failed`) : "0 failed"} · ${t.errored ? c.magenta(`${t.errored} errored`) : "0 errored"} · ${t.skipped} skipped`,
  );
  if (summary.cancelled) lines.push(`  ${c.yellow(`cancelled: ${stoppedWords(summary)}`)}`);
  if (summary.unavailable && summary.unavailable.judgments > 0)
    lines.push(...unavailableLines(summary.unavailable, c));
  lines.push(`  judge: ${formatJudgeUsage(summary.judge)}`);
  const app = formatAppUsage(summary.app);
  if (app !== undefined) lines.push(`  app: ${app}`);
  const loading = loadMs >= 1000 ? `, after ${formatMs(loadMs)} loading the eval files` : "";
  lines.push(`  time: ${formatMs(summary.elapsedMs)}${loading}`);
  for (const gate of summary.gates ?? [])
    lines.push(`  ${c.red(oneLine(gate, Number.POSITIVE_INFINITY))}`);
  // A run that ran no case (a filter or a shard that selects nothing) did not pass anything; a
  // filter that selects nothing fails the run (exit 2), and says so in the gate line above.
  const onlyNoCase =
    summary.gateNames?.every((name) => name === NO_CASE_GATE) === true &&
    summary.loadErrors.length === 0 &&
    (summary.runErrors?.length ?? 0) === 0 &&
    !summary.cancelled;
  const noCase = summary.ok || onlyNoCase;
  if (t.cases === 0 && noCase) lines.push(c.yellow("NO CASE RAN"));
  else lines.push(summary.ok ? c.green("PASS") : c.red("FAIL"));
  return lines;
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
    `  ${c.bold(c.yellow(`! ${plural(judgments, "judgment")} unavailable in ${plural(attempts, "attempt")}`))}${c.yellow(`: ${scoresWord(unavailable)} (--strict fails the run on this)`)}`,
  ];
  for (const { reason, count, where } of reasons.slice(0, SHOWN_REASONS)) {
    lines.push(`    ${c.yellow(`${count} ×`)} ${oneLine(reason, 300)}`);
    if (where.length) lines.push(c.dim(`        ${placesText(where, count)}`));
  }
  const rest = reasons.length - SHOWN_REASONS;
  if (rest > 0)
    lines.push(c.dim(`    … and ${plural(rest, "more reason")} (see the JSON summary)`));
  return lines;
}

/**
 * Where a reason hit: 'in eval judged, case c1, scorer "helpful"; … and 4 more', so a reason
 * the summary groups across evals and scorers still leads to them.
 */
function placesText(where: readonly UnavailablePlace[], count: number): string {
  const more = count > where.length ? ` and ${count - where.length} more` : "";
  return oneLine(`in ${where.map(placeText).join("; ")}${more}`, 400);
}

function placeText(place: UnavailablePlace): string {
  const trial = place.trial !== undefined ? ` [trial ${place.trial + 1}]` : "";
  // A score eval's judgments come from its `t.` methods; a suite's from its scorers.
  const made = place.source.startsWith("t.") ? place.source : "scorer";
  return `eval ${place.evalId}, case ${place.caseId}${trial}, ${made} "${place.judgment}"`;
}

/** What the unavailable judgments did to their attempts' scores: never a zero. */
function scoresWord({ attempts, scores }: UnavailableSummary): string {
  if (scores.partial === attempts) return "their scores are partial, not zero";
  if (scores.unavailable === attempts) return "their scores are unavailable, not zero";
  if (scores.complete === attempts) return "they carried no points, so no score is lowered";
  const parts: string[] = [];
  if (scores.partial > 0) parts.push(`${scores.partial} partial`);
  if (scores.unavailable > 0) parts.push(`${scores.unavailable} unavailable`);
  if (scores.complete > 0) parts.push(`${scores.complete} complete (no points rode on them)`);
  return `their scores: ${parts.join(", ")}; none is a zero`;
}

/** "1 case", "2 cases". */
