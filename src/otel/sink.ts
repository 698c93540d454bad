import { createHash } from "node:crypto";
import type { AttemptRecord } from "../eval/record.js";
import { redactUrl } from "../redact-url.js";
import type { RunSink } from "../runner/sink.js";
import { explainExportError } from "./advice.js";
import {
  batchSettings,
  endpointOf,
  exportTimeoutMs,
  masker,
  type Signal,
  sdkTimeoutMs,
  shownEndpoint,
} from "./config.js";
import type { ExportTally } from "./guard.js";
import { startExporting } from "./providers.js";
import { RunSpans } from "./spans.js";

/** How {@link otelSink} exports. Everything else comes from the standard `OTEL_*` variables. */
export interface OtelSinkOptions {
  /** niceeval's version, the instrumentation scope's and the default `service.version`. */
  version: string;
  /** The run's `--name`, set as `niceeval.run.name`. */
  runName?: string;
  /**
   * The environment the batch settings (`OTEL_BSP_*`, `OTEL_BLRP_*`) and the secrets to mask are
   * read from (default `process.env`).
   */
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
  /**
   * Records not to export: a continued run's attempts read back from the store (`--resume`,
   * `--retry-errors`), which the run that made them exported already.
   */
  skip?: (record: AttemptRecord) => boolean;
}

/** The trace id of a run: the first 32 hex digits of the SHA-256 of its id. */
export function traceIdOf(runId: string): string {
  return createHash("sha256").update(`niceeval-run:${runId}`).digest("hex").slice(0, 32);
}

/**
 * A sink that exports a run through OpenTelemetry over OTLP/HTTP (JSON): a span per run, per
 * eval and per attempt (`test.suite.*` / `test.case.*` attributes and niceeval's own), parented
 * run → eval → attempt with their real times, and one `gen_ai.evaluation.result` log record per
 * judgment in its attempt's span. The SDK packages are loaded here, only when a run exports.
 * Nothing is dropped while the collector takes what it is sent: once a signal's export queue
 * (`OTEL_BSP_MAX_QUEUE_SIZE`, `OTEL_BLRP_MAX_QUEUE_SIZE`, 2048 each) is full, `room` makes the
 * run wait until the next batch goes; while a signal's exports keep failing, the run never waits
 * for it and what does not fit is dropped and counted.
 * Endpoint, headers, timeout and resource (`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`) are
 * read from the environment by the SDK. A failed export never fails the run and does not stop
 * later ones: each signal's first failure is said on stderr, naming it, and the end of the run
 * says how many spans or log records were lost; header values and URL passwords are masked in
 * every attribute and message.
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
  const where = (signal: Signal) =>
    options.endpoint !== undefined
      ? redactUrl(`${options.endpoint.replace(/\/+$/, "")}/v1/${signal}`)
      : shownEndpoint(env, signal);
  const timeout = options.timeoutMs ?? exportTimeoutMs(env);
  const explain = (error: unknown, signal: Signal) => {
    const { reason, advice } = explainExportError(error, signal, {
      ...endpointOf(signal, env, options),
      timeoutMs: timeout ?? sdkTimeoutMs(env, signal),
    });
    return { reason: mask(reason), advice: advice === undefined ? "" : ` ${mask(advice)}` };
  };
  // Each signal's first failure is said once, as it happens, naming that signal and where it
  // went; later batches are still sent, and the end of the run says how many were lost.
  const said = new Set<Signal>();
  const firstError = new Map<Signal, unknown>();
  let ending = false;
  const onFailure = (error: unknown, signal: Signal) => {
    if (!firstError.has(signal)) firstError.set(signal, error);
    // A failure while the run's end flushes is said with its count, just after.
    if (ending || said.has(signal)) return;
    said.add(signal);
    const { reason, advice } = explain(error, signal);
    stderr(
      `niceeval: OpenTelemetry export of ${WHAT[signal]} to ${where(signal)} failed (${reason}); niceeval keeps exporting and says at the end of the run how many were lost, the run and its report are not affected${advice ? `.${advice}` : ""}\n`,
    );
  };
  let runId: string | undefined;
  const otel = await startExporting({
    version: options.version,
    endpoint: options.endpoint,
    headers: options.headers,
    timeoutMs: timeout,
    onFailure,
    batch: batchSettings(env).settings,
    // One trace per run id: a resumed run's spans join its first process's trace.
    traceId: () => (runId === undefined ? undefined : traceIdOf(runId)),
  });
  const spans = new RunSpans(otel, mask, options.runName);
  return {
    label: "the OpenTelemetry export",
    onRunStart: (info) => {
      runId = info.runId;
      spans.startRun(info.runId, {
        "niceeval.run.concurrency": info.concurrency,
        "niceeval.run.files": info.files,
        ...(info.trials !== undefined ? { "niceeval.run.trials": info.trials } : {}),
      });
    },
    onEvalScheduled: (info) => spans.scheduleEval(info),
    onAttemptStarted: (attempt) => {
      spans.startAttempt(attempt);
    },
    onJudgment: (attempt, judgment) => spans.announce(attempt, judgment),
    onAttemptFinished: (record) => {
      // A continued run's attempts read back from the store were exported by the run that made them.
      if (options.skip?.(record)) spans.dropAttempt(record);
      else spans.finishAttempt(record);
    },
    onEvalFinished: (summary) => spans.finishEval(summary),
    room: () => otel.room(),
    onRunFinished: async (summary) => {
      spans.finishRun(summary);
      ending = true;
      const closed = await otel.shutdown();
      for (const [i, signal] of (["traces", "logs"] as const).entries()) {
        const line = lostLine(signal, otel.tallies[signal], {
          where: where(signal),
          said: said.has(signal),
          error:
            firstError.get(signal) ??
            (closed[i]?.status === "rejected" ? closed[i].reason : undefined),
          explain: (error) => explain(error, signal),
        });
        if (line) stderr(line);
      }
    },
  };
}

/** What each signal exports, as messages name it. */
const WHAT: Record<Signal, string> = { traces: "spans", logs: "evaluation logs" };

