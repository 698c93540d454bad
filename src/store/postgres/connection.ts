import { NiceevalError } from "../../errors.js";
import { redactUrl } from "../../redact-url.js";
import type { StoreAdvice } from "../advice.js";

export { redactUrl };

/** Whether a store location is a PostgreSQL connection string. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** Whether the user part of a connection string holds an "@" that is not percent-encoded. */
function unencodedAt(url: string): boolean {
  const rest = url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "");
  const first = rest.indexOf("@");
  return first >= 0 && rest.indexOf("@", first + 1) > first;
}

/** Host and port a connection string names, for messages ("db.internal:5432"). */
export function endpoint(url: URL): string {
  const host = url.hostname || "localhost";
  return `${host}:${url.port || "5432"}`;
}

/**
 * Check a connection string before any connection is tried; throws STORE_BAD_URL. Every message
 * of a PostgreSQL store ends with `advice.fixUrl`, in the words of whoever opened it.
 */
export function parsePostgresUrl(url: string, advice: StoreAdvice): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new NiceevalError(
      "STORE_BAD_URL",
      `${redactUrl(url)} is not a valid PostgreSQL URL; write it as postgres://user:password@host:5432/database (percent-encode special characters in the password), or ${advice.fixUrl}.`,
    );
  }
  if (!/^postgres(ql)?:$/i.test(parsed.protocol))
    throw new NiceevalError(
      "STORE_BAD_URL",
      `${redactUrl(url)} is not a PostgreSQL URL (it must start with postgres:// or postgresql://); ${advice.fixUrl}.`,
    );
  if (parsed.port !== "" && !(Number(parsed.port) > 0))
    throw new NiceevalError(
      "STORE_BAD_URL",
      `${redactUrl(url)} has no valid port; ${advice.fixUrl}.`,
    );
  return parsed;
}

/** Low-level fields that pg and Node put on connection errors. */
interface DriverError {
  code?: string;
  message?: string;
  errors?: DriverError[];
}

/**
 * The error for a store that cannot be reached or logged into: names the server (password
 * masked), what went wrong, and what to do. Returns undefined for errors that are not about
 * the connection.
 */
export function connectionError(
  url: string,
  error: unknown,
  advice: StoreAdvice,
): NiceevalError | undefined {
  const e = (error ?? {}) as DriverError;
  const code = e.code ?? e.errors?.find((inner) => inner.code)?.code;
  const parsed = new URL(url);
  const where = endpoint(parsed);
  const user = decodeURIComponent(parsed.username) || "(default user)";
  const database = decodeURIComponent(parsed.pathname.slice(1)) || user;
  const shown = redactUrl(url);
  const unreachable = (why: string, fix: string) =>
    new NiceevalError(
      "STORE_UNREACHABLE",
      `cannot reach the PostgreSQL store ${shown}: ${why}. ${fix}; or ${advice.fixUrl}.`,
      { cause: error },
    );
  const message = e.message ?? String(error);
  switch (code) {
    case "ECONNREFUSED":
      return unreachable(
        `${where} refused the connection`,
        "Start the server, or check the host and port",
      );
    case "ENOTFOUND":
    case "EAI_AGAIN":
      // A password with an unencoded "@" or "#" puts part of itself where the host is read:
      // that part is not named.
      return unencodedAt(url)
        ? unreachable(
            "the host could not be read from the URL, whose password holds an unencoded @",
            "Percent-encode special characters in the password (@ as %40, # as %23, / as %2F, ? as %3F)",
          )
        : unreachable(`the host ${parsed.hostname} was not found`, "Check the host name");
    case "ETIMEDOUT":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return unreachable(
        `${where} did not answer (${code})`,
        "Check the host, the port and the network",
      );
    case "ECONNRESET":
      return unreachable(
        `${where} closed the connection`,
        "Check that it is a PostgreSQL server and whether it requires SSL (?sslmode=verify-full)",
      );
    case "57P01": // admin_shutdown: a shutdown or pg_terminate_backend
    case "57P02": // crash_shutdown
      return unreachable(
        `${where} ended the connection (${message})`,
        "Check that the server is up: it was shut down or restarted",
      );
    case "57P03": // cannot_connect_now: starting, shutting down or in recovery
      return unreachable(
        `${where} does not accept connections now (${message})`,
        "Wait until the server is up",
      );
    case "28P01":
    case "28000":
      return new NiceevalError(
        "STORE_UNREACHABLE",
        `the PostgreSQL server ${where} refused the login of user ${user} (${message}) for ${shown}. Check the user and password in the URL; or ${advice.fixUrl}.`,
        { cause: error },
      );
    case "3D000":
      return new NiceevalError(
        "STORE_UNREACHABLE",
        `the PostgreSQL server ${where} has no database ${database} (${shown}). Create it (createdb ${database}) or name another one in the URL; or ${advice.fixUrl}.`,
        { cause: error },
      );
  }
  if (message === "Query read timeout")
    return unreachable(
      `${where} did not answer a query in time (${message})`,
      "Check that the server is up and not paused or overloaded, and the network between",
    );
  if (/timeout|terminated unexpectedly|Connection terminated/i.test(message))
    return unreachable(
      `${where} did not complete the connection (${message})`,
      "Check that the server is up and reachable",
    );
  if (/SSL|self[- ]signed|certificate/i.test(message))
    return unreachable(`SSL negotiation failed (${message})`, "Check the sslmode in the URL");
  return undefined;
}
