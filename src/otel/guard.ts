import { visible } from "../visible.js";

/** The part of an OpenTelemetry exporter (spans or log records) the guard needs. */
export interface Exporter<T, R> {
  export(items: T[], done: (result: R) => void): void;
  shutdown(): Promise<void>;
  forceFlush?(): Promise<void>;
}

/** `ExportResultCode` of `@opentelemetry/core` (not a dependency of niceeval's own). */
const FAILED = 1;

/** How one signal's export went, for the count said at the end of a run. */
export class ExportTally {
  /** Spans ended or log records emitted: what the SDK was given to export. */
  made = 0;
  /** Of those, what the collector accepted. */
  delivered = 0;
  /** Exports that failed, the SDK's own retries included. */
  failures = 0;
  /** Batches dropped unsent while the exports kept failing (see {@link guardExporter}). */
  unsent = 0;
  /** Spans or log records dropped before any batch: their queue was full while exports kept failing. */
  dropped = 0;
  /** Whether the last export failed (or was dropped unsent): set by {@link guardExporter}. */
  failing = false;
  /** Of those delivered, what the collector rejected (an OTLP partial success). */
  rejected = 0;
  /** The collector's first reason for a rejection. */
  rejection: string | undefined;
  /**
   * What never reached the collector or was rejected by it: failed batches, unsent ones, those
   * dropped before a batch, and those a partial success rejected.
   */
  get lost(): number {
    return Math.min(this.made, Math.max(0, this.made - this.delivered + this.rejected));
  }
}

/** When the guard stops sending a signal whose exports keep failing, and when it tries again. */
export interface GuardTiming {
  /** Failed exports in a row after which later batches are dropped unsent (default 3). */
  failuresInARow?: number;
  /**
   * A failed export that took this long already stops them (default 1000 ms): the SDK retried
   * it (its first retry waits a second), so the collector has been unreachable all that time.
   */
  slowFailureMs?: number;
  /** Then one batch is still sent every this many ms, so a collector that is back gets the rest (default 10 s). */
  retryEveryMs?: number;
  now?: () => number;
}

/**
 * Wraps an exporter so that a failed export never reaches the run: each failure is passed to
 * `onFailure` and counted in `tally`, with what was delivered, and later batches are still sent,
 * so one refused or lost request costs that batch only. Once exports keep failing (a collector
 * that is down: each export then takes the SDK's retries, up to the export timeout), batches are
 * dropped unsent and counted, but for one every `retryEveryMs`, so the end of a run is not held by
 * one timeout per batch and a collector that comes back gets the rest.
 */
export function guardExporter<T, R extends { code: number; error?: Error }>(
  inner: Exporter<T, R>,
  tally: ExportTally,
  onFailure: (error: unknown) => void,
  timing: GuardTiming = {},
): Exporter<T, R> & {
  forceFlush(): Promise<void>;
  settled(): Promise<void>;
  /** Send the next batch even while batches are dropped (the run's end: one more try). */
  tryAgain(): void;
} {
  const failuresInARow = timing.failuresInARow ?? 3;
  const slowFailureMs = timing.slowFailureMs ?? 1000;
  const retryEveryMs = timing.retryEveryMs ?? 10_000;
  const now = timing.now ?? Date.now;
  let inARow = 0;
  let downUntil = Number.NEGATIVE_INFINITY;
  let last: Error | undefined;
  // Exports sent and not answered yet: a batch processor may stop waiting for one (its own
  // export timeout) while the request goes on, and the collector may still take it.
  const inFlight = new Set<Promise<void>>();
  const failed = (error: Error, tookMs: number) => {
    tally.failures++;
    tally.failing = true;
    inARow++;
    last = error;
    if (inARow >= failuresInARow || tookMs >= slowFailureMs) downUntil = now() + retryEveryMs;
    onFailure(error);
  };
  return {
    export(items, done) {
      if (now() < downUntil) {
        tally.unsent++;
        return done({ code: FAILED, error: last } as R);
      }
      const started = now();
      let answered = () => {};
      const answer = new Promise<void>((resolve) => {
        answered = resolve;
      });
      inFlight.add(answer);
      const settle = () => {
        inFlight.delete(answer);
        answered();
      };
      try {
        inner.export(items, (result) => {
          if (result.code === FAILED)
            failed(result.error ?? new Error("export failed"), now() - started);
          else {
            inARow = 0;
            tally.failing = false;
            downUntil = Number.NEGATIVE_INFINITY;
            tally.delivered += items.length;
          }
          settle();
          done(result);
        });
      } catch (error) {
        const thrown = error instanceof Error ? error : new Error(String(error));
        failed(thrown, 0);
        settle();
        done({ code: FAILED, error: thrown } as R);
      }
    },
    tryAgain: () => {
      downUntil = Number.NEGATIVE_INFINITY;
    },
    settled: async () => {
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}

/**
 * A short reason for an export failure, on one line: the HTTP status and the start of the answer,
 * or the network error's message or code.
 */
export function describeExportError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { code, data } = error as Error & { code?: unknown; data?: unknown };
  if (typeof code === "number") {
    // On one line: a web server's error page spans many, and the message is one line of stderr.
    const text = typeof data === "string" ? data.replace(/\s+/g, " ").trim() : "";
    const body = text ? `: ${visible(text.slice(0, 200))}` : "";
    return `HTTP ${code}${error.message ? ` ${error.message}` : ""}${body}`;
  }
  // Node's connection errors to "localhost" are AggregateErrors with an empty message.
  const inner = (error as { errors?: unknown[] }).errors?.[0];
  return (
    error.message ||
    (typeof code === "string" ? code : "") ||
    (inner instanceof Error ? inner.message : "") ||
    error.name
  );
}
