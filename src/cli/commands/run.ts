import { randomUUID } from "node:crypto";
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  rmSync,
  statSync,
} from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { formatComparison, formatComparisonMarkdown } from "../../compare/format.js";
import type { Comparison } from "../../compare/types.js";
import { errorMessage, NiceevalError } from "../../errors.js";
import type { CaseSpec } from "../../eval/runnable.js";
import { closeAnswerStores } from "../../judge/cache.js";
import { configureJudges } from "../../judge/config.js";
import { defaultJudgeModels } from "../../judge/registry.js";
import { checkOtelEndpoints, otelEnabled, otelSink } from "../../otel/index.js";
import { redactUrl } from "../../redact-url.js";
import { consoleReporter } from "../../report/console-reporter.js";
import { inGithubActions } from "../../report/github-reporter.js";
import type { Reporter } from "../../report/reporter.js";
import {
  createReporter,
  parseReporterFlag,
  type ReporterSpec,
  refuseRepeatedReporters,
} from "../../report/reporter-flag.js";
import { writeText } from "../../report/write-fd.js";
import { type ContinuedRun, continueRun, findContinuation } from "../../resume/continue.js";
import type { RunEntry } from "../../runner/entry.js";
import type { Executor } from "../../runner/executor.js";
import { type RunOptions, runEvals } from "../../runner/run.js";
import type { RunSink } from "../../runner/sink.js";
import { trialsOf } from "../../runner/source.js";
import { NO_CASE_GATE, type RunSummary } from "../../runner/summary.js";
import { lastResortMs } from "../../runner/watchdog.js";
import { type Shard, shardSelector } from "../../shard/shard.js";
import { SequenceHash } from "../../store/hash.js";
import { takenNameWarning } from "../../store/resolve.js";
import { storeSink } from "../../store/sink.js";
import type { RunManifest, Store, StoredRun } from "../../store/types.js";
import { damagedStore, movedStore, refusedWrite } from "../../store/write-failure.js";
import { thisWriter } from "../../store/writer.js";
import { guardRun, runExecutor } from "../../supervisor/index.js";
import type { AheadPlan } from "../../supervisor/protocol.js";
import type { RunArgs } from "../args.js";
import {
  type CreatedStoreNote,
  createdStoreNote,
  findBaseline,
  partialBaselineNote,
  unfinishedBaselineNote,
  unknownBranch,
} from "../baseline.js";
import { resumeCommand } from "../command-words.js";
import { discoverEvalFiles } from "../discover.js";
import { makeFilter, regexFilterHint } from "../filter.js";
import { emptyShardNote, filterReachSelector, filterSelectedNothing } from "../filter-reach.js";
import { evalGates, type UnmetGate } from "../gates.js";
import { takeGitState, withEvalFiles } from "../git-state.js";
import type { CliIO } from "../io.js";
import { loadEvals } from "../load-evals.js";
import { buildManifest } from "../manifest.js";
import { CONSOLE, ReportTargets } from "../report-targets.js";
import { openStoreAt, storeExists, storeLocation, storeSource } from "../store.js";
import { storeOutageHooks } from "../store-outage.js";
import { userOutputToStderr } from "../user-output.js";
import { compareWith, regressionGates, regressionReasons } from "./compare.js";

/** `niceeval run`: load eval files, run them into the store and the reporters, apply the gates. */
export async function runCommand(given: RunArgs, io: CliIO, version: string): Promise<number> {
  // --resume / --retry-errors: the stored run and its own files and options, before anything loads.
  const continuation = given.resume ? await findContinuation(given, io) : undefined;
  const args = continuation?.args ?? given;
  const files = await discoverEvalFiles(args.paths, { cwd: io.cwd, exclude: args.exclude });
  if (files.length === 0) {
    throw new NiceevalError(
      "USAGE",
      `no eval files found in ${args.paths.length ? args.paths.join(", ") : "./evals or ./examples"}. Eval files are named *.eval.ts or *.eval.js (also .tsx, .mts, .cts, .mjs, .cjs).`,
    );
  }
  if (args.baseline !== undefined && args.noStore) {
    throw new NiceevalError("USAGE", "--baseline needs the store; drop --no-store");
  }
  const specs = reporterSpecs(args, io, files);
  // `ndjson=-` owns standard output; the human report and the comparison go to stderr.
  // What the code under test prints goes with the human report (the eval process's stdout is
  // `reportFd`; in this process, `process.stdout` is sent to stderr).
  const ndjsonToStdout = specs.some((spec) => spec.kind === "ndjson" && spec.target === "-");
  const reportFd = ndjsonToStdout ? 2 : io.stdoutFd;
  if (ndjsonToStdout && io.stdoutFd === 1) userOutputToStderr();
  // A bad --filter or OTLP endpoint is a usage error before anything opens.
  const filter = args.filter !== undefined ? makeFilter(args.filter) : undefined;
  if (otelEnabled(args.otel === true, io.env)) checkOtelEndpoints(io.env);
  if (!args.cache) configureJudges({ cache: false });
  // Signals are the run's from here: one while the files load ends the loading, and the run
  // still writes its (empty, interrupted) reports.
  const abort = new AbortController();
  let interruptAttempts = (_reason: string) => {};
  // Until the run is stored, a stop leaves nothing to resume.
  let resumable = () => false;
  const guard = guardRun({
    abort,
    graceMs: args.graceMs,
    interrupt: (reason) => interruptAttempts(reason),
    resumable: () => resumable(),
    stderr: io.stderr,
    ...(io.heldSignals ? { held: io.heldSignals } : {}),
  });
  try {
    return await runOpened(
      { args, io, version, files, reportFd, filter, continuation, specs },
      {
        abort,
        guard,
        onExecutor: (executor) => {
          interruptAttempts = (reason) => executor.interrupt(reason);
        },
        onResumable: (when) => {
          resumable = when;
        },
      },
    );
  } finally {
    guard.dispose();
  }
}

/** What {@link runOpened} runs: the command's arguments, as checked. */
interface RunSetup {
  args: RunArgs;
  io: CliIO;
  version: string;
  files: string[];
  reportFd: number;
  filter: RunOptions["filter"];
  continuation: Awaited<ReturnType<typeof findContinuation>> | undefined;
  specs: ReturnType<typeof reporterSpecs>;
}

