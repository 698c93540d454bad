import { NiceevalError } from "../errors.js";
import { redactUrl } from "../redact-url.js";

type Env = Readonly<Record<string, string | undefined>>;

const ENDPOINTS = [
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
  "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
] as const;
const HEADERS = [
  "OTEL_EXPORTER_OTLP_HEADERS",
  "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
  "OTEL_EXPORTER_OTLP_LOGS_HEADERS",
] as const;

/**
 * Whether a run is exported: `--otel`, or an OTLP endpoint in the environment, unless
 * `OTEL_SDK_DISABLED=true` (the OpenTelemetry switch that turns every SDK off).
 */
export function otelEnabled(flag: boolean, env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  return flag || ENDPOINTS.some((name) => Boolean(env[name]?.trim()));
}

/**
 * Throws a usage error (exit 2) for an OTLP endpoint variable that is set but is not an http or
 * https URL (or is one with an invalid port, which the message names): the SDK would fall back to
 * localhost:4318 without a word, and the run's spans would go nowhere.
 */
export function checkOtelEndpoints(env: Env): void {
  for (const name of ENDPOINTS) {
    const value = env[name]?.trim();
    if (value) checkEndpoint(name, value);
  }
}

/** The same check of one endpoint, named in the message as `name` (a variable, an option). */
export function checkEndpoint(name: string, value: string): void {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  const web = url?.protocol === "http:" || url?.protocol === "https:";
  if (web && url?.port !== "0") return;
  const why = web
    ? badPort("0")
    : url
      ? "which is not an http:// or https:// URL"
      : whyNotUrl(value);
  throw new NiceevalError(
    "USAGE",
    `${name} is ${JSON.stringify(redactUrl(value))}, ${why}; set it to the collector's OTLP/HTTP address (such as http://localhost:4318)${name.startsWith("OTEL_") ? " or unset it" : ""}`,
  );
}

