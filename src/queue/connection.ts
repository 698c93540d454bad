import { createBunRedisClient, type IRedisClient } from "bullmq";
import { errorMessage, NiceevalError } from "../errors.js";
import { redactUrl } from "../redact-url.js";
import { RedisProtocolError, type RedisTarget, RespConnection } from "./resp.js";

/** Where a queue's URL was given, named by the messages about it: the flag or the variable. */
export type QueueSource = "--queue" | "NICEEVAL_QUEUE";

/** The URL as it was given, its password masked: `--queue redis://…` or `NICEEVAL_QUEUE=redis://…`. */
export function givenAs(source: QueueSource, url: string): string {
  return `${source}${source === "--queue" ? " " : "="}${redactUrl(url)}`;
}

/** How to name another Redis, in the words of where the URL came from. */
const fix = (source: QueueSource) =>
  `start Redis there, or ${source === "--queue" ? "pass --queue" : "set NICEEVAL_QUEUE to"} redis://host:port`;

/** Whether a `--queue` value is a Redis URL. */
export function isRedisUrl(url: string): boolean {
  return /^rediss?:\/\//i.test(url);
}

/** The URL fit for messages: the password masked. */
export const redactRedisUrl = redactUrl;

/** Read a `redis://[user:password@]host[:port][/db]` URL; throws QUEUE_BAD_URL. */
export function parseRedisUrl(url: string, source: QueueSource = "--queue"): RedisTarget {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {}
  if (!parsed || !/^rediss?:$/i.test(parsed.protocol)) {
    throw new NiceevalError(
      "QUEUE_BAD_URL",
      `${givenAs(source, url)} is not a Redis URL; write it as redis://[user:password@]host:6379[/db] (rediss:// for TLS)`,
    );
  }
  const port = parsed.port === "" ? 6379 : Number(parsed.port);
  const db = parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : 0;
  if (!(port > 0 && port < 65_536) || !Number.isInteger(db) || db < 0) {
    throw new NiceevalError(
      "QUEUE_BAD_URL",
      `${givenAs(source, url)} has no valid port or database number; write it as redis://host:6379/0`,
    );
  }
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, "") || "127.0.0.1",
    port,
    tls: parsed.protocol.toLowerCase() === "rediss:",
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(db ? { db } : {}),
  };
}

/** A server that took the connection but answered nothing. */
class SilentServer extends Error {
  constructor(ms: number) {
    super(`it took the connection but did not answer within ${ms} ms (is it a Redis?)`);
  }
}

/** A server the queue cannot use (a read-only replica, a Sentinel): its message says why. */
class UnfitServer extends Error {}

/**
 * Throws UnfitServer when the server is a replica or a Sentinel (ROLE). A read-only replica fails
 * BullMQ's every write with READONLY; one with `replica-read-only no` takes them, but they never
 * reach its primary (where other runs and workers look) and its next full resync erases them, so
 * it is refused too, saying which it is. A server that does not let this user ask (ACLs, a proxy
 * without ROLE) is taken as it is: the queue's own errors say the rest.
 */
async function refuseUnfit(connection: RespConnection, source: QueueSource): Promise<void> {
  const role = await connection.send<unknown[]>("ROLE").catch(() => undefined);
  if (!Array.isArray(role)) return;
  if (role[0] === "sentinel") throw new UnfitServer(await sentinelWhy(connection, role, source));
  if (role[0] !== "slave" && role[0] !== "replica") return;
  const readOnly = await connection
    .send<unknown[]>("CONFIG", ["GET", "replica-read-only"])
    .catch(() => undefined);
  const primary = typeof role[1] === "string" ? ` of ${role[1]}:${String(role[2])}` : "";
  const why = !Array.isArray(readOnly)
    ? `it is a replica${primary} (read-only unless its replica-read-only is no, which this user may not read: CONFIG GET)`
    : readOnly[1] === "no"
      ? `it is a replica${primary} that takes writes (replica-read-only no), but jobs written there never reach its primary, where other runs and workers look, and its next full resync erases them`
      : `it is a read-only replica${primary}`;
  throw new UnfitServer(`${why}; point ${source} at the primary (jobs are written to it)`);
}

/**
 * What to say of a Sentinel: the primaries it watches (ROLE's second item) and their addresses
 * as it gives them. niceeval's client connects to one server and does not ask a Sentinel where
 * the primary is, so a Sentinel URL is refused with the address to use instead.
 */