/** The signal guard of a run and the abort it drives (see guardRun). */
interface Guarding {
  abort: AbortController;
  guard: ReturnType<typeof guardRun>;
  onExecutor: (executor: Execution["executor"]) => void;
  /** From when the run is stored: whether `--resume` can continue it if a signal stops it now. */
  onResumable: (resumable: () => boolean) => void;
}

/** Open the store and the executor, load the evals, run them, and say how it went. */
async function runOpened(setup: RunSetup, guarding: Guarding): Promise<number> {
  const { args, io, version, files, reportFd, filter, continuation, specs } = setup;
  const opened = await openExecution(args, files, io, reportFd);
  const { queued, executor, git } = opened;
  guarding.onExecutor(executor);
  try {
    const loadStarted = performance.now();
    const loaded = await loadUntilSignal(executor, files, args, io, guarding.abort.signal);
    // A continuation stopped before its evals loaded has nothing to compare with the run's, and
    // nothing to add: the stored run is left as it was, and only the reports are written.
    const store = loaded.cut && continuation ? undefined : opened.store;
    if (loaded.cut && continuation) {
      const { runId } = continuation.run;
      const again = resumeCommand(runId, args.store, continuation.mode);
      io.stderr(
        `niceeval: run ${runId.slice(0, 8)} is left in the store as it was; \`${again}\` continues it\n`,
      );
    }
    const evalIds = loaded.entries.map((e) => e.eval.id);
    const ownTrials = ownTrialsNote(args.trials, loaded.entries);
    if (ownTrials) io.stderr(ownTrials);
    // The baseline is found before the run is stored, so `latest` is the run before this one and
    // a reference that names no run is a usage error before anything runs.
    const baseline =
      store && args.baseline !== undefined
        ? await findBaseline(store, args.baseline, evalIds, {
            ...(args.shard ? { shard: args.shard } : {}),
            ...(args.filter !== undefined ? { filter: args.filter } : {}),
          })
        : undefined;
    const unfinished = baseline && unfinishedBaselineNote(args.baseline!, baseline);
    if (unfinished) io.stderr(unfinished);
    // A baseline of fewer cases than this run (a debugging run with --filter): said, not hidden.
    const partial = baseline && partialBaselineNote(args.baseline!, baseline, evalIds, args.filter);
    if (partial) io.stderr(partial);
    const misnamed =
      store && args.baseline !== undefined && !baseline
        ? await unknownBranch(store, args.baseline)
        : undefined;
    if (misnamed) io.stderr(misnamed.note);
    const created =
      store && args.baseline !== undefined && !baseline && opened.created !== undefined
        ? createdStoreNote(args.baseline, opened.created, io.cwd)
        : undefined;
    if (created) io.stderr(created.warning);
    const runId = continuation?.run.runId ?? randomUUID();
    const datasets = loaded.entries.map(() => ({ hash: new SequenceHash(), read: false }));
    const sinks = await runSinks({
      args,
      io,
      version,
      store,
      runId,
      specs,
      reportFd,
      baseline,
      ...(misnamed?.likely !== undefined ? { likelyBranch: misnamed.likely } : {}),
      ...(created ? { createdStore: created } : {}),
      entries: loaded.entries,
      files,
      datasets,
      continuation,
      git,
      loadMs: performance.now() - loadStarted,
      // A store found damaged mid-run: no new case starts, and attempts in flight are told to stop.
      stop: (reason) => guarding.abort.abort(reason),
      stopSignals: (listener) => guarding.guard.onSignal(listener),
    });
    // A store that refused a write, was found damaged, or never took the run takes no --resume.
    if (store) guarding.onResumable(sinks.resumable);
    const summary = await runGuarded(loaded.entries, guarding, {
      args,
      io,
      runId,
      store,
      datasets,
      filter,
      sinks,
      loadErrors: loaded.errors,
      executor,
      queued,
      evalIds,
      keep: store !== undefined || specs.some((s) => s.kind === "json" || s.kind === "ndjson"),
    });
    return endOfRun(summary, guarding.guard, sinks, {
      args,
      io,
      store,
      runId,
      reportFd,
      evalIds,
      runErrors: summary.runErrors?.length ?? 0,
    });
  } finally {
    await closeRun(executor, opened.store);
  }
}

/**
 * End the run's eval process and close its stores. The eval process was told to end as the run's
 * last attempt ended; its exit (Node's own teardown, 10 to 30 ms on a busy machine) and the
 * stores' closing (a checkpoint and its fsyncs) overlap rather than follow each other. Both are
 * waited for; then the first failure, the eval process's first, is thrown.
 */
async function closeRun(executor: Executor, store: Store | undefined): Promise<void> {
  const settled = await Promise.allSettled([
    executor.close?.(),
    (async () => {
      await store?.close();
      await closeAnswerStores();
    })(),
  ]);
  for (const outcome of settled) if (outcome.status === "rejected") throw outcome.reason;
}

/**
 * The run's evals, or, when a signal comes while the files load, none (`cut`): nothing ran, and
 * the run ends with its reports.
 */
async function loadUntilSignal(
  executor: Execution["executor"],
  files: readonly string[],
  args: RunArgs,
  io: CliIO,
  signal: AbortSignal,
): Promise<Awaited<ReturnType<typeof loadEvals>> & { cut: boolean }> {
  const loaded = await untilAborted(loadEvals(executor, files, io.cwd, args.hangTimeoutMs), signal);
  if (loaded !== undefined) return { ...loaded, cut: false };
  io.stderr("niceeval: the eval files were still loading: no case ran\n");
  return { entries: [], errors: [], cut: true };
}

/**
 * The exit code of a run the engine has finished, and what it says on the way: an interrupted
 * run's code, stored attempts no longer reached, the gates and the comparison (outcome), then 2
 * when the store or a report did not take the run whole.
 */
