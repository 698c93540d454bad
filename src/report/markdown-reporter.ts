import { writeFileSync } from "node:fs";
import type { AttemptRecord, Verdict } from "../eval/record.js";
import { plural } from "../plural.js";
import type { EvalSummary } from "../runner/events.js";
import { loadTroubles } from "../runner/load-troubles.js";
import type { RunSummary } from "../runner/run.js";
import { attemptName, isProblem, problemSummary } from "./failures.js";
import {
  evalFigures,
  formatAppUsage,
  formatMean,
  intervalOver,
  type MeanScoreFigure,
  type PassRateFigure,
  runPassRateFigure,
} from "./figures.js";
import { formatJudgeUsage, formatMs, formatNumber } from "./format.js";
import { cell } from "./markdown-cell.js";
import type { EvalInfo, Reporter } from "./reporter.js";
import { shownId } from "./shown-id.js";
import { stoppedWords } from "./stopped.js";
import { flakyCount, flakyPassed, trialFigures } from "./trial-text.js";

/** Options of {@link markdownReporter}. */
export interface MarkdownReporterOptions {
  /** Markdown appended after the summary, e.g. a baseline comparison; undefined adds nothing. */
  comparison?: () => string | undefined;
  /** Failing cases listed, at most (default 50); the others are counted. */
  maxFailures?: number;
}

/** A failed or errored attempt kept for the list, already reduced to text. */
export interface ListedFailure {
  evalId: string;
  file?: string;
  name: string;
  verdict: "failed" | "errored";
  reason: string;
}

/**
 * Collects what a markdown summary needs while a run streams: each eval's summary and the first
 * `maxFailures` failed or errored attempts (as text), so memory stays bounded.
 */
export class SummaryCollector {
  readonly failures: ListedFailure[] = [];
  /** Failed or errored attempts in all, listed or not. */
  problems = 0;
  private readonly evals: { info?: EvalInfo; summary: EvalSummary }[] = [];
  private readonly infos = new Map<string, EvalInfo>();

  constructor(readonly maxFailures = 50) {}

  onEvalStart(info: EvalInfo): void {
    this.infos.set(info.evalId, info);
  }

  onCaseFinished(record: AttemptRecord): void {
    if (!isProblem(record)) return;
    this.problems++;
    if (this.failures.length >= this.maxFailures) return;
    const info = this.infos.get(record.evalId);
    this.failures.push({
      evalId: record.evalId,
      ...(info?.file !== undefined ? { file: info.file } : {}),
      name: attemptName(record, info?.trials),
      verdict: record.verdict as "failed" | "errored",
      reason: problemSummary(record, 300),
    });
  }

  onEvalFinished(summary: EvalSummary): void {
    const info = this.infos.get(summary.evalId);
    this.evals.push({ ...(info ? { info } : {}), summary });
  }

