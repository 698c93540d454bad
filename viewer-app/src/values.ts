import { badge, h } from "./dom.js";

type Truncated = { "~truncated": true; bytes: number; head: string };

export const isTruncated = (v: unknown): v is Truncated =>
  typeof v === "object" && v !== null && (v as Record<string, unknown>)["~truncated"] === true;

/** The start of a value as one line of text. */
export function preview(v: unknown): string {
  if (isTruncated(v)) return `[truncated, ${v.bytes} bytes]`;
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s === undefined ? "" : s.slice(0, 120);
}

const textOf = (v: unknown): string =>
  typeof v === "string" ? v : (JSON.stringify(v, null, 2) ?? String(v));

/** A recorded value: as text, with a collapsible JSON tree for objects; truncated ones say so. */
export function valueView(v: unknown): HTMLElement {
  if (v === undefined) return h("p", { class: "muted" }, "not recorded");
  if (isTruncated(v))
    return h(
      "div",
      {},
      h(
        "p",
        {},
        badge("truncated", "truncated"),
        ` ${v.bytes.toLocaleString("en")} bytes in full; the first ${v.head.length.toLocaleString("en")} characters:`,
      ),
      h("pre", {}, v.head),
    );
  return h(
    "div",
    {},
    h("pre", {}, textOf(v)),
    typeof v === "object" && v !== null
      ? h("details", {}, h("summary", {}, "JSON tree"), jsonTree(v, 0))
      : null,
  );
}

export function jsonTree(v: unknown, depth: number): HTMLElement {
  if (isTruncated(v))
    return h(
      "span",
      {},
      badge("truncated", "truncated"),
      ` ${v.bytes} bytes: ${v.head.slice(0, 200)}`,
    );
  if (v === null || typeof v !== "object")
    return h(
      "span",
      { class: `j-${v === null ? "null" : typeof v}` },
      JSON.stringify(v) ?? String(v),
    );
  const entries: [string | number, unknown][] = Array.isArray(v)
    ? v.map((x, i) => [i, x])
    : Object.entries(v);
  const shown = entries.slice(0, 500);
  return h(
    "details",
    { class: "jt", open: depth < 2 },
    h("summary", {}, Array.isArray(v) ? `[${entries.length}]` : `{${entries.length}}`),
    h(
      "ul",
      {},
      shown.map(([k, x]) =>
        h("li", {}, h("span", { class: "j-key" }, String(k)), ": ", jsonTree(x, depth + 1)),
      ),
      entries.length > shown.length
        ? h("li", { class: "muted" }, `\u2026 ${entries.length - shown.length} more`)
        : null,
    ),
  );
}

/**
 * Line diff by longest common subsequence; large texts are compared by their first lines only.
 * `same` is what equal values read as.
 */
export function diffView(a: unknown, b: unknown, same = "output equals expected"): HTMLElement {
  if (isTruncated(a) || isTruncated(b))
    return h("p", { class: "muted" }, "not diffed: a value is truncated");
  const x = textOf(a).split("\n").slice(0, 1500);
  const y = textOf(b).split("\n").slice(0, 1500);
  if (x.join("\n") === y.join("\n")) return h("p", { class: "muted" }, same);
  const n = x.length;
  const m = y.length;
  const L = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      L[i]![j] = x[i] === y[j] ? L[i + 1]![j + 1]! + 1 : Math.max(L[i + 1]![j]!, L[i]![j + 1]!);
  const out: HTMLElement[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) {
      out.push(h("div", { class: "d-same" }, `  ${x[i]}`));
      i++;
      j++;
    } else if (i < n && (j >= m || L[i + 1]![j]! >= L[i]![j + 1]!)) {
      out.push(h("div", { class: "d-del" }, `- ${x[i]}`));
      i++;
    } else {
      out.push(h("div", { class: "d-add" }, `+ ${y[j]}`));
      j++;
    }
  }
  return h("pre", { class: "diff" }, out);
}
