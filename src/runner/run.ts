import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import { realNow } from "../clock.js";
import { NiceevalError } from "../errors.js";
import type { AttemptRecord, Judgment } from "../eval/record.js";
import type { RunOrigin } from "../eval/run-origin.js";
import type { AttemptContext, CaseSpec } from "../eval/runnable.js";
import {
  checkTimeoutMs,
  checkWholeNumber,
  DEFAULT_CASE_TIMEOUT_MS,
  givenText,
  MAX_TRIALS,
} from "../eval/timeout.js";
import { type KnownKeys, refuseUnknownKeys } from "../known-keys.js";
import { checkRunId } from "../run-fields.js";
import { abortReason, isAborted } from "../signal-state.js";
import { abortGraced, DEFAULT_ABORT_GRACE_MS } from "./abort-grace.js";
import { AttemptRunner } from "./attempt.js";
import { checkEntries, type RunEntry } from "./entry.js";
import type { EvalEvent } from "./events.js";
import { type Executor, inProcessExecutor, isPromise, type RanAhead } from "./executor.js";
import { KeyedLimiter } from "./limiter.js";
import { ReorderBuffer } from "./reorder.js";
import { type AttemptInfo, type RunSink, SinkSet } from "./sink.js";
import {
  type CaseSelector,
  type CaseSource,
  type EvalCasesOptions,
  evalCases,
  type SourceItem,
  type SourceIterator,
  trialsOf,
} from "./source.js";
import type { LoadError, RunSummary } from "./summary.js";
import { RunTally } from "./tally.js";
import { watchRun } from "./tampered.js";
import type { Telemetry } from "./telemetry.js";
import { telemetrySink } from "./telemetry-sink.js";
import { eventLoopTurns } from "./turns.js";
import { Watchdog } from "./watchdog.js";

export type { RunEntry } from "./entry.js";
export type { RunSummary } from "./summary.js";

/** Options of {@link runEvals}. */
export interface RunOptions {
  /** Attempts running at once across the run (default 8, at most 1024). */
  concurrency?: number | undefined;
  /** Reporters and any other sinks: each receives the run's hooks. */
  reporters?: readonly RunSink[] | undefined;
  telemetry?: readonly Telemetry<EvalEvent>[] | undefined;
  signal?: AbortSignal | undefined;
  /** The run's id (a non-empty string); default a new random UUID. */
  runId?: string | undefined;
  /** Run only the cases for which this returns true. */
  filter?: ((evalId: string, caseId: string) => boolean) | undefined;
  /** More selectors (a shard, a resume); every one must keep an attempt. */
  select?: readonly CaseSelector[] | undefined;
  /** Run each case this many times (an eval's own `trials` wins). Default 1. */
  trials?: number | undefined;
  /** Where attempts come from (default: every eval's cases, filtered and selected). */
  source?: CaseSource | undefined;
  /** How an attempt executes (default: in this process). */
  executor?: Executor | undefined;
  /** Keep each target output on its record. */
  keepOutput?: boolean | undefined;
  /** Keep each case's input, expected value and metadata on its record (for a store). */
  keepCase?: boolean | undefined;
  /** Per-case timeout for targets and adapters, ms. */
  timeoutMs?: number | undefined;
  /**
   * Once `signal` aborts, how long attempts in flight may go on before they are given up on,
   * errored as interrupted with the abort's reason (default 2000 ms; code under test that ignores
   * its signal cannot keep the run waiting). Only with the default in-process executor.
   */
  abortGraceMs?: number | undefined;
  /**
   * Where the run came from: "cli" (`niceeval run`) has its attempts' errors advise its flags
   * (`--timeout`) and its resume; default "code", whose options are `timeoutMs`.
   */
  origin?: RunOrigin | undefined;
  /** Limit on a whole attempt, ms (default: timeoutMs + 1 s, else 10 minutes). */
  caseTimeoutMs?: number | undefined;
  /**
   * Longest wait for an asynchronous dataset's next case, ms: past it, that eval gets an errored
   * "(cases)" attempt and the run goes on. Default: no limit (the CLI uses `--hang-timeout`).
   */
  caseWaitMs?: number | undefined;
  /** Called with every record in order; lets callers keep what they need. */
  onRecord?: ((record: AttemptRecord) => void) | undefined;
  /** Called with every case each eval yields, selected or not (to hash the dataset). */
  onCase?: ((evalIndex: number, spec: CaseSpec) => void) | undefined;
  /** Called once an eval's cases were all read, not cut short by the run's stop (see evalCases). */
  onCasesRead?: ((evalIndex: number) => void) | undefined;
  /** Files that failed to load before the run, and evals left out (the CLI's); they make the run not ok. */
  loadErrors?: readonly LoadError[] | undefined;
  /**
   * Errors in user code of the caller's own process that belonged to no attempt, as they happen
   * (the CLI's uncaught errors); with the executor's, they make the run not ok.
   */
  outsideErrors?: readonly string[] | undefined;
  /**
   * Errors outside any attempt of a stored run this one continues (`--resume`, `--retry-errors`):
   * what caused them is not run again, so they stay the run's and still make it not ok.
   */
  earlierRunErrors?: readonly string[] | undefined;
}

