import { trialLabel } from "../eval/trial-label.js";
import { plural } from "../plural.js";
import { oneLine } from "../report/format.js";
import { cell } from "../report/markdown-cell.js";
import { shownId } from "../report/shown-id.js";
import type { Interval } from "../stats/interval.js";
import {
  alphaText,
  changedCases,
  disagreesText,
  equalDifferencesText,
  erroredTestName,
  evalsOnlyText,
  fewChangedText,
  notMcNemarText,
  passRateTestName,
  pText,
  scoreTestName,
  tooFewText,
  unlistedText,
} from "./notes.js";
import type {
  CaseChange,
  Comparison,
  ComparisonStats,
  JudgmentChange,
  LeftOut,
  PassRateComparison,
  ScoreComparison,
  TooFewToDetect,
} from "./types.js";

// ---------------------------------------------------------------- shared pieces

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const points = (x: number) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)} pts`;
const num = (x: number) => x.toFixed(3);
const signed = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(3)}`;
const range = (i: Interval, f: (x: number) => string) =>
  `${levelText(i.level)} [${f(i.low)}, ${f(i.high)}]`;

/** A confidence level as a percentage with the digits it has: 95%, 97.5%, 99.9%, 99.995%. */
const levelText = (level: number): string => `${Number((level * 100).toPrecision(12))}%`;

const side = (s: CaseChange["base"]) =>
  `${s.passed}/${s.trials} passed${s.score === null ? "" : `, score ${num(s.score)}`}`;

const judgmentLine = (j: JudgmentChange) =>
  `${j.gate ? "gate " : ""}${j.label} (${j.source}): ${judgmentSideText(j.base)} → ${judgmentSideText(j.head)}`;

/** `matched 5/5 "reason"` (points earned, for a judgment that carries them), or "absent". */
const judgmentSideText = (side: JudgmentChange["base"]) =>
  side
    ? `${side.state}${side.points !== undefined ? ` ${side.earned === null ? "–" : fmtPoints(side.earned!)}/${fmtPoints(side.points)}` : ""} "${side.reason}"`
    : "absent";

const fmtPoints = (x: number) => String(Number(x.toPrecision(4)));

/** Whether the score line already says what the pass rate's too-few note would (same units). */
const sameNote = (a: TooFewToDetect, b: TooFewToDetect | null | undefined) =>
  b != null && a.unit === b.unit && a.units === b.units && a.alpha === b.alpha;

function passRateLine(stats: ComparisonStats): string {
  const r = stats.passRate;
  const errored = stats.errored ? erroredText(stats.errored) : "";
  if (!r) return `pass rate: no paired case${errored ? ` but ${errored}` : ""}`;
  const tooFew =
    r.tooFew && !sameNote(r.tooFew, stats.meanScore?.tooFew) ? `; ${tooFewText(r.tooFew)}` : "";
  return `pass rate ${pct(r.base)} → ${pct(r.head)} (${points(r.difference)}, n = ${r.n}; ${r.test.worse} worse, ${r.test.better} better${passRateTestPart(r)}${tooFew}${errored ? `; and ${errored}` : ""})`;
}

/**
 * The pass rate's tests in its line: McNemar's p; beside it, over clusters, the sign-flip test the
 * gate decides by; with trials, only that test, and why McNemar's p is not given.
 */
function passRateTestPart(r: PassRateComparison): string {
  const mcnemar = `, McNemar ${pText(r.test.pValue)}`;
  if (r.decidedBy === "mcnemar") return mcnemar;
  if (r.decidedBy === "cluster-sign-flip")
    return `${mcnemar}; over ${plural(r.paired.clusters!, "cluster")}, sign-flip ${pText(r.pValue)} (the gate's)`;
  return `; ${passRateTestName(r)} ${pText(r.pValue)}, the gate's: ${notMcNemarText(r)}`;
}

/** Cases left out of the pass rate because every trial of a run errored, and what they may hide. */
const erroredText = (errored: NonNullable<ComparisonStats["errored"]>): string =>
  `${plural(errored.cases, "case")} errored in every trial of a run, left out (counted as failures: ${erroredTestName(errored)} ${pText(errored.pValue)})`;

function scoreLine(d: ScoreComparison | null): string {
  if (!d) return "mean score: no case with a complete score in both runs";
  const parts = [
    `mean score ${num(d.meanBase)} → ${num(d.meanHead)} (${signed(d.mean)}, n = ${d.n}${d.clusters === null ? "" : ` in ${d.clusters} clusters`}`,
    // Equal differences' SE of 0 would read as certainty; intervalPart says why there is none.
    d.se === null || d.equalDifferences ? "" : `SE ${num(d.se)}`,
    intervalPart(d),
    d.decidedBy === "permutation"
      ? `${scoreTestName(d)} ${pText(d.pValue)}`
      : `sign-flip ${pText(d.test.pValue)}${d.test.method === "exact" ? " exact" : ""}`,
    d.correlation === null ? "" : `r = ${d.correlation.toFixed(2)}`,
    d.tooFew
      ? tooFewText(d.tooFew)
      : d.mde === null
        ? ""
        : `MDE ${num(d.mde)} at ${Math.round(d.power * 100)}% power`,
  ];
  return `${parts.filter(Boolean).join("; ")})`;
}

