/** The part of an OpenTelemetry exporter (spans or log records) the guard needs. */
interface Exporter<T, R> {
  export(items: T[], done: (result: R) => void): void;
  shutdown(): Promise<void>;
  forceFlush?(): Promise<void>;
}

/** `ExportResultCode` of `@opentelemetry/core` (not a dependency of niceeval's own). */
const FAILED = 1;

/**
 * Wraps an exporter so that its first failure is reported (once, through `onFailure`) and later
 * batches are dropped at once: a collector that is down costs one export's retries, not one per
 * batch, and never the run.
 */
export function guardExporter<T, R extends { code: number; error?: Error }>(
  inner: Exporter<T, R>,
  onFailure: (error: unknown) => void,
): Exporter<T, R> & { forceFlush(): Promise<void> } {
  let down: Error | undefined;
  return {
    export(items, done) {
      if (down) return done({ code: FAILED, error: down } as R);
      try {
        inner.export(items, (result) => {
          if (result.code === FAILED && !down) {
            down = result.error ?? new Error("export failed");
            onFailure(down);
          }
          done(result);
        });
      } catch (error) {
        down = error instanceof Error ? error : new Error(String(error));
        onFailure(down);
        done({ code: FAILED, error: down } as R);
      }
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}

/** A short reason for an export failure: the HTTP status, or the network error's message or code. */
export function describeExportError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { code, data } = error as Error & { code?: unknown; data?: unknown };
  if (typeof code === "number") {
    const body = typeof data === "string" && data.trim() ? `: ${data.trim().slice(0, 200)}` : "";
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