/**
 * The end-of-run line for a signal that lost spans or log records (none for one that lost
 * nothing): how many of how many, where they were to go, and why when that was not said yet.
 */
function lostLine(
  signal: Signal,
  tally: ExportTally,
  how: {
    where: string;
    said: boolean;
    error: unknown;
    explain: (error: unknown) => { reason: string; advice: string };
  },
): string | undefined {
  if (tally.lost === 0) return undefined;
  const count = `${tally.lost} of ${tally.made} ${WHAT[signal]}`;
  // No export failed, so none was dropped: some were still being sent when the run ended.
  if (tally.failures === 0 && how.error === undefined)
    return `niceeval: OpenTelemetry: ${count} were not exported to ${how.where}: their export had not finished when the run ended\n`;
  const meanwhile = [
    tally.unsent > 0
      ? `${tally.unsent} batch${tally.unsent === 1 ? " was" : "es were"} not sent`
      : undefined,
    tally.dropped > 0 ? `${tally.dropped} did not fit in the export queue` : undefined,
  ].filter((part) => part !== undefined);
  const failures = `${tally.failures} export${tally.failures === 1 ? "" : "s"} failed${
    meanwhile.length > 0 ? `, and ${meanwhile.join(" and ")} while exports kept failing` : ""
  }`;
  if (how.said)
    return `niceeval: OpenTelemetry: ${count} were not exported to ${how.where} (${failures})\n`;
  const { reason, advice } = how.explain(how.error);
  return `niceeval: OpenTelemetry export of ${WHAT[signal]} to ${how.where} failed (${reason}); ${count} were not exported (${failures}), the run and its report are not affected${advice ? `.${advice}` : ""}\n`;
}