export { DEFAULT_CASE_TIMEOUT_MS };
/** Most attempts in flight a run accepts. */
export const MAX_CONCURRENCY = 1024;

/** Every key of {@link RunOptions}: runEvals refuses others (a misspelt one would be ignored). */
const runOptionKeys = {
  concurrency: true,
  reporters: true,
  telemetry: true,
  signal: true,
  runId: true,
  filter: true,
  select: true,
  trials: true,
  source: true,
  executor: true,
  keepOutput: true,
  keepCase: true,
  timeoutMs: true,
  abortGraceMs: true,
  origin: true,
  caseTimeoutMs: true,
  caseWaitMs: true,
  onRecord: true,
  onCase: true,
  onCasesRead: true,
  loadErrors: true,
  outsideErrors: true,
  earlierRunErrors: true,
} satisfies KnownKeys<RunOptions>;
type Released = SourceItem & { record?: AttemptRecord | undefined };

/** What each attempt's record goes through as it leaves the reorder window, in case order. */
function finalizer(
  signal: AbortSignal,
  attempts: AttemptRunner,
  keepCase: boolean,
  sinks: SinkSet,
): (item: Extract<SourceItem, { type: "case" }>, record: AttemptRecord) => void {
  let done = 0;
  return (item, record) => {
    // An attempt that errored once the run was stopped was cut off, not judged: resume runs it.
    // One that ran ahead was judged where it ran, perhaps long before the stop.
    if (
      record.error &&
      isAborted(signal) &&
      item.record === undefined &&
      !attempts.wasTaken(record)
    )
      record.error.interrupted = true;
    describeAttempt(record, item, keepCase);
    sinks.call("onAttemptFinished", record);
    done++;
    sinks.call("onProgress", done);
  };
}

/**
 * The engine. Pulls attempts from a case source, executes them with bounded concurrency through
 * an executor, and hands the records to sinks (reporters, telemetry, a store): in real time and
 * in case order. Memory is bounded by the reorder window, not by the run.
 */