function endOfRun(
  summary: RunSummary,
  guard: Guarding["guard"],
  sinks: Awaited<ReturnType<typeof runSinks>>,
  run: {
    args: RunArgs;
    io: CliIO;
    store: Store | undefined;
    runId: string;
    reportFd: number;
    evalIds: readonly string[];
    runErrors: number;
  },
): number {
  const { args, io, store } = run;
  if (guard.exitCode !== undefined) {
    // The comparison the JSON report holds is shown on the console too.
    printComparison(run.reportFd, sinks.compared);
    io.stderr(
      `${interruptedLine(`${guard.signal}`, store?.location, sinks, run, summary.cancelled)}\n`,
    );
    return guard.exitCode;
  }
  const unreached = summary.cancelled ? 0 : (sinks.continued?.unreached() ?? 0);
  if (unreached > 0)
    io.stderr(
      `niceeval: ${unreached === 1 ? "1 stored attempt of this run belongs" : `${unreached} stored attempts of this run belong`} to cases its evals no longer give (a dataset changed since the run started); they stay in the store and count in its totals, so the report and \`show\` differ. Start a new run to compare like with like\n`,
    );
  const code = outcome({ ...summary, ok: sinks.engineOk() ?? summary.ok }, args, io, {
    reportFd: run.reportFd,
    compared: sinks.compared,
    evalIds: run.evalIds,
    runErrors: run.runErrors,
  });
  if (sinks.storeFailed()) {
    // Said when the write failed; a run that passed must not look stored to CI (--baseline).
    io.stderr(
      `${notStoredWhole(store!.location, run.runId, storeFailure(sinks), sinks.unwritten(), args.store)}\n`,
    );
    return 2;
  }
  if (summary.reportErrors?.length) {
    // A report that stopped (said when it failed) is missing evidence: not a pass.
    io.stderr(
      "niceeval: a report could not be written whole (see above), so the run exits 2; fix its destination and run again\n",
    );
    return 2;
  }
  return code;
}

/**
 * What a run stopped by a signal holds: the report every attempt that finished, and the store too
 * unless a write to it failed (then how many it lacks, and the resume that runs them).
 */
function interruptedLine(
  signal: string,
  location: string | undefined,
  sinks: RunSinks,
  run: { runId: string; args: RunArgs },
  cut: boolean,
): string {
  const head = `niceeval: interrupted by ${signal}`;
  if (location === undefined) return `${head}; the report holds every attempt that finished`;
  const resume = `\`${resumeCommand(run.runId, run.args.store)}\``;
  if (!sinks.storeFailed())
    // A signal after the last attempt (while the run's end waited for its OpenTelemetry export)
    // left nothing to run: the stored run is finished, and a resume of it would be refused.
    return cut
      ? `${head}; the report and the store hold every attempt that finished${sinks.resumable() ? `; ${resume} runs the rest` : ""}`
      : `${head} after its last attempt; the report and the store hold the whole run`;
  const { lost, given } = sinks.unwritten();
  const count = lost > 0 ? `: ${lost} of its ${given} attempts were not written` : "";
  const way = sinks.resumable() ? `; once it answers, ${resume} runs the rest` : "";
  return `${head}; the report holds every attempt that finished, but the store ${location} does not${count} (see above)${way}`;
}

/** Which way on {@link notStoredWhole} gives, from what the store's sink saw. */
function storeFailure(sinks: RunSinks): StoreFailure {
  if (sinks.storeMoved()) return "moved";
  if (sinks.storeDamaged()) return "damaged";
  if (sinks.storeRefused()) return "refused";
  return sinks.neverStored() ? "unwritten" : "unreached";
}

type StoreFailure = "unreached" | "unwritten" | "refused" | "damaged" | "moved";

/**
 * Why a run exits 2 when its store did not take it whole, and the way on: a store that could not
 * be reached or stayed locked takes the rest with --resume once it answers; a write it refused
 * for what it held would be refused again, and a damaged file takes no write at all, so resuming
 * is no way on for either; a file deleted or replaced mid-run left a copy to resume in.
 */
function notStoredWhole(
  location: string,
  runId: string,
  why: StoreFailure,
  { lost, given }: { lost: number; given: number },
  storeFlag: string | undefined,
): string {
  if (why === "unwritten")
    return `niceeval: the run is not stored in ${location} at all: its first write failed (see above), so it exits 2; once the store answers again, run it again (or pass --store <other path>)`;
  const unwritten = lost > 0 ? `: ${lost} of its ${given} attempts were not written` : "";
  const head = `niceeval: the run is not stored whole in ${location} (see above)${unwritten}, so it exits 2`;
  if (why === "moved")
    return `${head}; its file was deleted or replaced while the run wrote to it, so no case started once that was found. Continue the run in the copy named above (\`niceeval run --resume ${runId.slice(0, 8)} --store <copy>\`), or run again`;
  if (why === "damaged")
    return `${head}; the store is damaged and takes no write, so no case started once that was found and \`--resume\` cannot continue the run there. Restore the store from a copy or move it away, or pass --store <other path> (or --no-store), and run again`;
  if (why === "refused")
    return `${head}; --resume would write the same value and be refused again. Report the refused write above as a niceeval bug, and until it is fixed run with --no-store`;
  return `${head}; once the store answers again, \`${resumeCommand(runId, storeFlag)}\` keeps the attempts it holds and runs the rest (or pass --store <other path> and run again)`;
}

/** What the run says when a write to its store failed: refused for its content, or not taken. */
function storeWriteFailed(location: string, error: unknown): string {
  // The store's sentence inside this line's brackets, without its own full stop.
  const said = errorMessage(error).replace(/\.$/, "");
  if (refusedWrite(error))
    return `niceeval: the store ${location} refused a value this run wrote (${said}): niceeval wrote something the store does not accept, a niceeval bug; please report it with this line. The report is still written\n`;
  return `niceeval: writing the run to ${location} failed (${said}); the report is still written\n`;
}

type Execution = Awaited<ReturnType<typeof openExecution>>;

/** What {@link runGuarded} runs the engine with. */
interface GuardedRun {
  args: RunArgs;
  io: CliIO;
  runId: string;
  store: Store | undefined;
  datasets: DatasetRead[];
  filter: RunOptions["filter"];
  sinks: Awaited<ReturnType<typeof runSinks>>;
  loadErrors: NonNullable<RunOptions["loadErrors"]>;
  executor: Execution["executor"];
  queued: Execution["queued"];
  evalIds: readonly string[];
  /** Keep each attempt's case and output: the run is stored, or a report writes records whole. */
  keep: boolean;
}

/**
 * The engine's run under the signal guard: a first signal stops new attempts and lets those in
 * flight finish (the guard's exit code says the run was interrupted); an engine that fails marks
 * the stored run crashed instead of leaving it "running".
 */