/**
 * The score line's interval with its method, or why there is none; nothing where the line's
 * too-few note says it.
 */
function intervalPart(d: ScoreComparison): string {
  if (d.interval)
    return `${range(d.interval, signed)} ${d.method}${d.resamples > 0 ? ` ×${d.resamples}` : ""}`;
  if (d.noInterval === "too-few") return "";
  if (d.noInterval === "few-changed") return `no interval: ${fewChangedText(d.fewChanged!)}`;
  if (d.noInterval === "equal-differences") return `no interval or MDE: ${equalDifferencesText(d)}`;
  if (d.noInterval === "test-disagrees") return `no interval: ${disagreesText(d.intervalSetAside)}`;
  return "no interval";
}

/** The Markdown table's interval cell: the interval with its method, or why there is none. */
function intervalCell(d: ScoreComparison | null): string {
  if (!d) return "–";
  if (d.interval) return `${range(d.interval, signed)} ${d.method}`;
  if (d.noInterval === "too-few") return `none (too few ${d.tooFew!.unit}s)`;
  if (d.noInterval === "few-changed")
    return `none (only ${plural(d.fewChanged!.units, d.fewChanged!.unit)} ${d.fewChanged!.counts === "disagreeing" ? "with trials that disagree" : "changed"})`;
  if (d.noInterval === "equal-differences")
    return d.clusters === null
      ? `none (${d.n} equal differences)`
      : `none (${d.clusters} clusters, equal differences)`;
  if (d.noInterval === "test-disagrees") return "none (the test finds no difference)";
  return "none";
}

/** The Markdown table's MDE cell: the figure, or how many units a gate would need. */
function mdeCell(d: ScoreComparison | null): string {
  if (d?.tooFew) {
    const { needed, unit, alpha } = d.tooFew;
    return `none (${plural(needed, unit)} needed at alpha = ${alphaText(alpha)})`;
  }
  if (d?.equalDifferences) return "none (equal differences)";
  return d?.mde != null ? num(d.mde) : "–";
}

function leftOutLine(left: LeftOut): string | null {
  const parts: string[] = [];
  if (left.partialAttempts) parts.push(`${plural(left.partialAttempts, "partial-score attempt")}`);
  if (left.unavailableAttempts)
    parts.push(plural(left.unavailableAttempts, "unavailable-score attempt"));
  if (left.unscoredCases)
    parts.push(`${plural(left.unscoredCases, "case")} without a complete score in both runs`);
  if (left.skippedCases) parts.push(`${plural(left.skippedCases, "case")} skipped in a run`);
  if (parts.length === 0) return null;
  const named = left.attempts
    .slice(0, 5)
    .map(
      (a) =>
        `${a.run}:${shownId(a.evalId)}/${shownId(a.caseId)}${trialLabel(a.trial, a.trials)} (${a.state})`,
    );
  const more = left.partialAttempts + left.unavailableAttempts - named.length;
  const list = named.length
    ? `; ${named.length + Math.max(more, 0) === 1 ? "the attempt" : "the attempts"}: ${named.join(", ")}${more > 0 ? `, and ${more} more` : ""}`
    : "";
  return `left out of the score: ${parts.join(", ")}${list}`;
}

function transitionsLine(stats: ComparisonStats): string {
  const t = stats.transitions;
  return `${t.passToFail} pass→fail, ${t.becameErrored} became errored, ${t.failToPass} fail→pass, ${rateMoves(t) ? `${t.passRateDown} pass rate down, ${t.passRateUp} pass rate up, ` : ""}${scoreMoves(t) ? `${t.scoreDown} score down, ${t.scoreUp} score up, ` : ""}${t.added} added, ${t.removed} removed, ${t.unchanged} unchanged; ${plural(stats.newFailures, "new failure")}`;
}

/** Cases whose pass share held and whose score moved. */
const scoreMoves = (t: ComparisonStats["transitions"]) => t.scoreDown + t.scoreUp > 0;

/** Cases whose share of passing trials moved short of all-or-none (only with trials). */
const rateMoves = (t: ComparisonStats["transitions"]) => t.passRateDown + t.passRateUp > 0;

/**
 * When cases were added or removed, that the pass rate and mean score are over the paired cases
 * only (so they differ from each run's own figures); null when every case is in both runs.
 */
