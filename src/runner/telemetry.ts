/** A sink of events. Sinks must ignore kinds they do not know. */
export interface Telemetry<E> {
  emit(event: E): void | Promise<void>;
}

/** A telemetry sink that keeps every event in memory, for tests and small runs. */
export interface ArrayTelemetry<E> extends Telemetry<E> {
  readonly events: E[];
}

/**
 * Collect events in an array.
 * @example
 * const telemetry = arrayTelemetry<EvalEvent>();
 * await runEval(suite, { target, telemetry });
 * telemetry.events.map((e) => e.kind);
 */
export function arrayTelemetry<E>(): ArrayTelemetry<E> {
  const events: E[] = [];
  return {
    events,
    emit(event) {
      events.push(event);
    },
  };
}