async function sentinelWhy(
  connection: RespConnection,
  role: unknown[],
  source: QueueSource,
): Promise<string> {
  const names = (Array.isArray(role[1]) ? role[1] : []).filter((n) => typeof n === "string");
  const primaries: string[] = [];
  for (const name of names.slice(0, 5)) {
    const address = await connection
      .send<unknown[]>("SENTINEL", ["get-master-addr-by-name", name])
      .catch(() => undefined);
    primaries.push(
      Array.isArray(address) && address.length === 2
        ? `${name}, primary at ${String(address[0])}:${String(address[1])}`
        : name,
    );
  }
  const watching = primaries.length > 0 ? ` watching ${primaries.join("; ")}` : "";
  return `it is a Redis Sentinel${watching}, not a Redis server; Sentinel URLs are not supported (the queue connects to one server and does not ask a Sentinel for its primary): point ${source} at the primary's address, redis://host:port`;
}

/** Why the probe of `target` failed, and what to do, in the words of where its URL came from. */
function unreachableWhy(error: unknown, target: RedisTarget, source: QueueSource): string {
  const FIX = fix(source);
  const code = (error as NodeJS.ErrnoException).code;
  const message = errorMessage(error);
  if (error instanceof RedisProtocolError || error instanceof SilentServer)
    return `${error.message}; check the host and port in ${source}`;
  if (error instanceof UnfitServer) return error.message;
  // Closed before any reply, as a Redis that takes only TLS closes a plain connection: no Redis
  // to start there.
  if (!target.tls && message === "Connection closed")
    return `it closed the connection without answering (a Redis that takes only TLS connections does: is it one? rediss:// is for TLS); check the host and port in ${source}`;
  if (code === "ECONNREFUSED")
    return `${target.host}:${target.port} refused the connection; ${FIX}`;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `no host named ${target.host}; ${FIX}`;
  // A Redis that answered but refused the credentials is there: starting one is no advice.
  if (/NOAUTH|WRONGPASS|invalid password|AUTH/i.test(message))
    return `it refused the credentials (${message}); check the user and password in the URL (a Redis without a password takes a URL without one)`;
  if (/DB index is out of range/i.test(message))
    return `it has no database ${target.db ?? 0} (${message}); name one it has in the URL's path (redis://host:port/0; a Redis has 16, 0 to 15, unless its \`databases\` setting says otherwise)`;
  return `${message}; ${FIX}`;
}

/**
 * Check that the Redis a URL names answers (connect, authenticate, PING) before anything is
 * enqueued or run; throws QUEUE_UNREACHABLE naming the URL with its password masked.
 */
export async function probeRedis(
  url: string,
  timeoutMs = 5000,
  source: QueueSource = "--queue",
): Promise<RedisTarget> {
  const target = parseRedisUrl(url, source);
  const connection = new RespConnection(target, timeoutMs);
  let timer: NodeJS.Timeout | undefined;
  // The whole probe is timed, not only the connection (whose own limit, and its words, come
  // first): a port that takes it and never answers must not keep the run or the worker waiting.
  const silentMs = 2 * timeoutMs;
  const silent = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new SilentServer(silentMs)), silentMs);
  });
  try {
    await Promise.race([
      (async () => {
        await connection.connect();
        await connection.send("PING");
        await refuseUnfit(connection, source);
      })(),
      silent,
    ]);
    return target;
  } catch (error) {
    const why = unreachableWhy(error, target, source);
    throw new NiceevalError(
      "QUEUE_UNREACHABLE",
      `cannot reach the Redis queue ${redactUrl(url)}: ${why}`,
      {
        cause: error,
      },
    );
  } finally {
    clearTimeout(timer);
    connection.close();
  }
}

/**
 * Connections for BullMQ over {@link RespConnection}. BullMQ leaves clients it was handed open
 * (and closes the duplicates it makes for blocking reads), so `close()` quits the handed ones.
 */
export class RedisClients {
  private readonly clients: IRedisClient[] = [];
  constructor(private readonly target: RedisTarget) {}

  /** A new client for one Queue, Worker or QueueEvents. */
  client(): IRedisClient {
    const client = createBunRedisClient(new RespConnection(this.target));
    // Connection errors are retried by the client; BullMQ reports what it cannot retry.
    client.on("error", () => {});
    this.clients.push(client);
    return client;
  }

  async close(): Promise<void> {
    await Promise.all(this.clients.splice(0).map((client) => client.quit().catch(() => {})));
  }
}