async function runGuarded(
  entries: readonly RunEntry[],
  { abort, guard }: Guarding,
  run: GuardedRun,
): Promise<RunSummary> {
  const { args, runId, store, executor, sinks } = run;
  try {
    const { keep } = run;
    const options: RunOptions = {
      // Cases read in the eval process are waited for there.
      ...runOptions(
        args,
        runId,
        keep,
        store ? run.datasets : undefined,
        !("readCases" in executor),
      ),
      ...(run.filter ? { filter: run.filter } : {}),
      reporters: sinks.reporters,
      signal: abort.signal,
      loadErrors: run.loadErrors,
      outsideErrors: guard.errors,
      executor,
      // Attempts wait in the queue for a free worker; each worker bounds its own attempts. A
      // supervised attempt is bounded by its eval process (--timeout there), and a process that
      // blocks or hangs is killed and its attempts in flight run again: a limit here, counted
      // from the first start, would error those that were only waiting behind it.
      ...(run.queued
        ? { caseTimeoutMs: run.queued.waitLimitMs }
        : "runAhead" in executor
          ? { caseTimeoutMs: SUPERVISED_WAIT_LIMIT_MS }
          : {}),
    };
    const { continued } = sinks;
    // The eval process reads the same cases and runs them without being sent each one; in a
    // continued run it skips those the engine reads back from the store, and runs the rest
    // while the engine replays those.
    if ("runAhead" in executor) {
      const readOnce = entries.filter((entry) => entry.eval.readsOnce).map((e) => e.eval.id);
      executor.runAhead?.(aheadPlan(runId, args, keep, continued?.kept, readOnce), run.evalIds);
    }
    // A continued run reads its kept attempts back from the store instead of running them.
    return await runEvals(entries, continued ? continued.withSource(options) : options);
  } catch (error) {
    // The engine itself failed: the stored run says so instead of staying "running".
    const endedAt = new Date().toISOString();
    await store?.finishRun(runId, { status: "crashed", endedAt, summaries: [] }).catch(() => {});
    throw error;
  }
}

/** The promise's value, or undefined once the signal is aborted (at once if it already is). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** The --baseline comparison and its note, on the console report. */
function printComparison(reportFd: number, compared: BaselineStep | undefined): void {
  const comparison = compared?.comparison();
  // A reader that left (`| head`) misses these lines; the exit code is still the run's.
  if (comparison) writeText(reportFd, `\n${formatComparison(comparison)}\n`);
  const note = compared?.note();
  if (note !== undefined) writeText(reportFd, `\n${note}\n`);
}

/**
 * After a finished run: the comparison with the baseline (after the report: the console reporter
 * buffers its lines until the run ends), then the exit code; a filter that selected nothing is a
 * usage error (2), so CI cannot pass by running nothing.
 */
function outcome(
  summary: RunSummary,
  args: RunArgs,
  io: CliIO,
  run: {
    reportFd: number;
    compared: BaselineStep | undefined;
    evalIds: readonly string[];
    runErrors: number;
  },
): number {
  const comparison = run.compared?.comparison();
  printComparison(run.reportFd, run.compared);
  if (filterSelectedNothing(args, summary)) {
    io.stderr(
      `niceeval: ${noCaseMessage(args.filter!)}. Evals found: ${run.evalIds.join(", ") || "none"}\n`,
    );
    const hint = regexFilterHint(args.filter!);
    if (hint !== undefined) io.stderr(`niceeval: ${hint}\n`);
    return 2;
  }
  const comparisonFailed = run.compared?.failure();
  return exitCode(summary, args, io, {
    runErrors: run.runErrors,
    ...(comparison ? { comparison } : {}),
    ...(comparisonFailed !== undefined ? { comparisonFailed } : {}),
  });
}

/**
 * Where the run's attempts run and its records go: the queue executor (--queue: Redis is checked,
 * exit 2 when unreachable, before the store or any case), the store (unless --no-store), and the
 * supervised or in-process executor; and, for the stored manifest, the checkout's git state.
 */
async function openExecution(
  args: RunArgs,
  files: readonly string[],
  io: CliIO,
  evalStdoutFd: number,
) {
  // Read while the store opens and the files load: the stored manifest and queued jobs need it.
  const git =
    args.noStore && args.queue === undefined
      ? undefined
      : withEvalFiles(takeGitState(io.cwd), io.cwd, files);
  const queued =
    args.queue !== undefined ? await openQueue(args, args.queue, files, io, git) : undefined;
  const location = args.noStore ? undefined : storeLocation(args.store, io.env);
  // A SQLite store that is not there yet is created by opening it: --baseline then has nothing
  // to compare with, and says why.
  const created = location !== undefined && !storeExists(location, io.cwd) ? location : undefined;
  const store = location === undefined ? undefined : await openStoreAt(location, io.cwd);
  const executor =
    queued ??
    runExecutor({
      supervise: args.supervise,
      files,
      cwd: io.cwd,
      judgeCache: args.cache,
      hangTimeoutMs: args.hangTimeoutMs,
      stdoutFd: evalStdoutFd,
      stderr: io.stderr,
    });
  return { queued, store, executor, git, created };
}

/**
 * The queue executor of `--queue` or NICEEVAL_QUEUE. A run the variable sends to the queue says so
 * first: set for workers, it may not be meant for this run, which `--no-queue` keeps here.
 */
async function openQueue(
  args: RunArgs,
  url: string,
  files: readonly string[],
  io: CliIO,
  git: ReturnType<typeof takeGitState> | undefined,
) {
  const [{ openQueueExecutor }, { DEFAULT_QUEUE_NAME }] = await Promise.all([
    import("../../queue/executor.js"),
    import("../../queue/job.js"),
  ]);
  if (args.queueFrom === "NICEEVAL_QUEUE")
    io.stderr(
      `niceeval: attempts go to queue ${args.queueName ?? DEFAULT_QUEUE_NAME} on ${redactUrl(url)} (from NICEEVAL_QUEUE); --no-queue runs them here\n`,
    );
  return openQueueExecutor({
    url,
    ...(args.queueFrom !== undefined ? { source: args.queueFrom } : {}),
    ...(args.queueName !== undefined ? { queueName: args.queueName } : {}),
    files,
    paths: args.paths,
    exclude: args.exclude,
    cwd: io.cwd,
    stderr: io.stderr,
    continuation: args.resume !== undefined,
    ...(git ? { commit: git.then((state) => state?.commit) } : {}),
  });
}

/** The engine's last-resort limit on a supervised attempt: the longest timer, as for a queue. */
const SUPERVISED_WAIT_LIMIT_MS = 2 ** 31 - 1 - 1000;

