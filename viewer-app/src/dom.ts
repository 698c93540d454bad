import type { Interval } from "../../src/stats/interval.js";
import { encodeSegment } from "../../src/viewer/segment.js";
// Control characters (ANSI escapes) and bidirectional overrides are shown, never obeyed.
import { visible } from "../../src/visible.js";

/** What `h` accepts as children: nodes, text (always as text), nothing, or lists of these. */
export type Kid = Node | string | number | null | undefined | false | Kid[];
type Props = Record<string, unknown>;

/**
 * An element: every string child becomes a text node (never markup); only `#…` links are kept,
 * so no `javascript:` or external href can be made from run data.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props?: Props | null,
  ...kids: Kid[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = String(v);
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v as EventListener);
    else if (k === "href") {
      if (String(v).startsWith("#")) el.setAttribute("href", String(v));
    } else if (k === "value") (el as HTMLInputElement).value = String(v);
    else if (k === "checked" || k === "selected" || k === "disabled")
      (el as unknown as Record<string, boolean>)[k] = Boolean(v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  add(el, kids);
  return el;
}

/** Replace an element's children. */
export function fill(el: Element, ...kids: Kid[]): void {
  el.replaceChildren();
  add(el, kids);
}

function add(el: Element, kids: Kid[]): void {
  for (const kid of kids) {
    if (kid === null || kid === undefined || kid === false) continue;
    if (Array.isArray(kid)) add(el, kid);
    else if (kid instanceof Node) el.appendChild(kid);
    else el.appendChild(document.createTextNode(visible(String(kid))));
  }
}

/** The value of the input or select an event came from. */
export const inputValue = (e: Event): string => (e.target as HTMLInputElement).value;
export const enc = encodeURIComponent;
/** An id in an API path: `..` and `.` stay ids, not path steps (the hash's routes need no such care). */
export const seg = encodeSegment;

import { meanText } from "./numbers.js";

export { num, pct } from "./numbers.js";
export const interval = (iv: Interval | null | undefined, f: (x: number) => string): string =>
  iv ? ` [${f(iv.low)}, ${f(iv.high)}]` : "";
export const badge = (text: string, kind?: string): HTMLSpanElement =>
  h("span", { class: `badge b-${kind ?? text}` }, text);
export const when = (iso: string | null | undefined): string =>
  iso ? iso.slice(0, 19).replace("T", " ") : "";

/**
 * A score as shown: unavailable stays a word, partial reads as a lower bound ("≥ 0.615"), as mean
 * scores do ({@link meanText}).
 */
export function scoreText(s: { state: string; earned: number; max: number }): string {
  if (s.state === "unavailable") return "unavailable";
  return meanText(s.max > 0 ? s.earned / s.max : null, s.state === "partial" ? 1 : 0);
}

export function fail(err: unknown): HTMLDivElement {
  return h(
    "div",
    { class: "error", role: "alert" },
    err instanceof Error ? err.message : String(err),
  );
}

/** A note on what the page shows and why (a link that names nothing, a partial export). */
export function notice(...kids: Kid[]): HTMLElement {
  return h("p", { class: "notice", role: "status" }, kids);
}

export function section(title: string, ...kids: Kid[]): HTMLElement {
  return h("section", { class: "box" }, h("h3", {}, title), kids);
}