function unpairedNote(stats: ComparisonStats): string | null {
  const { added, removed } = stats.transitions;
  if (added + removed === 0) return null;
  const only = [removed ? `${removed} only in base` : "", added ? `${added} only in head` : ""];
  return `the pass rate and mean score are over the ${plural(stats.pairs, "paired case")} only, not over the cases only in one run (${only.filter(Boolean).join(", ")}); niceeval runs gives each run's own figures`;
}

const runName = (c: Comparison, which: "base" | "head") => {
  const run = c[which];
  return `${run.name ?? run.runId}${run.git ? ` (${run.git.commit.slice(0, 8)}${run.git.dirty ? ", dirty" : ""})` : ""}`;
};

// ---------------------------------------------------------------- changed cases

const REGRESSIONS = "Regressions";

/**
 * The listed changes by heading, empty ones left out: regressions, improvements, and cases that
 * failed before and now error (neither: their pass share did not move).
 */
function changeGroups(c: Comparison): [string, CaseChange[]][] {
  const all = c.evals.flatMap((e) => e.changes);
  const groups: [string, CaseChange[]][] = [
    [REGRESSIONS, all.filter((change) => change.regression)],
    [
      "Improvements",
      all.filter((change) => !change.regression && change.kind !== "became-errored"),
    ],
    [
      "Now errored (failed before)",
      all.filter((change) => !change.regression && change.kind === "became-errored"),
    ],
  ];
  return groups.filter(([, listed]) => listed.length > 0);
}

/** How many changed cases the lists leave out (each eval lists its first ones), if any. */
function unlistedNote(c: Comparison): string | undefined {
  let changed = 0;
  let listed = 0;
  for (const e of c.evals) {
    changed += changedCases(e.transitions);
    listed += e.changes.length;
  }
  if (listed >= changed) return undefined;
  return `${unlistedText(listed, changed)}; \`compare --json\` counts them all in \`transitions\`.`;
}

// ---------------------------------------------------------------- console

/**
 * A comparison as console text: the decision, regressions, improvements, then statistics; each
 * line one line, its control characters shown (`oneLine`).
 */
export function formatComparison(c: Comparison): string {
  const lines: string[] = [];
  lines.push(`niceeval compare: base ${runName(c, "base")} → head ${runName(c, "head")}`);
  lines.push(
    c.decision.regression
      ? `REGRESSION: ${c.decision.reasons.join("; ")}`
      : `no significant regression at alpha = ${c.alpha}`,
  );
  for (const w of c.warnings) lines.push(`warning: ${w.message}`);
  for (const [title, listed] of changeGroups(c)) {
    lines.push("", `${title}:`);
    for (const change of listed) {
      lines.push(
        `  ${change.kind} ${shownId(change.evalId)}/${shownId(change.caseId)}: ${side(change.base)} → ${side(change.head)}`,
      );
      if (change.error) lines.push(`    error: ${change.error}`);
      for (const j of change.judgments) lines.push(`    ${judgmentLine(j)}`);
    }
  }
  const unlisted = unlistedNote(c);
  if (unlisted) lines.push("", unlisted);
  lines.push("", "Overall:");
  pushStats(lines, c.overall, "  ");
  if (c.evals.length > 1) {
    for (const e of c.evals) {
      lines.push(
        "",
        `Eval ${shownId(e.evalId)}${e.regressed.passRate || e.regressed.meanScore ? " (regressed)" : ""}:`,
      );
      pushStats(lines, e, "  ");
    }
  }
  if (c.addedEvals.length) lines.push(evalsOnlyText("head", c.addedEvals));
  if (c.removedEvals.length) lines.push(evalsOnlyText("base", c.removedEvals));
  // What the runs hold (reasons, errors, names) may break a line or carry control characters: each
  // line stays one, inert, or a reason's next line would be the terminal's, or a CI runner's command.
  return lines.map((line) => oneLine(line, Number.POSITIVE_INFINITY)).join("\n");
}

function pushStats(lines: string[], stats: ComparisonStats, indent: string): void {
  lines.push(`${indent}${plural(stats.pairs, "paired case")}: ${transitionsLine(stats)}`);
  lines.push(`${indent}${passRateLine(stats)}`);
  lines.push(`${indent}${scoreLine(stats.meanScore)}`);
  const unpaired = unpairedNote(stats);
  if (unpaired) lines.push(`${indent}${unpaired}`);
  const left = leftOutLine(stats.leftOut);
  if (left) lines.push(`${indent}${left}`);
}

// ---------------------------------------------------------------- Markdown

/**
 * What the table's "pass rate p" column holds when a row's gate does not decide by McNemar's
 * test: the tests the rows decide by, and why; null when every row's is McNemar's (the column is
 * then "McNemar p").
 */
