import { type HeldSignals, STOP_SIGNALS, type StopSignal } from "../cli/early.js";
import { clearTimeout, setTimeout } from "../clock.js";
import { errorMessage } from "../errors.js";
import { RunStop } from "../eval/run-origin.js";
import { keepListener } from "../process-listeners.js";

/** Default time attempts in flight get to finish after the first SIGINT or SIGTERM, ms. */
export const DEFAULT_GRACE_MS = 10_000;

/** Options of {@link guardRun}. */
export interface RunGuardOptions {
  /** Aborted by the first signal: no new case starts, attempts in flight see their signal. */
  abort: AbortController;
  /** How long attempts in flight get after the first signal, ms. */
  graceMs: number;
  /** Give up on the attempts still in flight (after the grace period, or at a second signal). */
  interrupt: (reason: string) => void;
  /**
   * Where the guard's messages go. A stderr whose reader left must drop them (the CLI's does:
   * cli/closed-stdio.ts): the guard writes there from its uncaught-error handler, and a write that
   * raised an error in turn would be handled, and written, again without end.
   */
  stderr: (text: string) => void;
  /** Signals received before the guard was installed: acted on at once, in order. */
  held?: HeldSignals;
  /**
   * Whether `--resume` can continue the run when the first signal comes (it is stored, in a store
   * that takes its writes): the stop says so to the attempts it cuts off. Default: it cannot.
   */
  resumable?: () => boolean;
}

/** What a guarded run saw. */
export interface RunGuard {
  /** The signal that stopped the run, if one did. */
  readonly signal: StopSignal | undefined;
  /** The exit code that signal asks for (130 for SIGINT, 143 for SIGTERM). */
  readonly exitCode: number | undefined;
  /** Uncaught errors in this process during the run (user code loaded here, at top level). */
  readonly errors: readonly string[];
  /**
   * Hands each SIGINT or SIGTERM to `listener` first, until the returned function is called: one
   * it takes (returns true) does nothing else, but still sets the exit code. For what the run
   * waits for after its attempts, such as the OpenTelemetry export at its end.
   */
  onSignal(listener: (signal: StopSignal) => boolean): () => void;
  dispose(): void;
}

/**
 * Signals and uncaught errors during a run. The first SIGINT or SIGTERM aborts the run and
 * starts the grace period; a second one (or the end of the grace period) interrupts the attempts
 * still running, so the run ends now and still writes its report and store; a third exits at once.
 */
export function guardRun(options: RunGuardOptions): RunGuard {
  let received: StopSignal | undefined;
  let count = 0;
  let grace: ReturnType<typeof setTimeout> | undefined;
  const errors: string[] = [];
  const listeners = new Set<(signal: StopSignal) => boolean>();
  const say = (text: string) => {
    // A writer that throws must not end the run, nor throw from the handlers below.
    try {
      options.stderr(text);
    } catch {}
  };
  const onSignal = (signal: StopSignal) => {
    count++;
    received ??= signal;
    for (const listener of [...listeners]) if (listener(signal)) return;
    if (count === 1) {
      say(
        `\nniceeval: ${signal}: no new case starts; attempts in flight have ${options.graceMs / 1000} s to finish (send ${signal} again to stop them now)\n`,
      );
      options.abort.abort(new RunStop(`interrupted by ${signal}`, options.resumable?.() === true));
      grace = setTimeout(
        () =>
          options.interrupt(
            `interrupted by ${signal}: the attempt did not finish within the ${options.graceMs / 1000} s grace period`,
          ),
        options.graceMs,
      );
    } else if (count === 2) {
      const again = signal === received ? `${signal} again` : `${signal}, a second signal`;
      say(`niceeval: ${again}: stopping the attempts in flight; writing the report\n`);
      options.interrupt(`interrupted by ${signal} before the attempt finished`);
    } else {
      process.exit(128 + STOP_SIGNALS[received]);
    }
  };
  const onInt = () => onSignal("SIGINT");
  const onTerm = () => onSignal("SIGTERM");
  // User code loaded in this process (top-level timers, stray promises) must not end the run.
  const onError = (kind: string) => (error: unknown) => {
    const message = `${kind} outside any case: ${described(error)}`;
    errors.push(message);
    say(`niceeval: ${message}\n`);
  };
  const onException = onError("uncaught exception");
  const onRejection = onError("unhandled rejection");
  // Kept: an attempt run in this process (--no-supervise) that removes one has it put back.
  const removers = [
    keepListener("SIGINT", onInt),
    keepListener("SIGTERM", onTerm),
    keepListener("uncaughtException", onException),
    keepListener("unhandledRejection", onRejection),
  ];
  // The held signals are taken only now: Node drops a signal that came while the process was busy
  // if every listener of it was removed before the event loop turned, so a signal always has one.
  for (const signal of options.held?.take() ?? []) onSignal(signal);
  return {
    get signal() {
      return received;
    },
    get exitCode() {
      return received === undefined ? undefined : 128 + STOP_SIGNALS[received];
    },
    errors,
    onSignal(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispose() {
      if (grace) clearTimeout(grace);
      for (const remove of removers) remove();
    },
  };
}

/** An uncaught value with its stack when it has one; a thrown proxy can throw from instanceof. */
function described(error: unknown): string {
  try {
    if (error instanceof Error) return String(error.stack ?? error.message);
  } catch {}
  return errorMessage(error);
}
