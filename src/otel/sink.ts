import type { RunSink } from "../runner/sink.js";
import { redactUrl } from "../store/postgres/connection.js";
import { exportTimeoutMs, masker, shownEndpoint } from "./config.js";
import { describeExportError } from "./guard.js";
import { startExporting } from "./providers.js";
import { RunSpans } from "./spans.js";

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
  const otel = await startExporting({
    version: options.version,
    endpoint: options.endpoint,
    headers: options.headers,
    timeoutMs: options.timeoutMs ?? exportTimeoutMs(env),
    onFailure,
  });
  const spans = new RunSpans(otel, mask, options.runName);
  return {
    onRunStart: (info) => {
      spans.startRun(info.runId, {
        "niceeval.run.concurrency": info.concurrency,
        "niceeval.run.files": info.files,
        ...(info.trials !== undefined ? { "niceeval.run.trials": info.trials } : {}),
      });
    },
    onEvalScheduled: (info) => {
      spans.evalSpan(info.evalId, info);
    },
    onAttemptStarted: (attempt) => {
      spans.startAttempt(attempt);
    },
    onJudgment: (attempt, judgment) => spans.announce(attempt, judgment),
    onAttemptFinished: (record) => spans.finishAttempt(record),
    onEvalFinished: (summary) => spans.finishEval(summary),
    onRunFinished: async (summary) => {
      spans.finishRun(summary);
      for (const result of await otel.shutdown())
        if (result.status === "rejected") onFailure(result.reason);
    },
  };
}
