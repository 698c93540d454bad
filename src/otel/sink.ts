import { createHash } from "node:crypto";
import { NiceevalError } from "../errors.js";
import type { AttemptRecord } from "../eval/record.js";
import { packageVersion } from "../package-files.js";
import { redactUrl } from "../redact-url.js";
import type { RunSink } from "../runner/sink.js";
import { explainExportError } from "./advice.js";
import {
  batchSettings,
  checkEndpoint,
  checkOtelEndpoints,
  endpointOf,
  exportTimeoutMs,
  type Masker,
  masker,
  otelConfigNotes,
  type Signal,
  sdkTimeoutMs,
  shownEndpoint,
} from "./config.js";
import type { ExportTally } from "./guard.js";
import { startExporting } from "./providers.js";
import { RunSpans } from "./spans.js";

/** How {@link otelSink} exports. Everything else comes from the standard `OTEL_*` variables. */
export interface OtelSinkOptions {
  /** The instrumentation scope's version and the default `service.version` (default niceeval's). */
  version?: string | undefined;
  /** The run's `--name`, set as `niceeval.run.name`. */
  runName?: string | undefined;
  /**
   * The environment the batch settings (`OTEL_BSP_*`, `OTEL_BLRP_*`) and the secrets to mask are
   * read from, and whose endpoints are checked (default `process.env`, which the SDK reads).
   */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Where the notes on the settings and the export-failure warnings go (default standard error). */
  stderr?: ((text: string) => void) | undefined;
  /**
   * OTLP/HTTP base URL (`/v1/traces` and `/v1/logs` are appended), instead of
   * `OTEL_EXPORTER_OTLP_ENDPOINT`; for programmatic use and tests.
   */
  endpoint?: string | undefined;
  /** Headers sent with every export, instead of `OTEL_EXPORTER_OTLP_HEADERS`. */
  headers?: Record<string, string> | undefined;
  /** Time one export may take, retries included, ms (default: `OTEL_EXPORTER_OTLP_TIMEOUT`, else 5 s). */
  timeoutMs?: number | undefined;
  /**
   * Records not to export: a continued run's attempts read back from the store (`--resume`,
   * `--retry-errors`), which the run that made them exported already.
   */
  skip?: ((record: AttemptRecord) => boolean) | undefined;
  /**
   * Subscribes to what stops a run (the CLI's SIGINT and SIGTERM), returning how to unsubscribe:
   * one that comes while the run's end waits for the export ends the wait (the listener returns
   * true: it took the signal), and what was not answered by then is counted as not exported.
   */
  stopSignals?: ((listener: (signal: string) => boolean) => () => void) | undefined;
  /**
   * Sets the OpenTelemetry diag logger, which is global, to hear what a collector rejects of a
   * batch it took (an OTLP partial success, which the SDK reports there only), counted as not
   * exported and said; the CLI does. Default false: a host's own diag logger is left alone.
   */
  diagnostics?: boolean | undefined;
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
export async function otelSink(options: OtelSinkOptions = {}): Promise<RunSink> {
  const env = options.env ?? process.env;
  // An endpoint the SDK cannot use it would replace by localhost:4318, without a word.
  checkOtelEndpoints(env);
  if (options.endpoint !== undefined)
    checkEndpoint("the endpoint given to otelSink", options.endpoint);
  const stderr = options.stderr ?? ((text: string) => void process.stderr.write(text));
  for (const note of otelConfigNotes(env)) stderr(`${note}\n`);
  const timeoutMs = options.timeoutMs ?? exportTimeoutMs(env);
  const failures = new ExportFailures(env, options, timeoutMs, stderr);
  let runId: string | undefined;
  const otel = await startExporting({
    version: options.version ?? packageVersion(),
    endpoint: options.endpoint,
    headers: options.headers,
    timeoutMs,
    onFailure: (error, signal) => failures.failed(error, signal),
    diagnostics: options.diagnostics,
    onRejected: (signal) => failures.rejected(signal, otel.tallies[signal]),
    batch: batchSettings(env).settings,
    // One trace per run id: a resumed run's spans join its first process's trace.
    traceId: () => (runId === undefined ? undefined : traceIdOf(runId)),
  });
  const spans = new RunSpans(otel, failures.mask, options.runName);
  // One run per sink: its exporters shut down as the run ends. A second run given it is told so
  // at its start, and the sink does nothing for it (no count of spans it never took).
  let used = false;
  let refused = false;
  const sink: RunSink = {
    label: "the OpenTelemetry export",
    onRunStart: (info) => {
      if (used) {
        refused = true;
        throw new NiceevalError(
          "USAGE",
          `otelSink: this sink already exported run ${runId}; an otelSink exports one run, so run ${info.runId} is not exported: call otelSink() for each run`,
        );
      }
      used = true;
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
      failures.ending = true;
      const closed = await untilStopped(otel.shutdown(), options.stopSignals, (signal) =>
        stderr(
          `niceeval: ${signal}: the run's end no longer waits for the OpenTelemetry export; what the collector had not answered is counted below as not exported\n`,
        ),
      );
      for (const [i, signal] of (["traces", "logs"] as const).entries()) {
        const rejected = closed[i]?.status === "rejected" ? closed[i].reason : undefined;
        const line = failures.lostLine(signal, otel.tallies[signal], rejected);
        if (line) stderr(line);
      }
    },
  };
  return onlyItsRun(sink, () => refused);
}

/** `sink` with every hook but onRunStart doing nothing once `refused` says the run is not its own. */
function onlyItsRun(sink: RunSink, refused: () => boolean): RunSink {
  const guarded: Record<string, unknown> = { ...sink };
  for (const [name, hook] of Object.entries(sink)) {
    if (name === "onRunStart" || typeof hook !== "function") continue;
    guarded[name] = (...args: unknown[]) =>
      refused() ? undefined : (hook as (...a: unknown[]) => unknown)(...args);
  }
  return guarded as unknown as RunSink;
}

/**
 * What the export's failures say on stderr: each signal's first failure once, as it happens,
 * naming that signal, where it went, why and what to do; later batches are still sent, and the
 * end of the run says how many were lost. Every message passes through `mask`.
 */
class ExportFailures {
  readonly mask: Masker;
  /** Set as the run's end flushes: a failure then is said with its count, just after. */
  ending = false;
  private readonly said = new Set<Signal>();
  private readonly firstError = new Map<Signal, unknown>();

