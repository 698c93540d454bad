/**
 * Where a run came from, so its messages advise the options its caller has: the CLI
 * (`niceeval run`, its eval processes and queue workers), which has flags such as `--timeout`, or
 * code (runEval, runEvals, a score eval's `run()`, Vitest), which has `timeoutMs` options.
 * Undefined is code. Whether a stopped run can be resumed is its stop's to say ({@link RunStop}).
 */
export type RunOrigin = "cli" | "code";

/** The options that set an attempt's time limit, as its run's caller gives them. */
export function timeoutOptions(origin: RunOrigin | undefined): string {
  return origin === "cli"
    ? "--timeout or the eval's timeoutMs"
    : "the timeoutMs of the run (runEval, runEvals) or of the eval (defineSuite, defineScoreEval)";
}

/**
 * The reason a CLI run's stop aborts the run's signal with, saying whether `--resume` can continue
 * the run then: it is stored, in a store that takes its writes (not under `--no-store`, not a
 * store found damaged or refusing a write). An eval process is told both, and makes its own.
 */
export class RunStop extends Error {
  constructor(
    message: string,
    readonly resumable: boolean,
  ) {
    super(message);
  }
}

/**
 * Whether a run's stop, its signal's reason, leaves a run `--resume` continues: only a
 * {@link RunStop} that says so (a signal aborted by code, or a queue worker's, never does).
 */
export function resumableStop(reason: unknown): boolean {
  return reason instanceof Error && (reason as Partial<RunStop>).resumable === true;
}

/**
 * What becomes of an attempt a stop cut off, after its verdict: a resumed run runs it, where one
 * can be resumed (the signal's reason, {@link resumableStop}); else nothing is promised.
 */
export function runsAgain(reason: unknown): string {
  return resumableStop(reason) ? ", and a resumed run runs it again" : "";
}