  /** The markdown of the run: a headline (naming the run's shard, if any), a table of evals, the failing cases. */
  render(run: RunSummary, comparison?: string): string {
    const t = run.totals;
    const rate = runPassRateFigure(run);
    // With trials, the counts are of attempts (a case run k times counts k), as the console says.
    const counted = this.evals.some((e) => (e.info?.trials ?? 1) > 1) ? "attempt" : "case";
    const lines: string[] = [];
    const shard = run.shard ? ` shard ${run.shard.index}/${run.shard.count}` : "";
    lines.push(`## niceeval${shard} ${run.ok ? "✅ passed" : "❌ failed"}`, "");
    if (run.shard)
      lines.push(
        `One shard of a sharded run: the figures below are of its cases only. \`niceeval merge\` its shards for the whole run's.`,
        "",
      );
    for (const gate of run.gates ?? []) lines.push(`- ${cell(gate)}`);
    if (run.gates?.length) lines.push("");
    lines.push(
      `${plural(t.evals, "eval")} · ${plural(t.cases, counted)} · ${t.passed} passed · ${t.failed} failed · ${t.errored} errored · ${t.skipped} skipped · pass rate ${cell(ratePercent(rate))} · ${formatMs(run.elapsedMs)}${run.cancelled ? ` · **cancelled**: ${cell(stoppedWords(run))}` : ""}`,
      "",
    );
    // What the judges spent, as the console says it: tokens no answer reported are not a 0.
    if (run.judge.calls + run.judge.cachedCalls > 0)
      lines.push(`judge: ${cell(formatJudgeUsage(run.judge))}`, "");
    const load = loadTroubles(run.loadErrors);
    for (const [errors, heading] of [
      [load.failed, `${plural(load.files, "file")} failed to load`],
      [load.leftOut, `${plural(load.evals, "eval")} left out`],
    ] as const) {
      if (errors.length === 0) continue;
      lines.push(`**${heading}:**`, "");
      for (const error of errors) lines.push(`- ${cell(error.file)}: ${cell(error.message)}`);
      lines.push("");
    }
    const app = formatAppUsage(run.app);
    if (app !== undefined) lines.push(`app usage: ${cell(app)}`, "");
    lines.push(
      ...evalTable(
        this.evals.map((e) => e.summary),
        counted,
      ),
    );
    lines.push(...trialSection(this.evals.map((e) => e.summary)));
    if (this.problems > 0) {
      const listed = this.failures.length;
      lines.push(
        `### Failing cases${listed < this.problems ? ` (first ${listed} of ${this.problems})` : ` (${this.problems})`}`,
        "",
        "| eval | case | verdict | why |",
        "| --- | --- | --- | --- |",
      );
      for (const f of this.failures)
        lines.push(
          `| ${cell(shownId(f.evalId))} | ${cell(f.name)} | ${f.verdict} | ${cell(f.reason)} |`,
        );
      if (listed < this.problems)
        lines.push(
          "",
          `…and ${this.problems - listed} more; the full list is in the JSON or JUnit report.`,
        );
      lines.push("");
    }
    if (comparison?.trim()) lines.push(comparison.trimEnd(), "");
    return lines.join("\n");
  }
}

/**
 * The table of evals that ran a case: counts, pass rate and mean score with their intervals, and
 * the application's usage when some attempt reported it.
 */
function evalTable(summaries: readonly EvalSummary[], counted: string): string[] {
  const shown = summaries.filter((s) => s.cases > 0);
  if (shown.length === 0) return [];
  const withApp = shown.some((s) => (s.app?.reported ?? 0) > 0);
  const lines = [
    `| eval | ${counted}s | passed | failed | errored | skipped | pass rate (95% CI) | mean score (95% CI) |${withApp ? " app usage |" : ""}`,
    `| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |${withApp ? " --- |" : ""}`,
  ];
  for (const s of shown) {
    const figures = evalFigures(s);
    const app = withApp ? ` ${cell(formatAppUsage(s.app) ?? "not reported")} |` : "";
    lines.push(
      `| ${cell(shownId(s.evalId))} | ${s.cases} | ${s.passed} | ${s.failed} | ${s.errored} | ${s.skipped} | ${cell(ratePercent(figures.passRate))} | ${cell(meanText(figures.meanScore))} |${app}`,
    );
  }
  lines.push("");
  if (shown.some((s) => s.partialCases > 0))
    lines.push(
      "≥: a lower bound — some scores were partial (evidence missing, its points kept in max).",
      "",
    );
  return lines;
}

/** Flaky cases listed per eval, at most; the others are counted. */
const LISTED_FLAKY = 10;

/**
 * Per eval that ran trials, its reducers (pass@k, pass^k, at-least-k, per-case scores) and its
 * flaky cases with their trial verdicts, in the console's words; nothing without trials.
 */