  constructor(
    private readonly env: Readonly<Record<string, string | undefined>>,
    private readonly options: OtelSinkOptions,
    private readonly timeoutMs: number | undefined,
    private readonly stderr: (text: string) => void,
  ) {
    const { endpoint, headers } = options;
    this.mask = masker({
      ...env,
      ...(endpoint !== undefined ? { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } : {}),
      ...(headers
        ? {
            OTEL_EXPORTER_OTLP_HEADERS: Object.entries(headers)
              .map(([k, v]) => `${k}=${v}`)
              .join(","),
          }
        : {}),
    });
  }

  failed(error: unknown, signal: Signal): void {
    if (!this.firstError.has(signal)) this.firstError.set(signal, error);
    if (this.ending || this.said.has(signal)) return;
    this.said.add(signal);
    const { reason, advice } = this.explain(error, signal);
    this.stderr(
      `niceeval: OpenTelemetry export of ${WHAT[signal]} to ${this.where(signal)} failed (${reason}); niceeval keeps exporting and says at the end of the run how many were lost, the run and its report are not affected${advice}\n`,
    );
  }

  /** The collector rejected part of a batch it took: said once per signal, as it happens. */
  rejected(signal: Signal, tally: ExportTally): void {
    if (this.ending || this.said.has(signal)) return;
    this.said.add(signal);
    this.stderr(
      `niceeval: OpenTelemetry export of ${WHAT[signal]} to ${this.where(signal)}: ${this.rejection(signal, tally)}; niceeval keeps exporting and says at the end of the run how many were lost, the run and its report are not affected\n`,
    );
  }