export async function runEvals(
  entries: readonly RunEntry[],
  options: RunOptions = {},
): Promise<RunSummary> {
  checkEntries(entries);
  const settings = checkedSettings(options);
  const runId = options.runId ?? randomUUID();
  const startedAt = new Date();
  const started = realNow();
  const signal = options.signal ?? new AbortController().signal;
  // Attempts without a time limit share the run's signal: each in flight may listen to it (a
  // fetch does), and more than ten is a run at that concurrency, not a leak to warn about.
  setMaxListeners(0, signal);
  const trialsOfEntry = (entry: number) => trialsOf(entries[entry]!.eval.trials ?? options.trials);
  const reporters = options.reporters ?? [];
  const sinks = new SinkSet(
    [...reporters, ...(options.telemetry?.length ? [telemetrySink(runId, options.telemetry)] : [])],
    // Called from code, a reporter without a label is named as it was given; the CLI labels its own.
    (index) =>
      options.origin !== "cli" && index < reporters.length ? `reporters[${index}]` : undefined,
  );
  const tally = new RunTally(entries, trialsOfEntry);
  const { executor, dispose } = executorOf(options, signal, settings.abortGraceMs);
  const limiter = new KeyedLimiter(entries.map((e) => e.eval.concurrency));
  const watchdog = new Watchdog(settings.caseTimeoutMs, options.origin);
  const realtime = {
    started: sinks.has("onAttemptStarted"),
    judgment: sinks.has("onJudgment"),
  };

  sinks.call("onRunStart", runStartOf(runId, entries, settings.concurrency, options.trials));

  const evalInfo = (entry: number) => evalInfoOf(entries[entry]!, trialsOfEntry(entry));
  const reorder = new ReorderBuffer<Released>(
    Math.max(256, settings.concurrency * 64),
    inCaseOrder(sinks, tally, evalInfo, options.onRecord),
  );
  const contextFor = attemptContexts(runId, signal, options, realtime.judgment ? sinks : undefined);

  // An executor that asks for attempts ahead queues them and says when each starts; the time limit
  // and the started hooks count from then, and it runs at most `concurrency` of them at once.
  const asked = executor.prefetch ?? 0;
  const prefetch = asked > 0 ? Math.min(Math.floor(asked), MAX_CONCURRENCY) : 0;
  const attempts = new AttemptRunner({
    entries,
    executor,
    prefetch,
    concurrency: settings.concurrency,
    signal,
    watchdog,
    limiter,
    tally,
    started: realtime.started ? (info) => sinks.call("onAttemptStarted", info) : undefined,
    wantsInfo: realtime.started || realtime.judgment,
    contextFor,
  });

  const finalize = finalizer(signal, attempts, options.keepCase === true, sinks);

  const worker = sourceWorker({
    source: caseSource(options)(entries, readingSignal(signal, executor.ranAhead))[
      Symbol.asyncIterator
    ](),
    reorder,
    attempts,
    scheduled: (entry) => sinks.call("onEvalScheduled", evalInfo(entry)),
    finalize,
    notStarted: () => tally.attemptNotStarted(),
    notRunAgain: (record) => tally.attemptNotRunAgain(record),
    // Only sinks with a backlog are asked, so a run without one pays nothing per case.
    backlog: sinks.has("room") ? stoppable(() => sinks.room(), signal) : () => undefined,
    signal,
  });
  // What the globals are as the run starts is what its attempts must leave them (tampered.ts).
  const globalsWatched = watchRun();
  try {
    await Promise.all(Array.from({ length: settings.concurrency + prefetch }, worker));
  } finally {
    globalsWatched();
    watchdog.stop();
  }
  // An eval process, say, ends while the reporters and the store finish.
  executor.finished?.();
  dispose();

  const summary = summaryOf(tally, entries, options, {
    runId,
    startedAt: startedAt.toISOString(),
    elapsedMs: realNow() - started,
    cancelled: isAborted(signal),
  });
  await sinks.finish(summary);
  return summary;
}

/**
 * The run's executor: the caller's (the CLI's, which its run guard interrupts after its grace
 * period), or the in-process one, whose attempts still under way `abortGraceMs` after the run's
 * signal aborts are given up on as interrupted.
 */
function executorOf(
  options: RunOptions,
  signal: AbortSignal,
  abortGraceMs: number | undefined,
): { executor: Executor; dispose(): void } {
  if (options.executor) return { executor: options.executor, dispose: () => {} };
  return abortGraced(inProcessExecutor, signal, abortGraceMs ?? DEFAULT_ABORT_GRACE_MS);
}

/** What the sinks are told as the run starts. */
function runStartOf(
  runId: string,
  entries: readonly RunEntry[],
  concurrency: number,
  trials: number | undefined,
) {
  return {
    runId,
    evals: entries.length,
    // Entries passed in code may name no file: they are not counted as one.
    files: new Set(entries.flatMap((e) => (e.file === undefined ? [] : [e.file]))).size,
    concurrency,
    trials: trialsOf(trials),
  };
}

/**
 * One of the run's workers: it takes the source's next item, runs it when it is a case, and
 * hands it to the reorder buffer in the place it reserved. Workers share one source, which
 * answers their next() calls in order, so reserving right after each one keeps the report order;
 * a synchronous dataset's items come without a promise.
 */
