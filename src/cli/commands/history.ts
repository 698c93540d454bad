import { writeSync } from "node:fs";
import { resumedChanges, resumedMark, resumedText } from "../../compare/resumed.js";
import { displayWidth, graphemes, graphemeWidth, padToWidth } from "../../display-width.js";
import { addAppUsageTotals, emptyAppUsageTotals } from "../../eval/app-usage-totals.js";
import { addJudgeUsage, emptyJudgeUsage } from "../../eval/record.js";
import { safeStringify } from "../../json-safe.js";
import { plural } from "../../plural.js";
import { consoleReporter } from "../../report/console-reporter.js";
import { withVerdictReason } from "../../report/failures.js";
import type { Reporter } from "../../report/reporter.js";
import type { EvalSummary } from "../../runner/events.js";
import { runTroubles } from "../../runner/load-troubles.js";
import { EvalAccumulator } from "../../runner/stats.js";
import type { RunSummary } from "../../runner/summary.js";
import { UnavailableTally } from "../../runner/unavailable.js";
import { formatShard } from "../../shard/shard.js";
import type { Interval } from "../../stats/interval.js";
import { importedRunAdvice } from "../../store/imported.js";
import { runFilter } from "../../store/manifest.js";
import { resolveRunRef } from "../../store/resolve.js";
import type { Store, StoredRun } from "../../store/types.js";
import { writerGone } from "../../store/writer.js";
import { closest } from "../../suggest.js";
import { evalRunRow, runRow } from "../../viewer/api.js";
import type { RunsArgs, ShowArgs } from "../args.js";
import { resumeCommand } from "../command-words.js";
import type { CliIO } from "../io.js";
import { latestShardNote } from "../shard-command.js";

/** Runs whose evals `runs --eval` looks through for the id a misspelt one meant. */
const RUNS_SEARCHED = 1000;

/**
 * What follows "no run holds eval X": the eval id of the store's latest runs closest to X (did
 * you mean), or the ids it holds when none is close, or nothing when it holds no eval at all.
 */
async function evalIdHint(store: Store, evalId: string): Promise<string> {
  const ids = new Set<string>();
  for (const run of await store.listRuns({ limit: RUNS_SEARCHED }))
    for (const e of run.evals) ids.add(e.evalId);
  if (ids.size === 0) return "";
  const meant = closest(evalId, ids);
  if (meant !== undefined) return `; did you mean "${meant}"? (niceeval runs --eval ${meant})`;
  const known = [...ids].slice(0, 10).map((id) => `"${id}"`);
  return `; its runs hold eval ${known.join(", ")}${ids.size > 10 ? ", …" : ""}`;
}

/**
 * `niceeval runs`: stored runs, newest first, with pass rates and their intervals; a pass rate is
 * of the attempts that were judged (skipped ones and those a stop cut off aside), and its n says
 * how many.
 */
export async function runsCommand(args: RunsArgs, store: Store, io: CliIO): Promise<number> {
  const runs = await store.listRuns({
    limit: args.limit,
    ...(args.evalId !== undefined ? { evalId: args.evalId } : {}),
  });
  if (args.json) {
    const rows = runs.map((run) =>
      args.evalId !== undefined ? evalRunRow(run, args.evalId) : runRow(run),
    );
    writeSync(io.stdoutFd, `${safeStringify(rows)}\n`);
    return 0;
  }
  if (runs.length === 0) {
    // An empty listing, as a branch with no run is: exit 0, but a misspelt id is said so.
    writeSync(
      io.stdoutFd,
      args.evalId !== undefined
        ? `no run in ${store.location} holds eval "${args.evalId}"${await evalIdHint(store, args.evalId)}\n`
        : `no runs stored in ${store.location}\n`,
    );
    return 0;
  }
  // As wide as the widest name shown (up to NAME_WIDTH): names are whole, or visibly cut.
  const nameWidth = Math.min(
    NAME_WIDTH,
    Math.max(4, ...runs.map((run) => displayWidth(nameCell(run)))),
  );
  const rows = runs.map((run) => runsLine(run, args.evalId, nameWidth));
  // The rate and mean columns as wide as their widest cell (trials add "(N cases)"), so that each
  // stays under its header.
  const rateWidth = Math.max(27, ...rows.map((row) => row.rate.length));
  const meanWidth = Math.max(10, ...rows.map((row) => row.mean.length));
  const lines = [
    `id        ${padToWidth("name", nameWidth)} branch       commit   started (UTC)        status       cases  ${"pass rate (95% CI)".padEnd(rateWidth)} mean score (95% CI)`,
  ];
  if (args.evalId !== undefined)
    lines.unshift(
      `pass rate and mean score of eval "${args.evalId}" (of the whole run when the run has no summaries yet)`,
    );
  for (const row of rows)
    lines.push(
      [row.lead, ` ${row.rate.padEnd(rateWidth)}`, row.mean.padEnd(meanWidth), row.troubles]
        .join(" ")
        .trimEnd(),
    );
  writeSync(io.stdoutFd, `${lines.join("\n")}\n`);
  return 0;
}