/** Why a value `URL` cannot parse is no endpoint: an http(s) URL with a bad port says so. */
function whyNotUrl(value: string): string {
  // A host is a bracketed IPv6 address or a name without brackets: "http://[::1" (never closed)
  // is no URL, not a host "[" with the port ":1".
  const port = /^https?:\/\/(?:[^@/?#]*@)?(?:\[[^\]]*\]|[^:/?#[\]]*):([^/?#]*)/i.exec(value)?.[1];
  if (port !== undefined && port !== "" && !(/^\d+$/.test(port) && Number(port) <= 65535))
    return badPort(port);
  return /^https?:\/\//i.test(value)
    ? "which is not a valid URL"
    : "which is not an http:// or https:// URL";
}

const badPort = (port: string) =>
  `whose port ${JSON.stringify(port)} is not a port a collector can listen on (1 to 65535)`;

/**
 * What the run's export will not do as the environment asks, one line each for standard error:
 * a protocol other than OTLP/HTTP with JSON (the only one niceeval sends; a gRPC or protobuf
 * collector would refuse every batch), header parts that are not `name=value` (not sent), and
 * batch variables (`OTEL_BSP_*`, `OTEL_BLRP_*`) whose value is not one (their default is used).
 */
export function otelConfigNotes(env: Env): string[] {
  const notes: string[] = [];
  // The base variable matters only for a signal without a variable of its own.
  const overridden = ["TRACES_", "LOGS_"].every((signal) =>
    Boolean(env[`OTEL_EXPORTER_OTLP_${signal}PROTOCOL`]?.trim()),
  );
  for (const signal of overridden ? ["TRACES_", "LOGS_"] : ["", "TRACES_", "LOGS_"]) {
    const name = `OTEL_EXPORTER_OTLP_${signal}PROTOCOL`;
    const value = env[name]?.trim();
    if (value && value.toLowerCase() !== "http/json")
      notes.push(
        `niceeval: ${name} is ${JSON.stringify(value)}, but niceeval exports over OTLP/HTTP with JSON bodies only (http/json); point the endpoint at a collector receiver that takes them, or unset it`,
      );
  }
  for (const name of HEADERS) {
    const bad = (env[name] ?? "")
      .split(",")
      .map((pair) => pair.trim())
      .filter((pair) => pair !== "" && pair.indexOf("=") <= 0);
    if (bad.length > 0)
      notes.push(
        `niceeval: ${name} has ${bad.length === 1 ? "a part that is" : `${bad.length} parts that are`} not name=value (not shown: it may hold a credential), and ${bad.length === 1 ? "it is" : "they are"} not sent; write each header as name=value, separated by commas`,
      );
  }
  notes.push(...batchSettings(env).notes, ...timeoutNotes(env));
  return notes;
}

/** An OTLP signal niceeval exports. */
export type Signal = "traces" | "logs";

/** How one signal's spans or log records are batched for export. */
export interface BatchSettings {
  /**
   * Spans or log records that may wait for export. niceeval does not drop what does not fit:
   * while the collector takes what it is sent, the run waits for room (starts no new attempt);
   * only while exports keep failing are those beyond it dropped (and counted as lost).
   */
  maxQueueSize: number;
  /** The most sent in one export (at most `maxQueueSize`). */
  maxExportBatchSize: number;
  /** How long a batch smaller than `maxExportBatchSize` waits before it is sent, ms. */
  scheduledDelayMillis: number;
  /** How long the batch processor waits for one export, ms. */
  exportTimeoutMillis: number;
}

/**
 * The standard batch variables, with the OpenTelemetry specification's defaults: `OTEL_BSP_*`
 * for spans, `OTEL_BLRP_*` for log records (which `@opentelemetry/sdk-logs` no longer reads
 * itself: `@opentelemetry/sdk-node` does, which niceeval does not use). niceeval reads both, so
 * that it knows the queue it bounds.
 */
const BATCH_VARIABLES: Record<Signal, { prefix: string; defaults: BatchSettings }> = {
  traces: {
    prefix: "OTEL_BSP_",
    defaults: {
      maxQueueSize: 2048,
      maxExportBatchSize: 512,
      scheduledDelayMillis: 5000,
      exportTimeoutMillis: 30_000,
    },
  },
  logs: {
    prefix: "OTEL_BLRP_",
    defaults: {
      maxQueueSize: 2048,
      maxExportBatchSize: 512,
      scheduledDelayMillis: 1000,
      exportTimeoutMillis: 30_000,
    },
  },
};

/** Each setting's variable (after the signal's prefix), and whether it counts items (else ms). */
const BATCH_FIELDS: readonly [keyof BatchSettings, string, "count" | "ms"][] = [
  ["maxQueueSize", "MAX_QUEUE_SIZE", "count"],
  ["maxExportBatchSize", "MAX_EXPORT_BATCH_SIZE", "count"],
  ["scheduledDelayMillis", "SCHEDULE_DELAY", "ms"],
  ["exportTimeoutMillis", "EXPORT_TIMEOUT", "ms"],
];

/**
 * Each signal's batch settings from the environment, and a note for each variable set to a
 * value that is not one (a count must be a whole number of 1 or more, a time a number of ms of
 * 0 or more): its default is used instead.
 */
export function batchSettings(env: Env): {
  settings: Record<Signal, BatchSettings>;
  notes: string[];
} {
  const notes: string[] = [];
  const read = (signal: Signal): BatchSettings => {
    const { prefix, defaults } = BATCH_VARIABLES[signal];
    const settings = { ...defaults };
    for (const [field, suffix, kind] of BATCH_FIELDS) {
      const name = `${prefix}${suffix}`;
      const raw = env[name]?.trim();
      if (!raw) continue;
      const value = Number(raw);
      const valid =
        Number.isFinite(value) &&
        (kind === "count" ? Number.isInteger(value) && value >= 1 : value >= 0);
      if (valid) settings[field] = value;
      else
        notes.push(
          `niceeval: ${name} is ${JSON.stringify(raw)}, which is not ${kind === "count" ? "a whole number of 1 or more" : "a number of milliseconds of 0 or more"}; its default, ${defaults[field]}, is used`,
        );
    }
    // As the SDK does: a batch never holds more than the queue.
    settings.maxExportBatchSize = Math.min(settings.maxExportBatchSize, settings.maxQueueSize);
    return settings;
  };
  return { settings: { traces: read("traces"), logs: read("logs") }, notes };
}

/**
 * Where a signal goes, for messages: the endpoint the SDK will use (its own variable, else the
 * base one with `/v1/<signal>`, else the SDK's default), with any password masked.
 */
export function shownEndpoint(env: Env, signal: Signal = "traces"): string {
  const specific = env[`OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_ENDPOINT`]?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || "http://localhost:4318";
  return redactUrl(specific || `${base.replace(/\/+$/, "")}/v1/${signal}`);
}

/**
 * Time one export may take, retries included: an `OTEL_EXPORTER_OTLP_*TIMEOUT` if set (the SDK
 * reads it), else 5 s instead of the SDK's 10 s. The SDK retries refused connections with backoff
 * until that deadline, so a collector that is down holds the end of a run about 5 s, not 9.
 */
export function exportTimeoutMs(env: Env): number | undefined {
  // One that is not a number the SDK ignores, saying nothing (otelConfigNotes says it).
  return TIMEOUTS.some((name) => validTimeout(env[name]) !== undefined) ? undefined : 5000;
}

const TIMEOUTS = ["", "TRACES_", "LOGS_"].map((signal) => `OTEL_EXPORTER_OTLP_${signal}TIMEOUT`);

/** A timeout variable's value as the SDK takes it: a number of ms above 0, else none. */
function validTimeout(raw: string | undefined): number | undefined {
  const value = Number(raw?.trim() || Number.NaN);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

/** A note for each export timeout variable set to what is not a number of ms above 0. */
function timeoutNotes(env: Env): string[] {
  const used = exportTimeoutMs(env);
  return TIMEOUTS.filter((name) => env[name]?.trim() && validTimeout(env[name]) === undefined).map(
    (name) =>
      `niceeval: ${name} is ${JSON.stringify(env[name]?.trim())}, which is not a number of milliseconds greater than 0; it is ignored${used !== undefined ? `, and an export may take ${used} ms` : ""}`,
  );
}

/**
 * The export timeout the SDK reads when niceeval sets none: the signal's
 * `OTEL_EXPORTER_OTLP_<SIGNAL>_TIMEOUT`, else `OTEL_EXPORTER_OTLP_TIMEOUT`, else its 10 s.
 */
export function sdkTimeoutMs(env: Env, signal: Signal): number {
  const own = validTimeout(env[`OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_TIMEOUT`]);
  return own ?? validTimeout(env.OTEL_EXPORTER_OTLP_TIMEOUT) ?? 10_000;
}

/**
 * What sets where a signal goes and the headers it sends, for advice: the options given in code,
 * else the signal's own variable, else the base one; and whether the endpoint is a base URL
 * (`/v1/<signal>` appended) or the signal's own, used as it is.
 */
export function endpointOf(
  signal: Signal,
  env: Env,
  given: { endpoint?: string | undefined; headers?: Record<string, string> | undefined },
): { endpointFrom: string; base: boolean; headersFrom: string } {
  const own = `OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_`;
  const specific = given.endpoint === undefined && Boolean(env[`${own}ENDPOINT`]?.trim());
  return {
    endpointFrom:
      given.endpoint !== undefined
        ? "the endpoint given to otelSink"
        : specific
          ? `${own}ENDPOINT`
          : "OTEL_EXPORTER_OTLP_ENDPOINT",
    base: !specific,
    headersFrom: given.headers
      ? "the headers given to otelSink"
      : env[`${own}HEADERS`]?.trim()
        ? `${own}HEADERS`
        : "OTEL_EXPORTER_OTLP_HEADERS",
  };
}

/** Masks what must never leave the process: OTLP header values and passwords in URLs. */
export type Masker = (text: string) => string;

/**
 * The masker for this environment: every value of the OTLP header variables (`Authorization=Bearer
 * abc` masks `Bearer abc` and `abc`) and every endpoint password becomes `***`, and any
 * `scheme://user:password@` in the text is masked too.
 */
export function masker(env: Env): Masker {
  const secrets = new Set<string>();
  const add = (value: string) => {
    const trimmed = value.trim();
    // Very short values would mask ordinary words; no credential is that short.
    if (trimmed.length >= 4) secrets.add(trimmed);
  };
  for (const name of HEADERS) {
    for (const pair of (env[name] ?? "").split(",")) {
      const at = pair.indexOf("=");
      if (at <= 0) continue;
      const raw = pair.slice(at + 1);
      for (const value of [raw, safeDecode(raw)]) {
        add(value);
        // "Bearer abc" or "Basic abc": the credential alone, too.
        const space = value.trim().indexOf(" ");
        if (space > 0) add(value.trim().slice(space + 1));
      }
    }
  }
  for (const name of ENDPOINTS) {
    const password = /^[a-z][a-z0-9+.-]*:\/\/[^:@/?#]*:(\S*)@/i.exec(env[name] ?? "")?.[1];
    if (password) for (const value of [password, safeDecode(password)]) add(value);
  }
  // Longest first, so a secret that contains another is masked whole.
  const ordered = [...secrets].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const secret of ordered) if (out.includes(secret)) out = out.split(secret).join("***");
    return out.includes("://") ? out.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, redactUrl) : out;
  };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