function sourceWorker(parts: {
  source: SourceIterator;
  reorder: ReorderBuffer<Released>;
  attempts: AttemptRunner;
  /** An eval's first item came: it is scheduled. */
  scheduled: (entry: number) => void;
  finalize: (item: Extract<SourceItem, { type: "case" }>, record: AttemptRecord) => void;
  /** An attempt read did not start before the run's stop (and nothing stands for it). */
  notStarted: () => void;
  /** A continuation's stored attempt to run again stands for itself: the stop came first. */
  notRunAgain: (record: AttemptRecord) => void;
  /** A wait while a sink's backlog is full (RunSink.room). */
  backlog: () => Promise<void> | undefined;
  /**
   * The run's: once it is stopped, cases are read on past the reorder window (nothing new starts;
   * what ran ahead is placed while an attempt before it still holds the window's head).
   */
  signal: AbortSignal;
}): () => Promise<void> {
  const {
    source,
    reorder,
    attempts,
    scheduled,
    finalize,
    notStarted,
    notRunAgain,
    backlog,
    signal,
  } = parts;
  const turns = eventLoopTurns();
  return async () => {
    for (;;) {
      const turn = turns.due();
      if (turn) await turn;
      const room = isAborted(signal) ? undefined : (reorder.room() ?? backlog());
      if (room) await room;
      const next = source.nextNow?.() ?? (await source.next());
      if (next.done) return;
      const item: Released = next.value;
      const seq = reorder.reserve();
      if (item.type !== "case") {
        if (item.type === "eval-start") scheduled(item.entry);
        reorder.complete(seq, item);
        continue;
      }
      let record = item.record;
      if (record !== undefined && item.notRunAgain) notRunAgain(record);
      if (record === undefined) {
        const out = attempts.run(item);
        record = isPromise(out) ? await out : out;
      }
      if (record === undefined) {
        // Queued ahead and not started before the stop: what the item says stands for it, if
        // anything (a continuation's stored attempt), is reported as read back, not as run.
        record = item.standIn ? await item.standIn() : undefined;
        if (record === undefined) {
          notStarted();
          reorder.complete(seq, item);
          continue;
        }
        if (item.standIn) notRunAgain(record);
        item.record = record;
      }
      finalize(item, record);
      item.record = record;
      reorder.complete(seq, item);
    }
  };
}

/**
 * The sinks' wait for room, ended sooner once the run is stopped (a store that stalls must not
 * hold a stopped run); the workers waiting on one full backlog share one wait.
 */
function stoppable(
  room: () => Promise<void> | undefined,
  signal: AbortSignal,
): () => Promise<void> | undefined {
  let last: Promise<void> | undefined;
  let raced: Promise<void> | undefined;
  return () => {
    const wait = room();
    if (wait === undefined || isAborted(signal)) return undefined;
    if (wait !== last) {
      last = wait;
      raced = new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener("abort", done);
          resolve();
        };
        signal.addEventListener("abort", done);
        wait.then(done, done);
      });
    }
    return raced;
  };
}

/**
 * The signal that ends the reading of cases: the run's, but with an executor that runs ahead,
 * only once none of what it began waits for the engine to reach its case, so a stop never loses
 * an attempt that ran (read on, each new case is not started).
 */
function readingSignal(signal: AbortSignal, ranAhead: RanAhead | undefined): AbortSignal {
  if (!ranAhead) return signal;
  const reading = new AbortController();
  const check = () => {
    if (!isAborted(reading.signal) && !ranAhead.outstanding()) reading.abort(abortReason(signal));
  };
  const stopped = () => {
    ranAhead.watch(check);
    check();
  };
  if (isAborted(signal)) stopped();
  else signal.addEventListener("abort", stopped, { once: true });
  return reading.signal;
}

/** Where the run's attempts come from: `options.source`, else every eval's cases, selected. */
function caseSource(options: RunOptions): CaseSource {
  return options.source ?? evalCases(casesOptions(options, selectors(options)));
}

