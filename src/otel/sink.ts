import type { Span, Tracer } from "@opentelemetry/api";
import type { Logger } from "@opentelemetry/api-logs";
import type { AttemptRecord } from "../eval/record.js";
import type { AttemptInfo, EvalInfo, RunSink } from "../runner/sink.js";
import { redactUrl } from "../store/postgres/connection.js";
import {
  attemptIdentity,
  attemptOutcome,
  EVALUATION_EVENT,
  evalOutcome,
  judgmentAttributes,
  runOutcome,
} from "./attributes.js";
import { exportTimeoutMs, masker, shownEndpoint } from "./config.js";
import { describeExportError, guardExporter } from "./guard.js";

/** How {@link otelSink} exports. Everything else comes from the standard `OTEL_*` variables. */
export interface OtelSinkOptions {
  /** niceeval's version, the instrumentation scope's and the default `service.version`. */
  version: string;
  /** The run's `--name`, set as `niceeval.run.name`. */
  runName?: string;
  /** The environment the secrets to mask are read from (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where the one export-failure warning goes (default standard error). */
  stderr?: (text: string) => void;
  /**
   * OTLP/HTTP base URL (`/v1/traces` and `/v1/logs` are appended), instead of
   * `OTEL_EXPORTER_OTLP_ENDPOINT`; for programmatic use and tests.
   */
  endpoint?: string;
  /** Headers sent with every export, instead of `OTEL_EXPORTER_OTLP_HEADERS`. */
  headers?: Record<string, string>;
  /** Time one export may take, retries included, ms (default: `OTEL_EXPORTER_OTLP_TIMEOUT`, else 5 s). */
  timeoutMs?: number;
}

interface OpenAttempt {
  span: Span;
  /** When each judgment was announced in real time, to date its log record. */
  announced: { label: string; source: string; at: number }[];
}

const now = () => performance.timeOrigin + performance.now();

const attemptKey = (evalId: string, caseId: string, index: number, trial: number) =>
  `${evalId}\u0000${caseId}\u0000${index >= 0 ? index : -1}\u0000${trial}`;

/**
 * A sink that exports a run through OpenTelemetry over OTLP/HTTP (JSON): a span per run, per
 * eval and per attempt (`test.suite.*` / `test.case.*` attributes and niceeval's own), parented
 * run → eval → attempt with their real times, and one `gen_ai.evaluation.result` log record per
 * judgment in its attempt's span. The SDK packages are loaded here, only when a run exports.
 * Endpoint, headers, timeout and resource (`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`) are
 * read from the environment by the SDK. A failed export is said once on stderr and never fails
 * the run; header values and URL passwords are masked in every attribute and message.
 *
 * @example
 * const sink = await otelSink({ version: "0.1.0" });
 * await runEvals(entries, { reporters: [consoleReporter(), sink] });
 */