/** What `runSinks` needs to know of the run. */
interface RunSinksOf {
  args: RunArgs;
  io: CliIO;
  version: string;
  store: Store | undefined;
  runId: string;
  specs: readonly ReporterSpec[];
  reportFd: number;
  baseline: StoredRun | undefined;
  /** The branch `--baseline branch:NAME` most likely meant, when the store has no NAME. */
  likelyBranch?: string;
  /** What to say when --baseline found nothing because this run created its store. */
  createdStore?: CreatedStoreNote;
  entries: readonly RunEntry[];
  files: readonly string[];
  datasets: readonly DatasetRead[];
  continuation: Awaited<ReturnType<typeof findContinuation>> | undefined;
  /** The checkout's state, read while the files load. */
  git: Promise<RunManifest["git"]> | undefined;
  /** How long the eval files took to load, ms (the console report says it beside the run's time). */
  loadMs: number;
  /** Stop the run as a first signal does: no new case starts, attempts in flight see the abort. */
  stop: (reason: Error) => void;
  /** The run guard's signals, first to a listener that takes them (RunGuard.onSignal). */
  stopSignals: (listener: (signal: string) => boolean) => () => void;
}

/** The run's sinks, and what the store's saw. */
interface RunSinks {
  reporters: RunSink[];
  continued: ContinuedRun | undefined;
  compared: BaselineStep | undefined;
  /** A write to the store failed: the run is not stored whole. */
  storeFailed: () => boolean;
  /** The store refused what a write held (a constraint), rather than not answering. */
  storeRefused: () => boolean;
  /** A write found the store's file damaged, or moved: the run stopped starting cases then. */
  storeDamaged: () => boolean;
  /** A write found the store's file deleted or replaced (its attempts saved to a copy). */
  storeMoved: () => boolean;
  /** The run's first write failed: the store does not hold the run at all. */
  neverStored: () => boolean;
  /** The attempts given to the store, and those a failed write left unwritten. */
  unwritten: () => { lost: number; given: number };
  /** `--resume` can continue the run where it is stored (the interrupted run's advice). */
  resumable: () => boolean;
  /** The run's `ok` before the gates (the reports were given it after). */
  engineOk: () => boolean | undefined;
}

/**
 * The run's sinks, in the order they finish: the store (the run is finished in it before the
 * baseline comparison reads it), the comparison with --baseline, the reporters, and last the
 * OpenTelemetry export (its flush at the end waits for nothing else; the SDK loads only then).
 */
async function runSinks(run: RunSinksOf): Promise<RunSinks> {
  const { args, io, store } = run;
  // The comparison is computed after the run, but the markdown and GitHub reporters ask for it.
  let compared: BaselineStep | undefined;
  let storeFailed = false;
  let storeRefused = false;
  let storeDamaged = false;
  let storeMoved = false;
  let recorded: Awaited<ReturnType<typeof recordRun>> | undefined;
  let continued: ContinuedRun | undefined;
  if (store) {
    if (args.name !== undefined && !args.resume) {
      const taken = await takenNameWarning(store, args.name, run.runId);
      if (taken) io.stderr(`niceeval: warning: ${taken}\n`);
    }
    recorded = await recordRun(store, {
      ...run,
      git: await run.git,
      onError: (error) => {
        storeFailed = true;
        storeRefused = refusedWrite(error);
        storeMoved = movedStore(error);
        storeDamaged = damagedStore(error) || storeMoved;
        if (!storeDamaged) {
          io.stderr(storeWriteFailed(store.location, error));
          return;
        }
        // No write to it will succeed: the cases not started yet would run for nothing.
        io.stderr(
          `niceeval: ${errorMessage(error)}\nniceeval: the run stops: no new case starts\n`,
        );
        run.stop(new Error("stopped for a damaged or moved store"));
      },
    });
    continued = recorded.continued;
  }
  // Opened once the store took the run: a run refused there (exit 2) leaves no report file.
  const reporters: RunSink[] = [
    ...(recorded ? [recorded.sink] : []),
    ...buildReporters(
      run.specs,
      args,
      io,
      run.reportFd,
      run.loadMs,
      () => {
        const comparison = compared?.comparison();
        return comparison ? formatComparisonMarkdown(comparison) : run.createdStore?.markdown;
      },
      () => compared?.comparison(),
    ),
  ];
  compared =
    store && args.baseline !== undefined
      ? baselineStep(store, args, run, () => storeFailed, io)
      : undefined;
  if (compared?.sink) reporters.splice(1, 0, compared.sink);
  // After the store and the comparison, before the reports: they show the run's own verdict.
  const judged = verdictSink(args, compared, () => storeFailed);
  const marked = args.shard ? [shardMark(args.shard)] : [];
  reporters.splice((store ? 1 : 0) + (compared?.sink ? 1 : 0), 0, judged, ...marked);
  if (otelEnabled(args.otel === true, io.env)) {
    const runName = args.name !== undefined ? { runName: args.name } : {};
    const skip = continued ? { skip: continued.skip } : {};
    reporters.push(
      await otelSink({
        version: run.version,
        env: io.env,
        stderr: io.stderr,
        ...runName,
        ...skip,
        // The SDK says what a collector rejected of a batch only on the diag logger.
        diagnostics: true,
        // Ctrl-C while the run's end waits for the collector ends that wait.
        stopSignals: run.stopSignals,
      }),
    );
  }
  // A new run whose first write failed is not in the store at all: there is nothing to resume.
  const neverStored = () => !continued && recorded?.sink.written() === false;
  return {
    reporters,
    continued,
    compared,
    storeFailed: () => storeFailed,
    storeRefused: () => storeRefused,
    storeDamaged: () => storeDamaged,
    storeMoved: () => storeMoved,
    neverStored,
    unwritten: () => recorded?.sink.unwritten() ?? { lost: 0, given: 0 },
    resumable: () => !storeRefused && !storeDamaged && !neverStored(),
    engineOk: judged.engineOk,
  };
}

/**
 * Which evals `--trials` does not apply to, because they set `trials` of their own (which wins):
 * said once on stderr, so that a run with fewer or more trials than asked is not a surprise.
 */
function ownTrialsNote(trials: number | undefined, entries: readonly RunEntry[]): string {
  if (trials === undefined) return "";
  const own = entries.filter(
    ({ eval: runnable }) => runnable.trials !== undefined && trialsOf(runnable.trials) !== trials,
  );
  if (own.length === 0) return "";
  const named = own.map(({ eval: e }) => `"${e.id}" (${trialsOf(e.trials)})`).join(", ");
  return `niceeval: --trials ${trials} does not apply to eval${own.length === 1 ? "" : "s"} ${named}: an eval's own trials option wins over the flag\n`;
}

