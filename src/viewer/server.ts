import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { type Context, Hono, type Next } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { errorMessage, NiceevalError } from "../errors.js";
import { safeStringify } from "../json-safe.js";
import { resolveRunRef } from "../store/resolve.js";
import type { Store } from "../store/types.js";
import { attemptRows, caseTrials, compareRefs, listRunRows, runDetail, runFinish } from "./api.js";
import { type AppFiles, loadApp } from "./app-files.js";
import { type RunCharts, runCharts } from "./charts.js";
import { SERVER_CSP } from "./html.js";
import { FoldedDetails, Kept } from "./kept.js";
import { attemptQueryOf, runListQueryOf } from "./query-params.js";
import { decodeSegment } from "./segment.js";

/** Options of {@link startViewer}. */
export interface ViewerOptions {
  store: Store;
  /** Default 127.0.0.1; anything else is reachable from other machines. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** The session token (default: 24 random bytes); every request must carry it or its cookie. */
  token?: string;
  /**
   * The `--store` the commands the pages suggest carry (resuming a run that stopped), as the user
   * named the store; default none, for the default store.
   */
  storeFlag?: string;
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

/**
 * The session cookie's name, one per token: cookies ignore ports, so two viewers on one host would
 * otherwise overwrite each other's cookie. A hash names it, never the token itself.
 */
export const sessionCookie = (token: string): string =>
  `niceeval_session_${createHash("sha256").update(token).digest("hex").slice(0, 12)}`;

/**
 * Serve the viewer over a store: the built web app and its JSON API (a Hono app on Node's HTTP
 * server), on loopback unless told otherwise, behind a random session token that the first
 * request exchanges for an HttpOnly, SameSite=Strict cookie. Without either, every request is
 * answered 401.
 * @example
 * const viewer = await startViewer({ store });
 * console.log(viewer.url); // http://127.0.0.1:41234/?token=…
 */
export async function startViewer(options: ViewerOptions): Promise<Viewer> {
  const host = options.host ?? "127.0.0.1";
  const token = options.token ?? randomBytes(24).toString("base64url");
  const web = viewerApp(options.store, token, loadApp(), options.storeFlag);
  const server = createAdaptorServer({ fetch: web.fetch }) as Server;
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

function sameToken(given: string | undefined | null, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

const json = (c: Context, value: unknown, status: 200 | 400 | 401 | 404 | 405 | 500 = 200) =>
  c.body(safeStringify(value), status, { "Content-Type": "application/json; charset=utf-8" });

/**
 * Codes of errors in what a request asked for (a run it names, a query value, `branch:` without
 * a name): a 400 (404 for a run not found) that says what to change, never a 500.
 */
const ASKED_WRONG = /^(RUN_|COMPARE_|VIEWER_QUERY$|STORE_QUERY$|USAGE$)/;

/** The viewer as a Hono app: security headers, the session, the app's files, the JSON API. */
export function viewerApp(store: Store, token: string, app: AppFiles, storeFlag?: string): Hono {
  const web = new Hono();
  web.use(securityHeaders);
  web.use(session(token));
  const page = (c: Context) => c.html(app.index);
  web.get("/", page);
  web.get("/index.html", page);
  web.get("/assets/*", (c) => {
    const file = app.files.get(c.req.path);
    if (!file) return json(c, { error: `no file ${c.req.path}` }, 404);
    return c.body(new Uint8Array(file.body), 200, { "Content-Type": file.type });
  });
  apiRoutes(web, store, storeFlag);
  web.notFound((c) =>
    c.req.path.startsWith("/api/")
      ? json(c, { error: `no API ${c.req.path}` }, 404)
      : json(c, { error: `no page ${c.req.path}` }, 404),
  );
  web.onError((error, c) => {
    if (error instanceof NiceevalError && ASKED_WRONG.test(error.code))
      return json(
        c,
        { error: error.message, code: error.code },
        error.code === "RUN_NOT_FOUND" ? 404 : 400,
      );
    return json(c, { error: errorMessage(error) }, 500);
  });
  return web;
}

/** Headers every answer carries: no script from elsewhere, no sniffing, no referrer, no cache. */
async function securityHeaders(c: Context, next: Next): Promise<void> {
  await next();
  c.res.headers.set("Content-Security-Policy", SERVER_CSP);
  c.res.headers.set("X-Content-Type-Options", "nosniff");
  c.res.headers.set("Referrer-Policy", "no-referrer");
  c.res.headers.set("Cache-Control", "no-store");
}

/** GET only, and only with the session: the token of the printed URL, then its cookie. */
function session(token: string) {
  const cookie = sessionCookie(token);
  return async (c: Context, next: Next) => {
    if (c.req.method !== "GET" && c.req.method !== "HEAD")
      return json(c, { error: "the viewer is read-only: GET only" }, 405);
    if (sameToken(c.req.query("token"), token)) {
      setCookie(c, cookie, token, { httpOnly: true, sameSite: "Strict", path: "/" });
      if (!c.req.path.startsWith("/api/")) {
        // Drop the token from the address bar and history once the cookie holds it.
        const url = new URL(c.req.url);
        url.searchParams.delete("token");
        return c.redirect(`${url.pathname}${url.search}`, 302);
      }
    } else if (!sameToken(getCookie(c, cookie), token)) {
      return json(
        c,
        { error: "no session: open the URL that `niceeval view` printed (it carries ?token=…)" },
        401,
      );
    }
    await next();
  };
}

/** The JSON API over the store: runs, a run's detail, attempts, a case, charts, a comparison. */
function apiRoutes(web: Hono, store: Store, storeFlag: string | undefined): void {
  // Finished runs do not change: their charts (a pass over every attempt) are kept, a few at a time.
  const charts = new Kept<RunCharts>(8);
  const folded = new FoldedDetails(store);
  /** The run a request's path names (its id, name or reference, as a path segment). */
  const runOf = (c: Context) => resolveRunRef(store, decodeSegment(c.req.param("run") ?? ""));

  web.get("/api/runs", async (c) =>
    json(c, { runs: await listRunRows(store, runListQueryOf(searchOf(c), c.req.path)) }),
  );
  web.get("/api/runs/:run", async (c) => {
    const run = await runOf(c);
    const detail = run.summaries?.length ? await runDetail(store, run) : await folded.detail(run);
    return json(c, { ...detail, finish: runFinish(run, storeFlag) });
  });
  web.get("/api/runs/:run/attempts", async (c) => {
    const run = await runOf(c);
    return json(c, await attemptRows(store, run.runId, attemptQueryOf(searchOf(c), c.req.path)));
  });
  web.get("/api/runs/:run/attempts/:evalId/:caseId", async (c) => {
    const run = await runOf(c);
    const evalId = decodeSegment(c.req.param("evalId"));
    const caseId = decodeSegment(c.req.param("caseId"));
    const trials = await caseTrials(store, run.runId, evalId, caseId);
    if (trials.length > 0) return json(c, { runId: run.runId, evalId, caseId, trials });
    const error = `run ${run.runId.slice(0, 8)} has no attempt of case ${JSON.stringify(caseId)} of eval ${JSON.stringify(evalId)}`;
    return json(c, { error }, 404);
  });
  web.get("/api/runs/:run/charts", async (c) => {
    const run = await runOf(c);
    const kept = charts.get(run.runId);
    if (kept) return json(c, kept);
    const result = await runCharts(store, run.runId);
    if (run.status !== "running") charts.set(run.runId, result);
    return json(c, result);
  });
  web.get("/api/compare", async (c) => {
    const base = c.req.query("base");
    const head = c.req.query("head");
    if (!base || !head) throw new NiceevalError("COMPARE_USAGE", "compare needs ?base=&head=");
    return json(c, await compareRefs(store, base, head));
  });
}

/** A request's URL parameters. */
const searchOf = (c: Context) => new URL(c.req.url).searchParams;