/** The options of {@link evalCases} a run's options ask for, with these selectors. */
export function casesOptions(
  options: RunOptions,
  select: readonly CaseSelector[],
): EvalCasesOptions {
  return {
    select,
    ...(options.onCase ? { onCase: options.onCase } : {}),
    ...(options.onCasesRead ? { onCasesRead: readWhole(options.onCasesRead, options.signal) } : {}),
    ...(options.trials !== undefined ? { trials: options.trials } : {}),
    ...(options.caseWaitMs !== undefined ? { caseWaitMs: options.caseWaitMs } : {}),
  };
}

/**
 * `onCasesRead` only while the run goes on: once it is stopped, a dataset's end may be the stop's
 * doing (its reads ended), though the walk reads on for what ran ahead (readingSignal).
 */
function readWhole(
  onCasesRead: (entry: number) => void,
  signal: AbortSignal | undefined,
): (entry: number) => void {
  return (entry) => {
    if (signal === undefined || !isAborted(signal)) onCasesRead(entry);
  };
}

/** What the sinks are told of an eval. */
function evalInfoOf(entry: RunEntry, trials: number) {
  const { eval: runnable, file } = entry;
  return {
    evalId: runnable.id,
    style: runnable.style,
    ...(runnable.passFail ? { passFail: true as const } : {}),
    ...(file ? { file } : {}),
    ...(trials > 1 ? { trials } : {}),
  };
}

/** What the reorder buffer releases, in case order: to the tally, `onRecord` and the sinks. */
function inCaseOrder(
  sinks: SinkSet,
  tally: RunTally,
  evalInfo: (entry: number) => ReturnType<typeof evalInfoOf>,
  onRecord: RunOptions["onRecord"],
): (item: Released) => void {
  return (item) => {
    if (item.type === "eval-start") {
      sinks.call("onEvalStart", evalInfo(item.entry));
    } else if (item.type === "case") {
      // An attempt queued ahead that never started before the run was stopped: nothing to report.
      if (!item.record) return;
      const record = item.record;
      tally.add(item.entry, record);
      onRecord?.(record);
      sinks.call("onCaseFinished", record);
    } else {
      if (item.cut) tally.casesUnread(item.entry);
      sinks.call("onEvalFinished", tally.finishEval(item.entry));
    }
  };
}

/**
 * The context of an attempt of a trial: one shared by every first trial unless the sinks want
 * each judgment as it comes (`judgmentSinks`), which needs the attempt's `info`.
 */
function attemptContexts(
  runId: string,
  signal: AbortSignal,
  options: RunOptions,
  judgmentSinks: SinkSet | undefined,
): (trial: number, info: AttemptInfo | undefined) => AttemptContext {
  const base: AttemptContext = {
    runId,
    signal,
    ...(options.keepOutput || options.keepCase ? { keepOutput: true } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.origin === "cli" ? { origin: "cli" as const } : {}),
  };
  return (trial, info) => {
    if (trial === 0 && !judgmentSinks) return base;
    return {
      ...base,
      trial,
      ...(judgmentSinks
        ? { onJudgment: (judgment: Judgment) => judgmentSinks.call("onJudgment", info!, judgment) }
        : {}),
    };
  };
}

/**
 * The run's summary from its tally: ok when nothing failed, errored, was stopped or failed to
 * load, and no error in user code went outside every attempt.
 */
function summaryOf(
  tally: RunTally,
  entries: readonly RunEntry[],
  options: RunOptions,
  run: Pick<RunSummary, "runId" | "startedAt" | "elapsedMs" | "cancelled">,
): RunSummary {
  // Under a filter, an eval none of whose cases was selected did not run.
  const totals = tally.totals;
  if (options.filter || options.select?.length) {
    totals.evals = tally.summaries.filter((s) => s.cases > 0).length;
  }
  const loadErrors = [...(options.loadErrors ?? [])];
  // The same error again (its cause was run again) is listed once.
  const runErrors = [
    ...new Set([
      ...(options.earlierRunErrors ?? []),
      ...(options.executor?.runErrors ?? []).map(runErrorText),
      ...(options.outsideErrors ?? []),
    ]),
  ];
  return {
    runId: run.runId,
    startedAt: run.startedAt,
    elapsedMs: run.elapsedMs,
    evals: tally.summaries,
    totals,
    judge: tally.judge,
    app: tally.app,
    unavailable: tally.unavailable.summary(),
    loadErrors,
    ...(runErrors.length > 0 ? { runErrors } : {}),
    ok:
      totals.failed === 0 &&
      totals.errored === 0 &&
      !run.cancelled &&
      loadErrors.length === 0 &&
      runErrors.length === 0,
    cancelled: run.cancelled,
    ...(run.cancelled ? { stopped: tally.stopped(entries) } : {}),
  };
}

