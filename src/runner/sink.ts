import { isClosedOutput } from "../errors.js";
import type { AttemptRecord, Judgment } from "../eval/record.js";
import type { EvalSummary } from "./events.js";
import type { RunSummary } from "./summary.js";

/** Information about one eval as it starts. */
export interface EvalInfo {
  evalId: string;
  style: "suite" | "score";
  /** A pass/fail eval (`Runnable.passFail`): a score eval of gates only. */
  passFail?: true;
  file?: string;
  /** Trials of each case. */
  trials?: number;
}

/** What a run announces when it starts. */
export interface RunStartInfo {
  runId: string;
  evals: number;
  files: number;
  concurrency: number;
  trials?: number;
}

/** Which attempt a real-time hook is about. */
export interface AttemptInfo {
  evalId: string;
  caseId: string;
  index: number;
  trial: number;
}

/**
 * What a sink reports of its own when the run finishes (failures it kept while the run went on),
 * already saying where: shown as it is, not as a failure of the hook that reports it.
 */
export class SinkReport extends Error {
  override name = "SinkReport";
}

/**
 * Where records go: reporters, telemetry and the store are all sinks. Every hook is optional.
 * Ordered hooks (`onEvalStart`, `onCaseFinished`, `onEvalFinished`) see evals in discovery
 * order and records in case order whatever the concurrency; real-time hooks (`onEvalScheduled`,
 * `onAttemptStarted`, `onJudgment`, `onAttemptFinished`, `onProgress`) fire as things happen.
 */
export interface RunSink {
  onRunStart?: ((info: RunStartInfo) => void) | undefined;
  onEvalScheduled?: ((info: EvalInfo) => void) | undefined;
  onEvalStart?: ((info: EvalInfo) => void) | undefined;
  onAttemptStarted?: ((attempt: AttemptInfo) => void) | undefined;
  onJudgment?: ((attempt: AttemptInfo, judgment: Judgment) => void) | undefined;
  onAttemptFinished?: ((record: AttemptRecord) => void) | undefined;
  onCaseFinished?: ((record: AttemptRecord) => void) | undefined;
  onEvalFinished?: ((summary: EvalSummary) => void) | undefined;
  /** Cases finished so far (any order). */
  onProgress?: ((done: number) => void) | undefined;
  onRunFinished?: ((summary: RunSummary) => void | Promise<void>) | undefined;
  /**
   * Backpressure: a sink that keeps records to write later (a store) and has too many waiting
   * returns a promise that settles once it has room again; the engine starts no more attempts
   * until then, so a sink slower than the attempts bounds the run's memory instead of holding
   * every record. Undefined (or absent) when it has room.
   */
  room?: (() => Promise<void> | undefined) | undefined;
  /** What messages call this sink when it fails ("telemetry"); a reporter by default. */
  readonly label?: string | undefined;
}

type SyncHook = Exclude<keyof RunSink, "onRunFinished" | "room" | "label">;

/**
 * Several sinks behind one. A sink that throws is reported once on stderr and the run goes on:
 * a broken reporter must not take the run, or the other reporters, down.
 */
export class SinkSet {
  private readonly broken = new Set<RunSink>();
  /** What each sink that failed (its output not closed by its reader) said, once per sink. */
  private readonly failures: string[] = [];
  /** Sinks whose output's reader closed it (EPIPE, or EBADF): they are not called again. */
  private readonly closed = new Set<RunSink>();

  /** The sinks that may ask the engine to wait (those with a `room` hook). */
  private readonly backlogged: readonly RunSink[];

  /**
   * @param placeOf how a sink without a `label` is named by its place among the sinks
   *   (`reporters[1]`, as runEvals was given it); "a reporter" when it gives none.
   */
  constructor(
    private readonly sinks: readonly RunSink[],
    private readonly placeOf: (index: number) => string | undefined = () => undefined,
  ) {
    this.backlogged = sinks.filter((sink) => typeof sink.room === "function");
  }

  /** Whether any sink has this hook (lets the engine skip work nobody reads). */
  has(hook: keyof RunSink): boolean {
    return this.sinks.some((sink) => typeof sink[hook] === "function");
  }

  call<K extends SyncHook>(hook: K, ...args: Parameters<NonNullable<RunSink[K]>>): void;
  // Called for every attempt: the arguments are passed on as given, without a rest array.
  call(hook: SyncHook, first: unknown, second?: unknown): void {
    for (const sink of this.sinks) {
      const fn = sink[hook] as ((...a: unknown[]) => void) | undefined;
      if (fn === undefined || (this.closed.size > 0 && this.closed.has(sink))) continue;
      try {
        if (hook === "onJudgment") fn.call(sink, first, second);
        else fn.call(sink, first);
      } catch (error) {
        this.report(sink, hook, error);
      }
    }
  }

  /** A wait for the first sink whose backlog is full, or undefined when every one has room. */
  room(): Promise<void> | undefined {
    for (const sink of this.backlogged) {
      if (this.closed.size > 0 && this.closed.has(sink)) continue;
      try {
        const wait = sink.room?.();
        if (wait) return wait;
      } catch (error) {
        this.report(sink, "room", error);
      }
    }
    return undefined;
  }

  async finish(summary: RunSummary): Promise<void> {
    for (const sink of this.sinks) {
      if (this.closed.has(sink)) continue;
      try {
        await sink.onRunFinished?.(summary);
      } catch (error) {
        this.report(sink, "onRunFinished", error);
      }
    }
    if (this.failures.length > 0) summary.reportErrors = [...this.failures];
  }

  private report(sink: RunSink, hook: string, error: unknown): void {
    if (this.broken.has(sink)) return;
    this.broken.add(sink);
    if (isClosedOutput(error)) {
      // `niceeval run | head`: the reader is gone, which is no fault of the reporter or the run.
      // (A stderr that is closed too takes this line as it takes all others: dropped.)
      this.closed.add(sink);
      process.stderr.write(
        `niceeval: ${closedReportNote(error)}; that report stops here, the run goes on\n`,
      );
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof SinkReport) {
      this.failures.push(message);
      process.stderr.write(`niceeval: ${message}\n`);
      return;
    }
    const name = sink.label ?? this.placeOf(this.sinks.indexOf(sink)) ?? "a reporter";
    this.failures.push(`${name} failed in ${hook}: ${message}`);
    process.stderr.write(
      `niceeval: ${name} failed in ${hook} (later failures of it are not shown): ${message}\n`,
    );
  }
}

/** What closed a report's output, as said on stderr: its reader (EPIPE), or its descriptor. */
function closedReportNote(error: unknown): string {
  const { code } = error as { code: string };
  return code === "EPIPE"
    ? "the reader of a report closed its pipe (EPIPE)"
    : `the output of a report is closed (${code})`;
}