  /**
   * The end-of-run line for a signal that lost spans or log records (none for one that lost
   * nothing): how many of how many, where they were to go, and why when that was not said yet.
   */
  lostLine(signal: Signal, tally: ExportTally, rejected: unknown): string | undefined {
    if (tally.lost === 0) return undefined;
    const where = this.where(signal);
    const count = `${tally.lost} of ${tally.made} ${WHAT[signal]}`;
    const error = this.firstError.get(signal) ?? rejected;
    const failed = tally.failures > 0 || error !== undefined;
    // No export failed, so none was dropped: some were still being sent when the run ended.
    if (!failed && tally.rejected === 0)
      return `niceeval: OpenTelemetry: ${count} were not exported to ${where}: their export had not finished when the run ended\n`;
    const why = [
      failed ? failureCounts(tally) : undefined,
      tally.rejected > 0 ? `the collector rejected ${tally.rejected}` : undefined,
    ].filter((part) => part !== undefined);
    if (this.said.has(signal))
      return `niceeval: OpenTelemetry: ${count} were not exported to ${where} (${why.join("; ")})\n`;
    if (!failed)
      return `niceeval: OpenTelemetry export of ${WHAT[signal]} to ${where}: ${this.rejection(signal, tally)}; ${count} were not exported, the run and its report are not affected\n`;
    const { reason, advice } = this.explain(error, signal);
    return `niceeval: OpenTelemetry export of ${WHAT[signal]} to ${where} failed (${reason}); ${count} were not exported (${why.join("; ")}), the run and its report are not affected${advice}\n`;
  }

  /** What the collector rejected so far, and its first reason. */
  private rejection(signal: Signal, tally: ExportTally): string {
    const why = tally.rejection ? ` (${this.mask(tally.rejection)})` : "";
    return `the collector took the batch but rejected ${tally.rejected} ${WHAT[signal]}${why}`;
  }

  /** Where a signal goes, for messages, with any password masked. */
  private where(signal: Signal): string {
    const { endpoint } = this.options;
    return endpoint !== undefined
      ? redactUrl(`${endpoint.replace(/\/+$/, "")}/v1/${signal}`)
      : shownEndpoint(this.env, signal);
  }

  /** Why, masked, and what to do as a sentence after a period ("" when niceeval cannot tell). */
  private explain(error: unknown, signal: Signal): { reason: string; advice: string } {
    const { reason, advice } = explainExportError(error, signal, {
      ...endpointOf(signal, this.env, this.options),
      timeoutMs: this.timeoutMs ?? sdkTimeoutMs(this.env, signal),
    });
    return { reason: this.mask(reason), advice: advice ? `. ${this.mask(advice)}` : "" };
  }
}

/**
 * The export's flush, or an empty result once a stop signal comes while it runs (`stopped` is
 * told which); without `stopSignals`, the flush.
 */
async function untilStopped<T>(
  flush: Promise<T[]>,
  stopSignals: OtelSinkOptions["stopSignals"],
  stopped: (signal: string) => void,
): Promise<T[]> {
  if (!stopSignals) return flush;
  let unsubscribe = () => {};
  const stop = new Promise<T[]>((resolve) => {
    unsubscribe = stopSignals((signal) => {
      stopped(signal);
      resolve([]);
      return true;
    });
  });
  try {
    return await Promise.race([flush, stop]);
  } finally {
    unsubscribe();
  }
}

/** What each signal exports, as messages name it. */
const WHAT: Record<Signal, string> = { traces: "spans", logs: "evaluation logs" };

/** How the exports failed: how many, and what was not sent meanwhile. */
function failureCounts(tally: ExportTally): string {
  const meanwhile = [
    tally.unsent > 0
      ? `${tally.unsent} batch${tally.unsent === 1 ? " was" : "es were"} not sent`
      : undefined,
    tally.dropped > 0 ? `${tally.dropped} did not fit in the export queue` : undefined,
  ].filter((part) => part !== undefined);
  return `${tally.failures} export${tally.failures === 1 ? "" : "s"} failed${
    meanwhile.length > 0 ? `, and ${meanwhile.join(" and ")} while exports kept failing` : ""
  }`;
}
