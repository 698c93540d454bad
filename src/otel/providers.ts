// The OpenTelemetry SDK as a run exports through it: a tracer and a logger over OTLP/HTTP (JSON),
// with niceeval's resource, and exporters that report a failure instead of throwing. The SDK
// packages are loaded here, only when a run exports.
import type { Tracer } from "@opentelemetry/api";
import type { Logger } from "@opentelemetry/api-logs";
import type { LogRecordProcessor } from "@opentelemetry/sdk-logs";
import type { SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { clearTimeout, setTimeout } from "../clock.js";
import type { BatchSettings, Signal } from "./config.js";
import { type Exporter, ExportTally, guardExporter } from "./guard.js";
import { ExportQueue } from "./queue.js";

/** The batch processors' own queue: unbounded, since {@link ExportQueue} bounds it without dropping. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/** Where and how the exporters send. */
export interface ExportSettings {
  version: string;
  /** OTLP/HTTP base URL; absent: the SDK reads `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  endpoint?: string | undefined;
  headers?: Record<string, string> | undefined;
  timeoutMs?: number | undefined;
  /** Called for each failed export, with its signal (the guard keeps it from the run; later batches are still sent). */
  onFailure: (error: unknown, signal: Signal) => void;
  /** Each signal's batching: `OTEL_BSP_*` and `OTEL_BLRP_*` (see `batchSettings`). */
  batch: Record<Signal, BatchSettings>;
  /**
   * Set the OpenTelemetry diag logger (global) to hear a collector's partial successes: the SDK
   * says them there only. Each is counted in its signal's tally and passed to `onRejected`.
   */
  diagnostics?: boolean | undefined;
  onRejected?: ((signal: Signal, count: number) => void) | undefined;
  /**
   * The trace id of a root span (32 hex digits), when it is to be a given one: a run resumed in
   * another process then continues its first process's trace.
   */
  traceId?: () => string | undefined;
}

/** A tracer and a logger that export, and how to flush and close both. */
export interface Exporting {
  api: typeof import("@opentelemetry/api");
  tracer: Tracer;
  logger: Logger;
  severity: typeof import("@opentelemetry/api-logs").SeverityNumber;
  /** Per signal, what was made, delivered and lost: final once `shutdown` has settled. */
  tallies: Record<Signal, ExportTally>;
  /**
   * A wait while a signal's export queue is full and its collector takes what it is sent (the
   * run's backpressure); undefined when both have room or a full one's exports are failing.
   */
  room(): Promise<void> | undefined;
  /** A new span id (16 hex digits), for a span made later with {@link withSpanId}. */
  newSpanId(): string;
  /**
   * What `make` returns, the span it starts having the id `spanId`: a span made once its
   * children were (an eval's, started back at its earliest attempt) keeps the id they name.
   */
  withSpanId<T>(spanId: string, make: () => T): T;
  /** Flush and close, once every export sent was answered; the tracer's result, then the logger's. */
  shutdown(): Promise<PromiseSettledResult<void>[]>;
}

export async function startExporting(settings: ExportSettings): Promise<Exporting> {
  const [api, logsApi, traceSdk, logsSdk, traceExporter, logsExporter, resources] =
    await Promise.all([
      import("@opentelemetry/api"),
      import("@opentelemetry/api-logs"),
      import("@opentelemetry/sdk-trace-base"),
      import("@opentelemetry/sdk-logs"),
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/exporter-logs-otlp-http"),
      import("@opentelemetry/resources"),
    ]);
  const { endpoint, headers, timeoutMs, onFailure } = settings;
  const exporterConfig = (path: string) => ({
    ...(endpoint !== undefined ? { url: `${endpoint.replace(/\/+$/, "")}/${path}` } : {}),
    ...(headers ? { headers } : {}),
    ...(timeoutMs !== undefined ? { timeoutMillis: timeoutMs } : {}),
  });
  const resource = runResource(resources, settings.version);
  const tallies = { traces: new ExportTally(), logs: new ExportTally() };
  if (settings.diagnostics) hearPartialSuccesses(api, tallies, settings.onRejected);
  const queues = {
    traces: new ExportQueue(settings.batch.traces.maxQueueSize, () => tallies.traces.failing),
    logs: new ExportQueue(settings.batch.logs.maxQueueSize, () => tallies.logs.failing),
  };
  const guards: { settled(): Promise<void>; tryAgain(): void }[] = [];
  const exporter = <T, R extends { code: number; error?: Error }>(
    signal: Signal,
    inner: Exporter<T, R>,
  ) => {
    const guarded = guardExporter(inner, tallies[signal], (error) => onFailure(error, signal));
    guards.push(guarded);
    return queues[signal].counting(guarded);
  };
  // The SDK's processors batch and send; their queues are unbounded, the ExportQueues bound them.
  const batching = (signal: Signal) => ({
    ...settings.batch[signal],
    maxQueueSize: UNBOUNDED,
  });
  const spanBatches = new traceSdk.BatchSpanProcessor(
    exporter("traces", new traceExporter.OTLPTraceExporter(exporterConfig("v1/traces"))),
    batching("traces"),
  );
  const logBatches = new logsSdk.BatchLogRecordProcessor({
    exporter: exporter("logs", new logsExporter.OTLPLogExporter(exporterConfig("v1/logs"))),
    ...batching("logs"),
  });
  const { spanGate, logGate } = countingGates(api, tallies, queues, spanBatches, logBatches);
  const ids = runIds(new traceSdk.RandomIdGenerator(), settings.traceId);
  const tracerProvider = new traceSdk.BasicTracerProvider({
    resource,
    idGenerator: ids.idGenerator,
    spanProcessors: [spanGate],
  });
  const loggerProvider = new logsSdk.LoggerProvider({ resource, processors: [logGate] });
  return {
    api,
    tracer: tracerProvider.getTracer("niceeval", settings.version),
    logger: loggerProvider.getLogger("niceeval", settings.version),
    severity: logsApi.SeverityNumber,
    tallies,
    room: () => queues.traces.room() ?? queues.logs.room(),
    newSpanId: ids.newSpanId,
    withSpanId: ids.withSpanId,
    shutdown: async () => {
      // A collector that came back since exports began to be dropped gets what is left: the
      // end tries once more (one export timeout at most, if it is still down).
      for (const guard of guards) guard.tryAgain();
      const closed = await Promise.allSettled([
        tracerProvider.shutdown(),
        loggerProvider.shutdown(),
      ]);
      // A processor stops waiting for an export after its own timeout (OTEL_BSP_EXPORT_TIMEOUT)
      // while the request goes on: the tallies are final once every export was answered, which
      // the exporter's own timeout bounds.
      await settle(guards, (timeoutMs ?? 30_000) + 1000);
      if (settings.diagnostics) api.diag.disable();
      return closed;
    },
  };
}

/**
 * The processors the providers are given: they count what each processor is given (the span one
 * exports sampled spans only), and drop only what does not fit while that signal's exports keep
 * failing.
 */
function countingGates(
  api: typeof import("@opentelemetry/api"),
  tallies: Record<Signal, ExportTally>,
  queues: Record<Signal, ExportQueue>,
  spanBatches: SpanProcessor,
  logBatches: LogRecordProcessor,
): { spanGate: SpanProcessor; logGate: LogRecordProcessor } {
  const spanGate: SpanProcessor = {
    onStart: (span, context) => spanBatches.onStart(span, context),
    onEnd: (span) => {
      if (!(span.spanContext().traceFlags & api.TraceFlags.SAMPLED)) return;
      tallies.traces.made++;
      if (queues.traces.admit()) spanBatches.onEnd(span);
      else tallies.traces.dropped++;
    },
    forceFlush: () => spanBatches.forceFlush(),
    shutdown: () => spanBatches.shutdown(),
  };
  const logGate: LogRecordProcessor = {
    onEmit: (record) => {
      tallies.logs.made++;
      if (queues.logs.admit()) logBatches.onEmit(record);
      else tallies.logs.dropped++;
    },
    forceFlush: () => logBatches.forceFlush(),
    shutdown: () => logBatches.shutdown(),
  };
  return { spanGate, logGate };
}

/** What the SDK says of a partial success on the diag logger (its JSON follows). */
const PARTIAL_SUCCESS = "Received Partial Success response";

/** Sets the diag logger to {@link partialSuccesses}'s. */
function hearPartialSuccesses(
  api: typeof import("@opentelemetry/api"),
  tallies: Record<Signal, ExportTally>,
  onRejected: ((signal: Signal, count: number) => void) | undefined,
): void {
  api.diag.setLogger(partialSuccesses(tallies, onRejected), {
    logLevel: api.DiagLogLevel.WARN,
    suppressOverrideMessage: true,
  });
}

/**
 * A diag logger that hears the partial successes the SDK's exporters log (`rejectedSpans`,
 * `rejectedLogRecords`, `errorMessage`) and counts them in the signal's tally; the rest is
 * dropped, as without a diag logger.
 */
function partialSuccesses(
  tallies: Record<Signal, ExportTally>,
  onRejected: ((signal: Signal, count: number) => void) | undefined,
) {
  const none = () => {};
  const warn = (message: string, ...args: unknown[]) => {
    if (!message.startsWith(PARTIAL_SUCCESS)) return;
    let partial: { rejectedSpans?: unknown; rejectedLogRecords?: unknown; errorMessage?: unknown };
    try {
      partial = JSON.parse(String(args[0]));
    } catch {
      return;
    }
    const why = typeof partial.errorMessage === "string" ? partial.errorMessage : undefined;
    const counts = { traces: partial.rejectedSpans, logs: partial.rejectedLogRecords };
    for (const signal of ["traces", "logs"] as const) {
      const count = Number(counts[signal] ?? 0);
      if (!(Number.isInteger(count) && count > 0)) continue;
      tallies[signal].rejected += count;
      tallies[signal].rejection ??= why;
      onRejected?.(signal, count);
    }
  };
  return { error: none, warn, info: none, debug: none, verbose: none };
}

/** niceeval's resource, under what `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` say. */
function runResource(resources: typeof import("@opentelemetry/resources"), version: string) {
  return resources
    .defaultResource()
    .merge(
      resources.resourceFromAttributes({ "service.name": "niceeval", "service.version": version }),
    )
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
}

/** Waits until every guarded exporter's exports were answered, `limitMs` at most. */
async function settle(
  guards: readonly { settled(): Promise<void> }[],
  limitMs: number,
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, limitMs);
    timer.unref();
  });
  await Promise.race([Promise.all(guards.map((guard) => guard.settled())), limit]);
  clearTimeout(timer);
}

/** Ids as the SDK makes them. */
interface IdGenerator {
  generateTraceId(): string;
  generateSpanId(): string;
}

/**
 * The run's ids: a root span's trace id is `traceId()` when it gives one, span ids are random but
 * for a span started inside `withSpanId`, which takes the id reserved for it.
 */
function runIds(random: IdGenerator, traceId: (() => string | undefined) | undefined) {
  let reserved: string | undefined;
  const idGenerator: IdGenerator = {
    generateTraceId: () => traceId?.() ?? random.generateTraceId(),
    generateSpanId: () => {
      const id = reserved ?? random.generateSpanId();
      reserved = undefined;
      return id;
    },
  };
  return {
    idGenerator,
    newSpanId: () => random.generateSpanId(),
    withSpanId<T>(spanId: string, make: () => T): T {
      reserved = spanId;
      try {
        return make();
      } finally {
        reserved = undefined;
      }
    },
  };
}