/** An eval's dataset as the run reads it: the hash of its cases, and whether it read them all. */
interface DatasetRead {
  hash: SequenceHash;
  read: boolean;
}

/** What the flags ask of the engine (but --filter); `datasets` (with a store) get each case's hash. */
function runOptions(
  args: RunArgs,
  runId: string,
  keep: boolean,
  datasets: readonly DatasetRead[] | undefined,
  waitForCases: boolean,
): RunOptions {
  return {
    runId,
    // Errors advise these flags (--timeout) and --resume.
    origin: "cli",
    concurrency: args.concurrency,
    trials: args.trials ?? 1,
    // Asked after --filter: a case that reaches the shard's selector passed the filter.
    ...(args.shard
      ? {
          select: [
            ...(args.filter !== undefined ? [filterReachSelector(args)] : []),
            shardSelector(args.shard),
          ],
        }
      : {}),
    ...(args.timeoutMs !== undefined ? { timeoutMs: args.timeoutMs } : {}),
    // In this process (--no-supervise); a supervised run's eval process bounds its own attempts.
    caseTimeoutMs: lastResortMs(args.timeoutMs),
    // A dataset that stops giving cases is a hang like any other.
    ...(waitForCases ? { caseWaitMs: args.hangTimeoutMs } : {}),
    ...(keep ? { keepCase: true, keepOutput: true } : {}),
    // A stored run's dataset hashes go into its manifest.
    ...(datasets
      ? {
          onCase: (index: number, spec: CaseSpec) =>
            datasets[index]!.hash.addCase(spec.id, spec.input, spec.expected),
          onCasesRead: (index: number) => {
            datasets[index]!.read = true;
          },
        }
      : {}),
  };
}

/**
 * The run's manifest and the sink that writes it to the store; a continued run (--resume) is
 * checked against its stored evals here, before anything is written.
 */
async function recordRun(
  store: Store,
  run: {
    runId: string;
    args: RunArgs;
    io: CliIO;
    version: string;
    entries: readonly RunEntry[];
    files: readonly string[];
    datasets: readonly DatasetRead[];
    continuation: Awaited<ReturnType<typeof findContinuation>> | undefined;
    onError: (error: unknown) => void;
    git: RunManifest["git"];
    /** Ctrl-C while the store cannot be reached ends the wait for it. */
    stopSignals: (listener: (signal: string) => boolean) => () => void;
  },
): Promise<{ sink: ReturnType<typeof storeSink>; continued: ContinuedRun | undefined }> {
  const { runId, args, io, entries, continuation } = run;
  const manifest = buildManifest({
    runId,
    cwd: io.cwd,
    git: run.git,
    entries,
    files: run.files,
    argv: io.argv ?? process.argv.slice(1),
    ...(args.name !== undefined ? { name: args.name } : {}),
    tags: args.tags,
    trials: args.trials ?? 1,
    concurrency: args.concurrency,
    niceevalVersion: run.version,
    judgeModels: defaultJudgeModels(),
  });
  if (args.queue !== undefined) manifest.queued = true;
  if (args.shard) manifest.shard = args.shard;
  if (args.filter !== undefined) manifest.filter = args.filter;
  manifest.writer = thisWriter();
  // Refused here (exit 2) when its evals changed, before the store is written.
  const continued = continuation
    ? await continueRun(continuation, store, manifest, args.force === true)
    : undefined;
  const digests = () =>
    Object.fromEntries(
      entries.map((e, i) => {
        const dataset = run.datasets[i]!;
        // Part of a dataset (the run stopped before reading it all) has no hash: `compare`
        // would take it for a changed dataset.
        return [e.eval.id, dataset.read ? dataset.hash.digest() : null];
      }),
    );
  let refused: unknown;
  // A --filter may select nothing (exit 2): such a run is not stored. A shard is, even then:
  // merging the shards of a run needs each of them.
  const beginWithAttempts = args.filter !== undefined && !continued && !args.shard;
  /** The run's first write is done: a failure from now on is the run's to report. */
  let begun = beginWithAttempts;
  const sink = storeSink(store, manifest, {
    ...storeOutageHooks(store.location, io, run.stopSignals),
    datasetHashes: digests,
    ...(continued ? { begin: continued.begin, skip: continued.skip } : {}),
    ...(beginWithAttempts ? { beginWithAttempts: true } : {}),
    onError: (error) => {
      if (continued && error instanceof NiceevalError && error.code === "RUN_STILL_RUNNING")
        refused = error;
      else if (!begun && damagedStore(error)) refused = error;
      else run.onError(error);
    },
  });
  // The run's first write, before any case runs: a run another process took over since it was
  // found (two resumes at once), or a store damaged where the run writes, is exit 2 now, rather
  // than the cases run for nothing (or the rest run twice).
  await sink.ready;
  begun = true;
  if (refused) throw refused;
  // The run is this process's now: what the continuation does is said once it is.
  if (continued) io.stderr(continued.notes);
  return { sink, continued };
}

/** What --baseline adds to a run: a sink that compares it once stored, and what to print. */
interface BaselineStep {
  sink?: RunSink;
  comparison(): Comparison | undefined;
  /** Why the comparison could not be made, when it was tried and failed. */
  failure(): string | undefined;
  note(): string | undefined;
}

function baselineStep(
  store: Store,
  args: RunArgs,
  run: Pick<RunSinksOf, "baseline" | "likelyBranch" | "createdStore" | "runId">,
  storeFailed: () => boolean,
  io: CliIO,
): BaselineStep {
  const ref = args.baseline!;
  const { baseline, runId } = run;
  let comparison: Comparison | undefined;
  let failure: string | undefined;
  let note: string | undefined;
  if (!baseline) {
    note =
      run.createdStore?.note ??
      `baseline ${ref}: no finished run with these evals yet; nothing to compare`;
    // Most likely a misspelt branch: a regression gate left unchecked by a typo has not passed
    // (a branch with no run yet, named right, is a first run and passes).
    if (run.likelyBranch !== undefined) {
      failure = `the store has no run on branch "${ref.slice("branch:".length)}" (did you mean branch:${run.likelyBranch}?)`;
      note = `baseline ${ref}: ${failure}; nothing compared`;
    }
    return { comparison: () => undefined, failure: () => failure, note: () => note };
  }
  return {
    comparison: () => comparison,
    failure: () => failure,
    note: () => note,
    sink: {
      onRunFinished: async (summary) => {
        if (storeFailed()) {
          note = `baseline ${ref}: this run could not be stored, so it is not compared`;
          return;
        }
        // A --filter that selected nothing: the run is not stored (exit 2, said after this).
        if (filterSelectedNothing(args, summary)) return;
        try {
          comparison = await compareWith(store, baseline.runId, runId, args);
        } catch (error) {
          failure = `comparing with baseline ${ref} failed: ${errorMessage(error)}`;
          io.stderr(`niceeval: ${failure}\n`);
        }
      },
    },
  };
}

