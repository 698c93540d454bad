import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { errorMessage, NiceevalError } from "../errors.js";
import { safeStringify } from "../report/json-safe.js";
import { resolveRunRef } from "../store/resolve.js";
import type { RunListQuery, RunStatus, Store } from "../store/types.js";
import {
  attemptQueryOf,
  attemptRows,
  caseTrials,
  compareRefs,
  listRunRows,
  runDetail,
} from "./api.js";
import { APP_CSS } from "./assets/css.js";
import { APP_JS } from "./assets/js.js";
import { livePage, SERVER_CSP } from "./html.js";

/** Options of {@link startViewer}. */
export interface ViewerOptions {
  store: Store;
  /** Default 127.0.0.1; anything else is reachable from other machines. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** The session token (default: 24 random bytes); every request must carry it or its cookie. */
  token?: string;
}

/** A running viewer. */
export interface Viewer {
  /** The URL to open, carrying the session token. */
  url: string;
  /** Where it listens, without the token. */
  origin: string;
  token: string;
  server: Server;
  close(): Promise<void>;
}

const COOKIE = "niceeval_session";
const STATUSES = new Set<string>(["running", "finished", "interrupted", "crashed"]);

/**
 * Serve the viewer over a store: the web app and its JSON API, on loopback unless told
 * otherwise, behind a random session token that the first request exchanges for an HttpOnly,
 * SameSite=Strict cookie. Without either, every request is answered 401.
 * @example
 * const viewer = await startViewer({ store });
 * console.log(viewer.url); // http://127.0.0.1:41234/?token=…
 */
export async function startViewer(options: ViewerOptions): Promise<Viewer> {
  const host = options.host ?? "127.0.0.1";
  const token = options.token ?? randomBytes(24).toString("base64url");
  const server = createServer((req, res) => {
    handle(options.store, token, req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: errorMessage(error) });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  return {
    url: `${origin}/?token=${token}`,
    origin,
    token,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function authorised(req: IncomingMessage, url: URL, token: string): "token" | "cookie" | false {
  const same = (given: string | undefined | null) => {
    if (!given) return false;
    const a = Buffer.from(given);
    const b = Buffer.from(token);
    return a.length === b.length && timingSafeEqual(a, b);
  };
  if (same(url.searchParams.get("token"))) return "token";
  const cookie = (req.headers.cookie ?? "")
    .split(";")
    .map((c) => c.trim())
    .find((c) => c.startsWith(`${COOKIE}=`));
  return same(cookie?.slice(COOKIE.length + 1)) ? "cookie" : false;
}

async function handle(
  store: Store,
  token: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? "/", "http://viewer.invalid");
  res.setHeader("Content-Security-Policy", SERVER_CSP);
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("Cache-Control", "no-store");
  if (req.method !== "GET" && req.method !== "HEAD") {
    sendJson(res, 405, { error: "the viewer is read-only: GET only" });
    return;
  }
  const auth = authorised(req, url, token);
  if (!auth) {
    sendJson(res, 401, {
      error: "no session: open the URL that `niceeval view` printed (it carries ?token=…)",
    });
    return;
  }
  if (auth === "token") {
    res.setHeader("Set-Cookie", `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`);
    if (!url.pathname.startsWith("/api/")) {
      // Drop the token from the address bar and history once the cookie holds it.
      url.searchParams.delete("token");
      res.writeHead(302, { Location: `${url.pathname}${url.search}` }).end();
      return;
    }
  }
  const path = url.pathname;
  if (path === "/" || path === "/index.html") return send(res, 200, "text/html", livePage());
  if (path === "/app.js") return send(res, 200, "text/javascript", APP_JS);
  if (path === "/app.css") return send(res, 200, "text/css", APP_CSS);
  if (!path.startsWith("/api/")) return sendJson(res, 404, { error: `no page ${path}` });
  try {
    sendJson(res, 200, await api(store, path.slice(5).split("/").map(decodeURIComponent), url));
  } catch (error) {
    if (error instanceof NiceevalError && /^(RUN_|COMPARE_)/.test(error.code)) {
      sendJson(res, error.code === "RUN_NOT_FOUND" ? 404 : 400, {
        error: error.message,
        code: error.code,
      });
      return;
    }
    throw error;
  }
}

/** The JSON API: runs, a run, a page of its attempts, a case's trials, a comparison. */
async function api(store: Store, parts: string[], url: URL): Promise<unknown> {
  const p = url.searchParams;
  const [first, id, sub, evalId, caseId, extra] = parts;
  if (first === "runs" && id === undefined) return { runs: await listRunRows(store, runQuery(p)) };
  if (first === "runs" && id !== undefined) {
    const run = await resolveRunRef(store, id);
    if (sub === undefined) return runDetail(store, run);
    if (sub === "attempts" && evalId === undefined)
      return attemptRows(store, run.runId, attemptQueryOf(p));
    if (sub === "attempts" && evalId !== undefined && caseId !== undefined && extra === undefined)
      return {
        runId: run.runId,
        evalId,
        caseId,
        trials: await caseTrials(store, run.runId, evalId, caseId),
      };
  }
  if (first === "compare" && parts.length === 1) {
    const base = p.get("base");
    const head = p.get("head");
    if (!base || !head) throw new NiceevalError("COMPARE_USAGE", "compare needs ?base=&head=");
    return compareRefs(store, base, head);
  }
  throw new NiceevalError("RUN_NOT_FOUND", `no API /api/${parts.join("/")}`);
}

function runQuery(p: URLSearchParams): RunListQuery {
  const query: RunListQuery = {};
  const limit = Number(p.get("limit") ?? 200);
  query.limit = Number.isInteger(limit) && limit > 0 ? Math.min(limit, 10_000) : 200;
  const evalId = p.get("evalId");
  if (evalId) query.evalId = evalId;
  const branch = p.get("branch");
  if (branch) query.branch = branch;
  const status = p.get("status");
  if (status && STATUSES.has(status)) query.status = status as RunStatus;
  const tags: Record<string, string> = {};
  for (const tag of p.getAll("tag")) {
    const at = tag.indexOf("=");
    if (at > 0) tags[tag.slice(0, at)] = tag.slice(at + 1);
  }
  if (Object.keys(tags).length > 0) query.tags = tags;
  return query;
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, {
    "Content-Type": `${type}; charset=utf-8`,
    "Content-Length": Buffer.byteLength(body),
  });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, "application/json", safeStringify(value));
}
