import { STATIC } from "./data.js";
import { enc, h, type Kid } from "./dom.js";

/** The page the hash names: `#/run/<id>?verdict=failed` (a hash router works from file://). */
export interface Route {
  page: string;
  args: string[];
  params: URLSearchParams;
  /** A part of the hash that does not decode (a malformed % escape): the page cannot be named. */
  malformed?: string;
}

/** What a page gives back to the app: how to stop its timers, go back, handle a key. */
export interface PageHandle {
  stop?: () => void;
  back?: () => void;
  key?: (key: string) => boolean;
}

export function route(): Route {
  const hash = location.hash.slice(1) || "/";
  const q = hash.indexOf("?");
  const raw = (q < 0 ? hash : hash.slice(0, q)).split("/").filter(Boolean);
  const parts: string[] = [];
  const params = new URLSearchParams(q < 0 ? "" : hash.slice(q + 1));
  for (const part of raw) {
    try {
      parts.push(decodeURIComponent(part));
    } catch {
      return { page: "malformed", args: [], params, malformed: part };
    }
  }
  return { page: parts[0] ?? "runs", args: parts.slice(1), params };
}

/** The page of a link whose address does not decode: what is wrong with it, and a way on. */
export function malformedPage(root: HTMLElement, r: Route): PageHandle {
  root.append(
    header("bad link"),
    h(
      "div",
      { class: "error", role: "alert" },
      `This link cannot be read: ${JSON.stringify(r.malformed)} in its address is not a valid % escape (a link cut short or edited by hand?). `,
      h("a", { href: "#/" }, "Go to the runs"),
      ".",
    ),
  );
  return { back: () => go("#/") };
}

/** The hash of a case page, showing `trial` (numbered from 0) when given. */
export function caseHash(runId: string, evalId: string, caseId: string, trial?: number): string {
  return `#/case/${[runId, evalId, caseId].map(enc).join("/")}${trial === undefined ? "" : `?trial=${trial}`}`;
}

export function go(hash: string): void {
  location.hash = hash;
}

/** Put the page's filters in the URL without a new history entry, so a link reproduces the view. */
export function setParams(params: URLSearchParams): void {
  const r = route();
  const qs = params.toString();
  history.replaceState(
    null,
    "",
    `#/${[r.page, ...r.args].map(enc).join("/")}${qs ? `?${qs}` : ""}`,
  );
}

export function header(...crumbs: Kid[]): HTMLElement {
  return h(
    "header",
    {},
    h("a", { href: "#/", class: "logo" }, "niceeval"),
    crumbs.map((c) => [" / ", c]),
    STATIC ? h("span", { class: "muted right" }, "static export") : null,
  );
}

/** Call `fn` every `ms` in the live app (a static export never changes); returns the stopper. */
export function poll(fn: () => void, ms: number): () => void {
  if (STATIC) return () => {};
  const t = setInterval(fn, ms);
  return () => clearInterval(t);
}

let previousHash: string | null = null;
/** The hash before the last navigation, so Esc on a case returns to the filtered table. */
export const previous = (): string | null => previousHash;
export function remember(oldUrl: string): void {
  previousHash = oldUrl.split("#")[1] ?? null;
}