/**
 * The exit code of a finished run: 1 for failed or errored attempts (unless within
 * --min-pass-rate), unmet gates, unavailable judgments under --strict, run-level errors no case
 * owned, or a significant regression with --fail-on-regression; else 0. Says why on stderr.
 */
function exitCode(summary: RunSummary, args: RunArgs, io: CliIO, extra: VerdictExtra): number {
  const { code, notes } = verdict(summary, args, extra);
  for (const note of notes) io.stderr(`niceeval: ${note}\n`);
  return code;
}

/** What a run's verdict needs besides its summary. */
interface VerdictExtra {
  runErrors: number;
  comparison?: Comparison;
  /** Why the --baseline comparison could not be made. */
  comparisonFailed?: string;
}

const noCaseMessage = (filter: string) => `--filter "${filter}" selected no case`;

/** A run's verdict under the CLI's gates: its exit code, the gates it failed, and notes for stderr. */
function verdict(
  summary: RunSummary,
  args: RunArgs,
  extra: VerdictExtra,
): { code: number; failed: UnmetGate[]; checked: string[]; notes: string[] } {
  // A stopped run's figures are of what ran before the stop: its gates are not checked on them.
  const evals = evalGates(summary.evals, args, summary.cancelled);
  // Every gate asked for, met or not, by name (a report shows each, passing or failing).
  const checked = [...evals.checked];
  const failed: UnmetGate[] = evals.unmet.map((gate) => ({
    ...gate,
    message: `gate not met: ${gate.message}`,
  }));
  const notes = failed.map((gate) => gate.message);
  // --min-pass-rate says how many attempts may fail: failed and errored attempts count
  // against the rate instead of failing the run one by one (load errors still do).
  const tolerated =
    args.minPassRate !== undefined && summary.loadErrors.length === 0 && !summary.cancelled;
  let code = summary.ok ? 0 : 1;
  if (code === 1 && tolerated && failed.length === 0) {
    const t = summary.totals;
    notes.push(
      `${t.failed} failed and ${t.errored} errored attempts are within --min-pass-rate ${args.minPassRate}`,
    );
    code = 0;
  }
  const unavailable = summary.unavailable?.judgments ?? 0;
  if (args.strict) checked.push("--strict");
  if (args.strict && unavailable > 0) {
    const strict = `--strict: ${unavailable} judgment${unavailable === 1 ? " was" : "s were"} unavailable (see the summary)`;
    failed.push({ name: "--strict", message: strict });
    notes.push(strict);
  }
  if (summary.cancelled && (extra.comparison || extra.comparisonFailed !== undefined)) {
    // A stopped run's comparison is of the attempts judged before the stop, as its figures are.
    for (const flag of askedRegressionGates(args)) {
      const message = `${flag}: not checked: the run was stopped, and its comparison with the baseline is of the attempts judged before the stop; run it again to its end to check it`;
      // Named as not checked only: a gate that was not checked is neither met nor failed as asked.
      failed.push({ name: `${flag}: not checked`, message });
      notes.push(message);
    }
  } else if (extra.comparison) {
    checked.push(...regressionGates(extra.comparison, args));
    const regression = regressionReasons(extra.comparison, args);
    failed.push(...regression);
    notes.push(...regression.map((gate) => gate.message));
  } else if (
    extra.comparisonFailed !== undefined &&
    (args.failOnRegression || args.failOnNewFailures)
  ) {
    // A regression gate that cannot be checked is not passed: CI would lose it without a word.
    const flag = args.failOnRegression ? "--fail-on-regression" : "--fail-on-new-failures";
    failed.push({
      name: `${flag}: not checked`,
      message: `${flag}: not checked, ${extra.comparisonFailed}`,
    });
    notes.push(`${flag} is not met when the comparison cannot be made`);
  }
  if (failed.length > 0) code = 1;
  // An uncaught error no case owned (said on stderr when it happened) fails the run.
  if (extra.runErrors > 0) code = 1;
  if (filterSelectedNothing(args, summary)) {
    // A usage error (said on stderr by `outcome`): the reports say the run did not pass.
    failed.push({ name: NO_CASE_GATE, message: noCaseMessage(args.filter!) });
    code = 2;
  }
  const empty = emptyShardNote(args, summary);
  if (empty !== undefined) notes.push(empty);
  return { code, failed, checked, notes };
}

/** The regression gates the command line asks for. */
function askedRegressionGates(args: RunArgs): string[] {
  const flags: string[] = [];
  if (args.failOnRegression) flags.push("--fail-on-regression");
  if (args.failOnNewFailures) flags.push("--fail-on-new-failures");
  return flags;
}

/**
 * A sink between the store and baseline sinks and the reporters: the reports' PASS or FAIL, `ok`
 * and the gates listed follow the exit code the run will have (a gate not met fails a run whose
 * attempts all passed; failures within --min-pass-rate pass it).
 */
function verdictSink(
  args: RunArgs,
  compared: BaselineStep | undefined,
  storeFailed: () => boolean,
): RunSink & { engineOk(): boolean | undefined } {
  let engineOk: boolean | undefined;
  return {
    /** `ok` as the engine said it, before the gates (undefined before the run finished). */
    engineOk: () => engineOk,
    onRunFinished(summary) {
      engineOk = summary.ok;
      const comparison = compared?.comparison();
      const comparisonFailed = compared?.failure();
      const { code, failed, checked } = verdict(summary, args, {
        runErrors: summary.runErrors?.length ?? 0,
        ...(comparison ? { comparison } : {}),
        ...(comparisonFailed !== undefined ? { comparisonFailed } : {}),
      });
      // A run its store did not take whole exits 2: no report may call it a pass.
      summary.ok = code === 0 && !storeFailed();
      if (failed.length > 0) {
        summary.gates = failed.map((gate) => gate.message);
        summary.gateNames = failed.map((gate) => gate.name);
      }
      const unmet = new Set(summary.gateNames);
      const met = checked.filter((name) => !unmet.has(name));
      if (met.length > 0) summary.gatesMet = met;
    },
  };
}