export async function otelSink(options: OtelSinkOptions): Promise<RunSink> {
  const env = options.env ?? process.env;
  const mask = masker({
    ...env,
    ...(options.endpoint !== undefined ? { OTEL_EXPORTER_OTLP_ENDPOINT: options.endpoint } : {}),
    ...(options.headers
      ? {
          OTEL_EXPORTER_OTLP_HEADERS: Object.entries(options.headers)
            .map(([k, v]) => `${k}=${v}`)
            .join(","),
        }
      : {}),
  });
  const stderr = options.stderr ?? ((text: string) => void process.stderr.write(text));
  const [api, traceSdk, logsSdk, traceExporter, logsExporter, resources] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/sdk-logs"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/exporter-logs-otlp-http"),
    import("@opentelemetry/resources"),
  ]);
  const { ROOT_CONTEXT, SpanStatusCode, trace } = api;

  let warned = false;
  const where =
    options.endpoint !== undefined
      ? redactUrl(`${options.endpoint.replace(/\/+$/, "")}/v1/traces`)
      : shownEndpoint(env);
  const onFailure = (error: unknown) => {
    if (warned) return;
    warned = true;
    stderr(
      `niceeval: OpenTelemetry export to ${where} failed (${mask(describeExportError(error))}); this run's spans and evaluation logs are not exported, the run and its report are not affected\n`,
    );
  };
  const timeoutMs = options.timeoutMs ?? exportTimeoutMs(env);
  const exporterConfig = (path: string) => ({
    ...(options.endpoint !== undefined
      ? { url: `${options.endpoint.replace(/\/+$/, "")}/${path}` }
      : {}),
    ...(options.headers ? { headers: options.headers } : {}),
    ...(timeoutMs !== undefined ? { timeoutMillis: timeoutMs } : {}),
  });
  const resource = resources
    .defaultResource()
    .merge(
      resources.resourceFromAttributes({
        "service.name": "niceeval",
        "service.version": options.version,
      }),
    )
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over niceeval's defaults.
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const tracerProvider = new traceSdk.BasicTracerProvider({
    resource,
    spanProcessors: [
      new traceSdk.BatchSpanProcessor(
        guardExporter(new traceExporter.OTLPTraceExporter(exporterConfig("v1/traces")), onFailure),
      ),
    ],
  });
  const loggerProvider = new logsSdk.LoggerProvider({
    resource,
    processors: [
      new logsSdk.BatchLogRecordProcessor({
        exporter: guardExporter(
          new logsExporter.OTLPLogExporter(exporterConfig("v1/logs")),
          onFailure,
        ),
      }),
    ],
  });
  const tracer: Tracer = tracerProvider.getTracer("niceeval", options.version);
  const logger: Logger = loggerProvider.getLogger("niceeval", options.version);
  const { SeverityNumber } = await import("@opentelemetry/api-logs");

  let runId = "";
  let runSpan: Span | undefined;
  const evals = new Map<string, { span: Span; lastEnd?: number }>();
  const attempts = new Map<string, OpenAttempt>();
  const under = (span: Span) => trace.setSpan(ROOT_CONTEXT, span);

  const startRun = (id: string, attributes: Record<string, string | number> = {}) => {
    runId = id;
    runSpan = tracer.startSpan(
      "niceeval run",
      {
        startTime: now(),
        attributes: {
          "niceeval.run.id": id,
          ...(options.runName !== undefined ? { "niceeval.run.name": mask(options.runName) } : {}),
          ...attributes,
        },
      },
      ROOT_CONTEXT,
    );
    return runSpan;
  };
  const evalSpan = (evalId: string, info?: EvalInfo, at = now()) => {
    const open = evals.get(evalId);
    if (open) return open.span;
    const span = tracer.startSpan(
      `eval ${mask(evalId)}`,
      {
        startTime: at,
        attributes: {
          "test.suite.name": mask(evalId),
          "niceeval.run.id": runId,
          "niceeval.eval.id": mask(evalId),
          ...(info ? { "niceeval.eval.style": info.style } : {}),
          ...(info?.file !== undefined ? { "niceeval.eval.file": mask(info.file) } : {}),
          ...(info?.trials !== undefined ? { "niceeval.eval.trials": info.trials } : {}),
        },
      },
      under(runSpan ?? startRun("")),
    );
    evals.set(evalId, { span });
    return span;
  };
  const startAttempt = (attempt: AttemptInfo, at = now()): OpenAttempt => {
    const open: OpenAttempt = {
      span: tracer.startSpan(
        `case ${mask(attempt.caseId)}`,
        { startTime: at, attributes: attemptIdentity(runId, attempt, mask) },
        under(evalSpan(attempt.evalId, undefined, at)),
      ),
      announced: [],
    };
    attempts.set(attemptKey(attempt.evalId, attempt.caseId, attempt.index, attempt.trial), open);
    return open;
  };

  const finishAttempt = (record: AttemptRecord) => {
    const end = now();
    const info: AttemptInfo = {
      evalId: record.evalId,
      caseId: record.caseId,
      index: record.index ?? -1,
      trial: record.trial ?? 0,
    };
    const key = attemptKey(info.evalId, info.caseId, info.index, info.trial);
    // An attempt that never announced its start (a record from elsewhere) began elapsedMs ago.
    const open = attempts.get(key) ?? startAttempt(info, end - record.elapsedMs);
    attempts.delete(key);
    const { span } = open;
    span.setAttributes(attemptOutcome(record, mask));
    if (record.verdict === "errored") {
      const message = record.error
        ? `${record.error.where}: ${record.error.message}`
        : record.score.reasons.join("; ");
      span.setStatus({ code: SpanStatusCode.ERROR, message: mask(message) });
    }
    const identity = attemptIdentity(runId, info, mask);
    const context = under(span);
    for (const judgment of record.judgments) {
      const seen = open.announced.findIndex(
        (a) => a.label === judgment.label && a.source === judgment.source,
      );
      const at = seen >= 0 ? open.announced.splice(seen, 1)[0]!.at : end;
      const errored = judgment.state === "errored";
      logger.emit({
        eventName: EVALUATION_EVENT,
        timestamp: at,
        severityNumber: errored ? SeverityNumber.WARN : SeverityNumber.INFO,
        severityText: errored ? "WARN" : "INFO",
        context,
        attributes: { ...identity, ...judgmentAttributes(judgment, mask) },
      });
    }
    span.end(end);
    const parent = evals.get(record.evalId);
    if (parent) parent.lastEnd = Math.max(parent.lastEnd ?? 0, end);
  };

  return {
    onRunStart: (info) => {
      startRun(info.runId, {
        "niceeval.run.concurrency": info.concurrency,
        "niceeval.run.files": info.files,
        ...(info.trials !== undefined ? { "niceeval.run.trials": info.trials } : {}),
      });
    },
    onEvalScheduled: (info) => {
      evalSpan(info.evalId, info);
    },
    onAttemptStarted: (attempt) => {
      startAttempt(attempt);
    },
    onJudgment: (attempt, judgment) => {
      const key = attemptKey(attempt.evalId, attempt.caseId, attempt.index, attempt.trial);
      attempts.get(key)?.announced.push({
        label: judgment.label,
        source: judgment.source,
        at: now(),
      });
    },
    onAttemptFinished: finishAttempt,
    onEvalFinished: (summary) => {
      const open = evals.get(summary.evalId);
      if (!open) return;
      evals.delete(summary.evalId);
      open.span.setAttributes(evalOutcome(summary));
      // The eval ended with its last attempt, not when the ordered report reached it.
      open.span.end(open.lastEnd ?? now());
    },
    onRunFinished: async (summary) => {
      const end = now();
      // Attempts and evals still open were cut short (a cancelled run).
      for (const { span } of attempts.values()) {
        span.setAttribute("niceeval.cancelled", true);
        span.end(end);
      }
      attempts.clear();
      for (const { span, lastEnd } of evals.values()) span.end(lastEnd ?? end);
      evals.clear();
      const run = runSpan ?? startRun(summary.runId);
      run.setAttributes(runOutcome(summary));
      run.end(end);
      const results = await Promise.allSettled([
        tracerProvider.shutdown(),
        loggerProvider.shutdown(),
      ]);
      for (const result of results) if (result.status === "rejected") onFailure(result.reason);
    },
  };
}