function trialSection(summaries: readonly EvalSummary[]): string[] {
  // As the console: each eval run with trials (whatever ran of them), among those the table shows.
  const withTrials = summaries.filter((s) => s.trials && s.cases > 0);
  if (withTrials.length === 0) return [];
  const lines = ["### Trials", ""];
  for (const { evalId, trials: t } of withTrials) {
    if (!t) continue;
    lines.push(
      `**${cell(shownId(evalId))}**: ${cell(`${trialFigures(t)} · ${flakyCount(t)}`)}`,
      "",
    );
    const listed = t.flaky.cases.slice(0, LISTED_FLAKY);
    for (const f of listed) {
      const marks = f.verdicts.map((v) => VERDICT_MARKS[v]).join("");
      lines.push(`- ${cell(`${shownId(f.caseId)} flaky: ${flakyPassed(f)} (${marks})`)}`);
    }
    if (t.flaky.count > listed.length)
      lines.push(`- …and ${t.flaky.count - listed.length} more flaky cases`);
    if (listed.length > 0) lines.push("");
  }
  return lines;
}

/** A trial's verdict as one character, as the console marks it. */
const VERDICT_MARKS: Record<Verdict, string> = {
  passed: "✓",
  failed: "✗",
  errored: "!",
  skipped: "-",
};

/**
 * A markdown summary for a pull request, written when the run finishes: the judges' calls,
 * tokens and cost when any judge was called, then per eval its cases,
 * pass rate with n and its 95% Wilson interval, mean score with its 95% interval and n (a
 * lower bound "≥ 0.71" when scores were partial) and, when some attempt reported it, the
 * application's usage (also totalled for the run under the headline), then the failing cases with
 * their reasons (the first 50), then, per eval run with trials, its reducers and flaky cases, then
 * the optional comparison.
 * @example
 * markdownReporter("summary.md", { comparison: () => formatComparisonMarkdown(result) })
 */
export function markdownReporter(file: string, options: MarkdownReporterOptions = {}): Reporter {
  return collectingReporter(options.maxFailures ?? 50, (collector, run) =>
    writeFileSync(file, collector.render(run, options.comparison?.())),
  );
}

/**
 * A reporter that feeds a fresh {@link SummaryCollector} each run and calls `finish` once
 * when the run finishes (a second onRunFinished changes nothing).
 */
export function collectingReporter(
  maxFailures: number,
  finish: (collector: SummaryCollector, run: RunSummary) => void,
): Reporter {
  let collector = new SummaryCollector(maxFailures);
  let finished = false;
  return {
    onRunStart() {
      collector = new SummaryCollector(maxFailures);
      finished = false;
    },
    onEvalStart: (info) => collector.onEvalStart(info),
    onCaseFinished: (record) => collector.onCaseFinished(record),
    onEvalFinished: (summary) => collector.onEvalFinished(summary),
    onRunFinished(run) {
      if (finished) return;
      finished = true;
      finish(collector, run);
    },
  };
}

/** "80% (n=10, 49.0–94.3%)", with trials "75% (n=20, 30.1–95.4% over 4 cases)", or "n/a". */
function ratePercent(figure: PassRateFigure): string {
  if (figure.rate === null) return "n/a";
  const ci = figure.interval;
  return `${formatNumber(100 * figure.rate, 1)}% (n=${figure.n}${ci ? `, ${formatNumber(100 * ci.low, 1)}–${formatNumber(100 * ci.high, 1)}%${intervalOver(figure)}` : ""})`;
}

/** "0.71 (n=10, 0.6–0.82)", with trials "0.75 (n=20, 0–1 over 4 cases)", "≥ 0.71 (n=10, 2 partial)" or "n/a". */
function meanText(figure: MeanScoreFigure): string {
  if (figure.mean === null) return "n/a";
  const ci = figure.interval;
  return `${formatMean(figure)} (n=${figure.n}${ci ? `, ${formatNumber(ci.low)}–${formatNumber(ci.high)}${intervalOver(figure)}` : ""}${figure.partial ? `, ${figure.partial} partial` : ""})`;
}