/**
 * A sink before the reporters that marks the run's summary with its --shard, so that each report
 * (the JSON and NDJSON summaries, Markdown, JUnit) says its figures are of one shard's cases.
 */
function shardMark(shard: Shard): RunSink {
  return {
    onRunFinished(summary) {
      summary.shard = shard;
    },
  };
}

/** The reporters asked for; the console is the default, and --json adds a JSON report. */
function reporterSpecs(args: RunArgs, io: CliIO, files: readonly string[]): ReporterSpec[] {
  const { cwd } = io;
  const specs = args.reporters.map(parseReporterFlag);
  refuseRepeatedReporters(specs);
  const fromJsonFlag =
    args.json !== undefined ? { kind: "json" as const, file: args.json } : undefined;
  if (fromJsonFlag) specs.push(fromJsonFlag);
  if (!specs.some((spec) => spec.kind === "console")) specs.unshift({ kind: "console" });
  // No report may be written over another, the store or the run's own eval files.
  const targets = new ReportTargets(cwd, io.stdoutFd);
  if (!args.noStore)
    targets.protectStore(storeLocation(args.store, io.env), storeSource(args.store, io.env));
  for (const file of files) targets.protect([file], `the eval file ${relative(cwd, file)}`);
  // The console report is on standard output unless `ndjson=-` takes it (it then goes to stderr).
  if (!specs.some((spec) => spec.kind === "ndjson" && spec.target === "-"))
    targets.claim("-", CONSOLE);
  const created: (string | undefined)[] = [];
  for (const spec of specs) {
    const file =
      "file" in spec
        ? spec.file
        : spec.kind === "ndjson" && spec.target !== "-"
          ? spec.target
          : undefined;
    const flag = spec === fromJsonFlag ? "--json" : `--reporter ${spec.kind}`;
    // Only ndjson reads `-` as standard output; a file report's `-` is a file of that name.
    if (file !== undefined || spec.kind === "ndjson")
      targets.claim(file ?? "-", flag, spec.kind === "ndjson");
    // A report's folder is made, as the store's is (reports/junit.xml in a fresh checkout).
    if (file !== undefined) created.push(checkWritable(flag, file, cwd, undefined, true));
  }
  // The github reporter appends its summary to the file the runner names.
  const stepSummary = io.env.GITHUB_STEP_SUMMARY;
  if (stepSummary && specs.some((spec) => spec.kind === "github"))
    created.push(
      checkWritable(
        "--reporter github",
        stepSummary,
        cwd,
        "$GITHUB_STEP_SUMMARY names it; set it to a path in an existing, writable folder, or unset it",
      ),
    );
  // The files made to check them go again: a run refused before its reports open leaves none.
  for (const path of created) if (path !== undefined) rmSync(path, { force: true });
  return specs;
}

function buildReporters(
  specs: readonly ReporterSpec[],
  args: RunArgs,
  io: CliIO,
  fd: number,
  loadMs: number,
  comparison: () => string | undefined,
  compared: () => Comparison | undefined,
): Reporter[] {
  const ci = Boolean(io.env.CI) && io.env.CI !== "false";
  if (specs.some((spec) => spec.kind === "github") && !inGithubActions(io.env))
    io.stderr(
      "niceeval: --reporter github writes only inside GitHub Actions (GITHUB_ACTIONS is not set here), so it writes nothing in this run; --reporter markdown prints the same summary here\n",
    );
  return specs.map((spec) =>
    spec.kind === "console"
      ? consoleReporter({
          fd,
          color: io.isTTY && !io.env.NO_COLOR && !ci,
          progress: (io.stderrIsTTY ?? io.isTTY) && !ci && !args.quiet,
          verbose: !args.failuresOnly,
          hideEmptyEvals: args.filter !== undefined,
          ...(args.filter !== undefined ? { filter: args.filter } : {}),
          ...(args.shard ? { shard: args.shard } : {}),
          loadMs,
        })
      : createReporter(spec, { cwd: io.cwd, env: io.env, comparison, compared, fd }),
  );
}

/**
 * Open a report file up front, so a bad path is a usage error before anything runs; `makeFolder`:
 * its folder is made first when missing. Returns the file's path when this made it (it was not
 * there), for the caller to remove once every report is checked.
 */
function checkWritable(
  flag: string,
  file: string,
  cwd: string,
  advice = "pass a path in a writable folder",
  makeFolder = false,
): string | undefined {
  try {
    const path = resolve(cwd, file);
    if (makeFolder) makeFolders(dirname(path));
    // Opening a FIFO waits for its reader, and closing it then ends what the reader reads: a
    // pipe or a device is only asked whether it may be written.
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat && !stat.isFile() && !stat.isDirectory()) accessSync(path, constants.W_OK);
    else closeSync(openSync(path, "a"));
    return stat === undefined ? path : undefined;
  } catch (error) {
    throw new NiceevalError(
      "USAGE",
      `${flag}: cannot write ${file} (${(error as NodeJS.ErrnoException).code ?? errorMessage(error)}); ${advice}`,
    );
  }
}

/**
 * Make `folder` and the folders above it that are missing, one level at a time (Node's recursive
 * mkdir never returns for some paths, such as one under /proc); throws the first level's error.
 */
function makeFolders(folder: string): void {
  const missing: string[] = [];
  for (let at = folder; !existsSync(at); at = dirname(at)) {
    missing.push(at);
    if (dirname(at) === at) break;
  }
  for (const level of missing.reverse()) mkdirSync(level);
}

/** How the eval process selects and runs the attempts this process's engine will ask for. */
function aheadPlan(
  runId: string,
  args: RunArgs,
  keep: boolean,
  kept: ReadonlySet<string> | undefined,
  readOnce: readonly string[],
): AheadPlan {
  return {
    ...(readOnce.length > 0 ? { notAhead: [...readOnce] } : {}),
    runId,
    concurrency: args.concurrency,
    ...(args.trials !== undefined ? { trials: args.trials } : {}),
    ...(args.filter !== undefined ? { filter: args.filter } : {}),
    ...(args.shard ? { shard: args.shard } : {}),
    ...(keep ? { keepOutput: true as const } : {}),
    ...(args.timeoutMs !== undefined ? { timeoutMs: args.timeoutMs } : {}),
    caseWaitMs: args.hangTimeoutMs,
    ...(kept ? { kept: [...kept] } : {}),
  };
}
