// Why an OTLP export failed, in words, and what to do about it: the SDK's errors name an HTTP
// status or a socket error, not the setting that led there.
import type { Signal } from "./config.js";
import { describeExportError } from "./guard.js";

/** Where a signal's exports go and what sets them, for the advice. */
export interface ExportPlace {
  /** What set the endpoint: a variable, or the option given in code. */
  endpointFrom: string;
  /** Whether that endpoint is a base URL (`/v1/<signal>` appended) or the signal's own URL. */
  base: boolean;
  /** What set the headers sent. */
  headersFrom: string;
  /** How long one export may take, retries included, ms (undefined: the SDK's own setting). */
  timeoutMs: number | undefined;
}

/** The SDK's error once the collector answered a retryable status (429, 502, 503, 504) to the end. */
const RETRYABLE = "Export failed with retryable status";

/** Socket errors of a collector that is not there (down, wrong host or port). */
const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/**
 * Socket errors of a server that took the connection and closed it without an HTTP answer (Node's
 * "socket hang up"): a gRPC receiver (4317) or a TLS one sent plain HTTP/1.1, a proxy that drops it.
 */
const CLOSED_UNANSWERED = new Set(["ECONNRESET", "EPIPE"]);

/**
 * An export failure as a reason (what went wrong, for the parentheses of the message) and advice
 * (what to do, a sentence), when niceeval can tell.
 */
export function explainExportError(
  error: unknown,
  signal: Signal,
  place: ExportPlace,
): { reason: string; advice: string | undefined } {
  const within =
    place.timeoutMs !== undefined ? `within ${place.timeoutMs} ms` : "within the export timeout";
  if (error instanceof Error && error.message === RETRYABLE)
    return {
      reason: `the collector answered 429, 502, 503 or 504 (busy or unavailable) to every try ${within}`,
      advice:
        "Check the collector's health and its limits (429 is a rate limit); OTEL_EXPORTER_OTLP_TIMEOUT sets how long an export keeps retrying.",
    };
  return { reason: describeExportError(error), advice: adviceFor(error, signal, place, within) };
}

function adviceFor(
  error: unknown,
  signal: Signal,
  place: ExportPlace,
  within: string,
): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const status = (error as { code?: unknown }).code;
  if (typeof status === "number") return httpAdvice(status, signal, place);
  if (/^(Request )?timed out$|^Timeout$/i.test(error.message))
    return `The collector did not answer ${within}: check that it is reachable and not overloaded; OTEL_EXPORTER_OTLP_TIMEOUT sets how long an export may take.`;
  const code = socketCode(error);
  if (code !== undefined && UNREACHABLE.has(code))
    return `Nothing there took the connection: start the collector, or set ${place.endpointFrom} to the address its OTLP/HTTP receiver listens on (port 4318 by convention).`;
  if (code !== undefined && CLOSED_UNANSWERED.has(code))
    return `A server there took the connection and closed it without an HTTP answer: check that ${place.endpointFrom} is an OTLP/HTTP receiver's (port 4318 by convention; 4317 is gRPC, which niceeval does not send), with https:// if it expects TLS.`;
  return undefined;
}

function httpAdvice(status: number, signal: Signal, place: ExportPlace): string | undefined {
  if (status === 401 || status === 403)
    return `The collector refused the request's credentials: check ${place.headersFrom}.`;
  // 501: a web server that is no collector, which does not handle a POST there.
  if (status === 404 || status === 405 || status === 501)
    return place.base
      ? `Nothing takes OTLP at that path: ${place.endpointFrom} is the collector's base URL (such as http://collector:4318), to which /v1/${signal} is appended.`
      : `Nothing takes OTLP at that path: ${place.endpointFrom} is used as it is, so give the full URL (such as http://collector:4318/v1/${signal}).`;
  if (status === 413) {
    const variable = signal === "traces" ? "OTEL_BSP_" : "OTEL_BLRP_";
    return `The batch was larger than the collector takes: lower ${variable}MAX_EXPORT_BATCH_SIZE, or raise the receiver's request size limit.`;
  }
  if (status === 400 || status === 415)
    return `The collector did not take an OTLP/HTTP request with a JSON body: check that ${place.endpointFrom} points at an OTLP/HTTP receiver (port 4318 by convention; 4317 is gRPC, which niceeval does not send).`;
  if (status >= 500) return "The collector failed on the batch: its own logs say why.";
  return undefined;
}

/** The socket error's code (`ECONNREFUSED`), also of the first of an AggregateError's errors. */
function socketCode(error: Error): string | undefined {
  const { code, errors } = error as { code?: unknown; errors?: unknown[] };
  if (typeof code === "string") return code;
  const inner = errors?.[0] as { code?: unknown } | undefined;
  return typeof inner?.code === "string" ? inner.code : undefined;
}