/** One run's cells in `niceeval runs`: those before the rate, the rate, the mean, and its troubles. */
function runsLine(
  run: StoredRun,
  evalId: string | undefined,
  nameWidth: number,
): { lead: string; rate: string; mean: string; troubles: string } {
  // With --eval, the eval's own cases and figures (a finished run's summary), not the whole run's.
  const row = evalId !== undefined ? evalRunRow(run, evalId) : runRow(run);
  const figures = { ...row, n: row.attempts - row.skipped - row.interrupted };
  // With trials, the interval counts cases (src/stats/clustered.ts): say how many.
  const over = figures.passRateCases !== null ? ` (${plural(figures.passRateCases, "case")})` : "";
  const rate =
    figures.passRate === null || figures.passRateInterval === null
      ? "—"
      : `${pct(figures.passRate)} [${pct(figures.passRateInterval.low)}, ${pct(figures.passRateInterval.high)}] n=${figures.n}${over}`;
  return {
    lead: [
      run.runId.slice(0, 8).padEnd(9),
      padToWidth(nameCell(run, nameWidth), nameWidth),
      padToWidth(shortened(run.git?.branch ?? "", 12), 12),
      (run.git?.commit ?? "").slice(0, 7).padEnd(8),
      run.startedAt.slice(0, 19).replace("T", " ").padEnd(20),
      row.status.padEnd(12),
      String(row.cases).padStart(5),
    ].join(" "),
    rate,
    mean: meanCell(figures, row.partialAttempts ?? 0),
    troubles: [...runTroubles(run), ...resumedMark(run)].join(", "),
  };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/**
 * A mean score as the reports give it, with its 95% interval when it has one and its n: "0.700
 * [0.360, 1.000] n=5", "≥ 0.500 n=4" when partial scores (a lower bound) are in it.
 */
function meanCell(
  figures: {
    meanScore: number | null;
    meanScoreInterval: Interval | null;
    scoredAttempts: number;
    meanScoreCases: number | null;
  },
  partial: number,
): string {
  const { meanScore: mean, meanScoreInterval: ci } = figures;
  if (mean === null) return "—";
  // With trials, the interval counts cases (src/stats/clustered.ts): say how many.
  const over =
    figures.meanScoreCases !== null ? ` (${plural(figures.meanScoreCases, "case")})` : "";
  const interval = ci ? ` [${ci.low.toFixed(3)}, ${ci.high.toFixed(3)}]` : "";
  return `${partial > 0 ? "≥ " : ""}${mean.toFixed(3)}${interval} n=${figures.scoredAttempts}${over}`;
}

/** The widest the name column grows; a longer name is cut in its middle, with "…". */
const NAME_WIDTH = 48;

/**
 * A run's name, with its shard when it holds one and `[filtered]` when a `--filter` cut its cases,
 * so neither is taken for a whole run; in `room` characters at most, the marks kept whole.
 */
function nameCell(run: StoredRun, room = Number.POSITIVE_INFINITY): string {
  const shard = run.shard ? ` [shard ${formatShard(run.shard)}]` : "";
  const filtered = runFilter(run) !== undefined ? " [filtered]" : "";
  const marks = `${shard}${filtered}`;
  return `${shortened(run.name ?? "", Math.max(1, room - displayWidth(marks)))}${marks}`;
}

/**
 * `text` in `room` columns: whole when it fits, else its start and its end around "…", the end
 * kept longer (it tells apart runs named alike: `evals-1234-1`, `evals-1234-2`); cut between
 * graphemes, so an emoji or a wide character is kept whole or left out.
 */
function shortened(text: string, room: number): string {
  if (displayWidth(text) <= room) return text;
  const parts = graphemes(text);
  const kept = Math.max(0, room - 1);
  let headRoom = Math.floor(kept / 3);
  let tailRoom = kept - headRoom;
  let head = 0;
  while (head < parts.length && graphemeWidth(parts[head]!) <= headRoom)
    headRoom -= graphemeWidth(parts[head++]!);
  let tail = parts.length;
  while (tail > head && graphemeWidth(parts[tail - 1]!) <= tailRoom)
    tailRoom -= graphemeWidth(parts[--tail]!);
  return `${parts.slice(0, head).join("")}…${parts.slice(tail).join("")}`;
}

/** `niceeval show <run>`: a stored run printed exactly like the live report, streamed. */
export async function showCommand(args: ShowArgs, store: Store, io: CliIO): Promise<number> {
  const run = await resolveRunRef(store, args.run);
  if (args.json) {
    writeSync(io.stdoutFd, `{"run":${safeStringify(run)},"records":[`);
    let first = true;
    for await (const record of store.streamAttempts(run.runId)) {
      if (args.failuresOnly && (record.verdict === "passed" || record.verdict === "skipped"))
        continue;
      writeSync(io.stdoutFd, `${first ? "" : ","}\n${safeStringify(withVerdictReason(record))}`);
      first = false;
    }
    writeSync(io.stdoutFd, "\n]}\n");
    // As the report's form: 1 when the run has failed or errored attempts or files that failed to load.
    const { failed, errored } = run.totals;
    return failed + errored > 0 || runTroubles(run).length > 0 ? 1 : 0;
  }
  const shardNote = await latestShardNote(store, args.run, run, args.store);
  if (shardNote) io.stderr(shardNote);
  // Which run this is, before its report: `latest` may be a shard, or a debugging run.
  writeSync(io.stdoutFd, `${runHeading(run)}\n`);
  const filter = runFilter(run);
  const reporter = consoleReporter({
    fd: io.stdoutFd,
    color: io.isTTY && !io.env.NO_COLOR,
    progress: false,
    verbose: !args.failuresOnly,
    // As the live report of a filtered run: its filter named, the evals it selected nothing of left out.
    ...(filter !== undefined ? { filter, hideEmptyEvals: true } : {}),
    ...(run.shard ? { shard: run.shard } : {}),
  });
  const summary = await replay(run, store, reporter);
  const note = unfinishedNote(run, args.store);
  if (note !== undefined) writeSync(io.stdoutFd, `\n${note}\n`);
  const resumed = resumedNote(run);
  if (resumed !== undefined) writeSync(io.stdoutFd, `\n${resumed}\n`);
  return summary.ok ? 0 : 1;
}

/**
 * The line `show` prints above a run's report: its short id, name, shard, `--filter`, start and
 * branch, so a reference such as `latest` is seen to name the run the user meant (or not).
 */
function runHeading(run: StoredRun): string {
  const filter = runFilter(run);
  const parts = [
    `niceeval show: run ${run.runId.slice(0, 8)}${run.name !== undefined ? ` (${run.name})` : ""}${run.shard ? ` [shard ${formatShard(run.shard)}]` : ""}`,
    filter !== undefined ? `--filter ${JSON.stringify(filter)}` : "",
    `started ${run.startedAt.slice(0, 19).replace("T", " ")} UTC`,
    run.git?.branch ? `branch ${run.git.branch}` : "",
    resumedChanges(run).length > 0 ? "resumed with changes (see below)" : "",
  ];
  return parts.filter(Boolean).join(" · ");
}

/**
 * What `show` says after the report of a run resumed with --force after its evals changed: its
 * figures mix the evals' two versions, and how to get figures of one; undefined for another run.
 */
function resumedNote(run: StoredRun): string | undefined {
  if (resumedChanges(run).length === 0) return undefined;
  return `this run was ${resumedText(run)}: its figures mix the two; run the evals again as they are now (a new niceeval run, not --resume --force) for figures of one version`;
}

/** What `show` says after the report of a run that did not finish, or undefined. */
function unfinishedNote(run: StoredRun, storeFlag: string | undefined): string | undefined {
  if (run.status === "finished") return undefined;
  if (run.status === "running" && !writerGone(run)) {
    return `this run is still running: the report holds the attempts stored so far`;
  }
  const why = run.status === "running" ? "crashed: its writer is gone" : run.status;
  const rest = importedRunAdvice(run) ?? `\`${resumeCommand(run.runId, storeFlag)}\` runs the rest`;
  return `this run did not finish (${why}): the report holds the attempts it stored; ${rest}`;
}

/**
 * How long a stored run took: as its live report said (kept with it as it finished), else, for a
 * run stored before that was kept or made by `merge`, from its start to its end; unknown (NaN)
 * for a run that never ended.
 */
function runElapsedMs(run: StoredRun): number {
  if (run.elapsedMs !== undefined && run.status !== "running") return run.elapsedMs;
  return run.endedAt ? Date.parse(run.endedAt) - Date.parse(run.startedAt) : Number.NaN;
}

/** Feed a stored run through a reporter's hooks, as the engine did live. */
export async function replay(
  run: StoredRun,
  store: Store,
  reporter: Reporter,
): Promise<RunSummary> {
  const summaries = new Map((run.summaries ?? []).map((s) => [s.evalId, s]));
  reporter.onRunStart?.({
    runId: run.runId,
    evals: run.evals.length,
    files: new Set(run.evals.map((e) => e.file)).size,
    concurrency: run.concurrency,
    trials: run.trials,
  });
  const evals = run.evals;
  let position = -1;
  const finished: EvalSummary[] = [];
  const startEval = (index: number) => {
    const e = evals[index]!;
    reporter.onEvalStart?.({
      evalId: e.evalId,
      style: e.style,
      ...(e.passFail ? { passFail: true as const } : {}),
      ...(e.file ? { file: e.file } : {}),
      ...(e.trials > 1 ? { trials: e.trials } : {}),
    });
  };
  let accumulator: EvalAccumulator | undefined;
  const endEval = (index: number) => {
    const e = evals[index]!;
    // How long an eval took is stored with the run's end: unknown for a run that never ended.
    const summary = (accumulator ?? new EvalAccumulator(e.evalId, e.style, e.trials)).finish(
      summaries.get(e.evalId)?.elapsedMs ?? Number.NaN,
    );
    accumulator = undefined;
    finished.push(summary);
    reporter.onEvalFinished?.(summary);
  };
  const advanceTo = (evalId: string) => {
    while (position < evals.length - 1 && evals[position]?.evalId !== evalId) {
      if (position >= 0) endEval(position);
      position++;
      startEval(position);
    }
    if (accumulator === undefined && position >= 0) {
      const e = evals[position]!;
      accumulator = new EvalAccumulator(e.evalId, e.style, e.trials);
    }
  };
  // The run's summary line of unavailable judgments is counted again from its attempts.
  const unavailable = new UnavailableTally();
  for await (const record of store.streamAttempts(run.runId)) {
    advanceTo(record.evalId);
    accumulator?.add(record);
    unavailable.add(record, evals[position]?.trials ?? 1);
    reporter.onCaseFinished?.(record);
  }
  if (position >= 0) endEval(position);
  for (position++; position < evals.length; position++) {
    startEval(position);
    endEval(position);
  }
  const t = run.totals;
  const summary: RunSummary = {
    runId: run.runId,
    startedAt: run.startedAt,
    elapsedMs: runElapsedMs(run),
    evals: finished,
    totals: {
      // As the live run counted them: under a --filter or a shard, the evals that ran a case.
      evals:
        runFilter(run) !== undefined || run.shard
          ? finished.filter((s) => s.cases > 0).length
          : run.evals.length,
      cases: t.attempts,
      passed: t.passed,
      failed: t.failed,
      errored: t.errored,
      skipped: t.skipped,
      interrupted: finished.reduce((sum, s) => sum + (s.interrupted ?? 0), 0),
    },
    judge: finished.reduce((sum, s) => addJudgeUsage(sum, s.judge), emptyJudgeUsage()),
    app: finished.reduce((sum, s) => addAppUsageTotals(sum, s.app), emptyAppUsageTotals()),
    unavailable: unavailable.summary(),
    loadErrors: run.loadErrors ?? [],
    ...(run.shard ? { shard: run.shard } : {}),
    ...(run.runErrors?.length ? { runErrors: run.runErrors } : {}),
    ok:
      t.failed === 0 &&
      t.errored === 0 &&
      run.status === "finished" &&
      runTroubles(run).length === 0,
    cancelled: run.status === "interrupted",
  };
  await reporter.onRunFinished?.(summary);
  return summary;
}