function passRateTestsNote(rows: readonly ComparisonStats[]): string | null {
  const rates = rows.flatMap((row) => (row.passRate ? [row.passRate] : []));
  if (rates.every((r) => r.decidedBy === "mcnemar")) return null;
  const parts: string[] = [];
  // The last is the run's, over every eval, when there are several.
  const shares = rates.filter((r) => r.decidedBy === "permutation").at(-1);
  if (shares)
    parts.push(
      `the permutation test of each case's trials where cases ran trials (${notMcNemarText(shares)})`,
    );
  if (rates.some((r) => r.decidedBy === "cluster-sign-flip"))
    parts.push("the sign-flip test over the clusters where cases share them");
  if (rates.some((r) => r.decidedBy === "mcnemar"))
    parts.push("McNemar's where every case has one judged trial in both runs");
  return `Pass rate p: the test the gate decides by, ${parts.join("; ")}`;
}

/**
 * The p of the mean score's gate, for the Markdown table: the sign-flip test's alone, or named
 * when the permutation of each case's trials decides (scored trials differ between the runs).
 */
const scoreTestCell = (d: ScoreComparison): string =>
  d.decidedBy === "permutation" ? `${scoreTestName(d)} ${pText(d.pValue)}` : pText(d.pValue);

/** A comparison as Markdown for a pull-request summary: verdict, table per eval, changed cases. */
export function formatComparisonMarkdown(c: Comparison): string {
  const out: string[] = [];
  out.push(`### niceeval: ${cell(runName(c, "base"))} → ${cell(runName(c, "head"))}`, "");
  out.push(
    c.decision.regression
      ? `**Regression** — ${c.decision.reasons.map(cell).join("; ")}`
      : `No significant regression (alpha = ${c.alpha}).`,
    "",
  );
  for (const w of c.warnings) out.push(`> ⚠️ ${cell(w.message)}`);
  if (c.warnings.length) out.push("");
  const rows = [...c.evals, ...(c.evals.length > 1 ? [c.overall] : [])];
  const tests = passRateTestsNote(rows);
  out.push(
    `| eval | n | pass rate | ${tests ? "pass rate p" : "McNemar p"} | mean score Δ | interval | MDE (80%) | changes |`,
    "| --- | ---: | --- | ---: | --- | --- | ---: | --- |",
  );
  const row = (name: string, s: ComparisonStats) => {
    const r = s.passRate;
    const d = s.meanScore;
    const t = s.transitions;
    out.push(
      `| ${name} | ${s.pairs} | ${r ? `${pct(r.base)} → ${pct(r.head)} (${points(r.difference)})` : "–"} | ${r ? pText(r.pValue).replace(/^p [=<] ?/, (m) => (m.includes("<") ? "< " : "")) : "–"} | ${d ? `${signed(d.mean)} (n = ${d.n}, ${scoreTestCell(d)})` : "–"} | ${intervalCell(d)} | ${mdeCell(d)} | ${t.passToFail}↓ ${t.becameErrored}⚠ ${t.failToPass}↑ ${rateMoves(t) ? `${t.passRateDown}↘ ${t.passRateUp}↗ ` : ""}${scoreMoves(t) ? `${t.scoreDown}▾ ${t.scoreUp}▴ ` : ""}+${t.added} −${t.removed} |`,
    );
  };
  // Names as Markdown: an eval id escaped, the total in bold.
  for (const e of c.evals) row(cell(shownId(e.evalId)), e);
  if (c.evals.length > 1) row("**all**", c.overall);
  if (tests) out.push("", `_${cell(tests)}._`);
  const unpaired = unpairedNote(c.overall);
  if (unpaired) out.push("", `_${cell(unpaired[0]!.toUpperCase() + unpaired.slice(1))}._`);
  if (rateMoves(c.overall.transitions))
    out.push(
      "",
      "_changes: ↓ pass→fail, ⚠ became errored, ↑ fail→pass, ↘ pass rate down, ↗ pass rate up (with trials, short of all or none), ▾ score down, ▴ score up (pass share held), + added, − removed_",
    );
  for (const [title, listed] of changeGroups(c)) {
    out.push(
      "",
      `<details${title === REGRESSIONS ? " open" : ""}><summary>${title} (${listed.length})</summary>`,
      "",
    );
    for (const change of listed) {
      out.push(
        `- **${cell(shownId(change.evalId))}/${cell(shownId(change.caseId))}** ${change.kind}: ${side(change.base)} → ${side(change.head)}`,
      );
      if (change.error) out.push(`  - error: ${cell(change.error)}`);
      for (const j of change.judgments) out.push(`  - ${cell(judgmentLine(j))}`);
    }
    out.push("", "</details>");
  }
  const unlisted = unlistedNote(c);
  if (unlisted) out.push("", `_${cell(unlisted)}_`);
  const left = leftOutLine(c.overall.leftOut);
  if (left) out.push("", `_${cell(left)}_`);
  return out.join("\n");
}
