// The OpenTelemetry SDK as a run exports through it: a tracer and a logger over OTLP/HTTP (JSON),
// with niceeval's resource, and exporters that report a failure instead of throwing. The SDK
// packages are loaded here, only when a run exports.
import type { Tracer } from "@opentelemetry/api";
import type { Logger } from "@opentelemetry/api-logs";
import { ExportTally, guardExporter } from "./guard.js";

/** Where and how the exporters send. */
export interface ExportSettings {
  version: string;
  /** OTLP/HTTP base URL; absent: the SDK reads `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  endpoint?: string | undefined;
  headers?: Record<string, string> | undefined;
  timeoutMs?: number | undefined;
  /** Called for each failed export, with its signal (the guard keeps it from the run; later batches are still sent). */
  onFailure: (error: unknown, signal: "traces" | "logs") => void;
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
  tallies: Record<"traces" | "logs", ExportTally>;
  /** Flush and close; the tracer's result, then the logger's. */
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
  const resource = resources
    .defaultResource()
    .merge(
      resources.resourceFromAttributes({
        "service.name": "niceeval",
        "service.version": settings.version,
      }),
    )
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over niceeval's defaults.
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const tallies = { traces: new ExportTally(), logs: new ExportTally() };
  const random = new traceSdk.RandomIdGenerator();
  const tracerProvider = new traceSdk.BasicTracerProvider({
    resource,
    idGenerator: {
      generateTraceId: () => settings.traceId?.() ?? random.generateTraceId(),
      generateSpanId: () => random.generateSpanId(),
    },
    spanProcessors: [
      // Counts what the batch processor is given (it exports sampled spans only), so spans it
      // drops from a full queue are counted as lost too.
      {
        onStart: () => {},
        onEnd: (span) => {
          if (span.spanContext().traceFlags & api.TraceFlags.SAMPLED) tallies.traces.made++;
        },
        forceFlush: () => Promise.resolve(),
        shutdown: () => Promise.resolve(),
      },
      new traceSdk.BatchSpanProcessor(
        guardExporter(
          new traceExporter.OTLPTraceExporter(exporterConfig("v1/traces")),
          tallies.traces,
          (error) => onFailure(error, "traces"),
        ),
      ),
    ],
  });
  const loggerProvider = new logsSdk.LoggerProvider({
    resource,
    processors: [
      {
        onEmit: () => {
          tallies.logs.made++;
        },
        forceFlush: () => Promise.resolve(),
        shutdown: () => Promise.resolve(),
      },
      new logsSdk.BatchLogRecordProcessor({
        exporter: guardExporter(
          new logsExporter.OTLPLogExporter(exporterConfig("v1/logs")),
          tallies.logs,
          (error) => onFailure(error, "logs"),
        ),
      }),
    ],
  });
  return {
    api,
    tracer: tracerProvider.getTracer("niceeval", settings.version),
    logger: loggerProvider.getLogger("niceeval", settings.version),
    severity: logsApi.SeverityNumber,
    tallies,
    shutdown: () => Promise.allSettled([tracerProvider.shutdown(), loggerProvider.shutdown()]),
  };
}