/** Stamp what the engine knows onto a record: trial, case index, cluster, and the case itself. */
function describeAttempt(
  record: AttemptRecord,
  item: Extract<SourceItem, { type: "case" }>,
  keepCase: boolean,
): void {
  const { spec, trial } = item;
  if (trial > 0) record.trial = trial;
  if (spec.index >= 0) record.index = spec.index;
  if (spec.cluster !== undefined) record.cluster = spec.cluster;
  if (keepCase) {
    if (spec.input !== undefined) record.input = spec.input;
    if (spec.expected !== undefined) record.expected = spec.expected;
    if (spec.metadata !== undefined) record.metadata = spec.metadata;
  } else if (record.verdict === "failed" && spec.expected !== undefined) {
    // What the report shows beside a failed case's output.
    record.expected = spec.expected;
  }
}

function selectors(options: RunOptions): CaseSelector[] {
  const filter = options.filter;
  return [
    ...(filter ? [(evalId: string, caseId: string) => filter(evalId, caseId)] : []),
    ...(options.select ?? []),
  ];
}

/** Numbers a run cannot work with are an error up front, never a run that silently does nothing. */
/** An executor's run error as one line, its place said once: an eval process's message has it. */
function runErrorText({ message, where }: { message: string; where: string }): string {
  return message.includes(where) ? message : `${message} (at ${where})`;
}

function checkedSettings(options: RunOptions): {
  concurrency: number;
  caseTimeoutMs: number;
  abortGraceMs: number | undefined;
} {
  if (typeof options !== "object" || options === null)
    throw new NiceevalError(
      "USAGE",
      `runEvals: options must be an object, got ${givenText(options)}`,
    );
  refuseUnknownKeys("runEvals", options, runOptionKeys, "options");
  for (const key of ["reporters", "telemetry", "select"] as const) {
    const value = options[key];
    if (value !== undefined && !Array.isArray(value))
      throw new NiceevalError(
        "USAGE",
        `runEvals: options.${key} must be an array, got ${givenText(value)} (wrap one in [ ])`,
      );
  }
  const signal = options.signal as { aborted?: unknown; addEventListener?: unknown } | undefined;
  if (
    signal !== undefined &&
    (typeof signal !== "object" ||
      signal === null ||
      typeof signal.aborted !== "boolean" ||
      typeof signal.addEventListener !== "function")
  )
    throw new NiceevalError(
      "USAGE",
      `runEvals: options.signal must be an AbortSignal (an AbortController's signal), got ${givenText(options.signal)}`,
    );
  if (options.runId !== undefined)
    checkRunId(
      options.runId,
      "runEvals: options.runId",
      "pass an id of your own, or leave it out for a new random one",
    );
  const concurrency = options.concurrency ?? 8;
  checkWholeNumber("concurrency", concurrency, 1, MAX_CONCURRENCY);
  checkWholeNumber("trials", options.trials, 1, MAX_TRIALS);
  checkTimeoutMs("timeoutMs", options.timeoutMs);
  checkTimeoutMs("caseTimeoutMs", options.caseTimeoutMs);
  checkTimeoutMs("caseWaitMs", options.caseWaitMs);
  checkTimeoutMs("abortGraceMs", options.abortGraceMs);
  const caseTimeoutMs =
    options.caseTimeoutMs ??
    (options.timeoutMs !== undefined ? options.timeoutMs + 1000 : DEFAULT_CASE_TIMEOUT_MS);
  return { concurrency, caseTimeoutMs, abortGraceMs: options.abortGraceMs };
}
