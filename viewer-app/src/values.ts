import { pluralNoun } from "../../src/plural.js";
import { isTruncated } from "../../src/store/types.js";
import { lineDiff } from "./diff.js";
import { badge, fill, h } from "./dom.js";
import { shownText, typeNote } from "./shown.js";

/** The start of a value as one line of text, written as beside `others` ({@link shownText}). */
export function preview(v: unknown, others: readonly unknown[] = []): string {
  if (isTruncated(v)) return `[truncated, ${v.bytes} bytes]`;
  const s = typeof v === "string" ? shownText(v, others) : JSON.stringify(v);
  return s === undefined ? "" : s.slice(0, 120);
}

/**
 * A recorded value: as text (a string quoted where it would read as another value, beside
 * `others`), with a collapsible JSON tree for objects; truncated ones say so.
 */
export function valueView(v: unknown, others: readonly unknown[] = []): HTMLElement {
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
    boundedText(shownText(v, others)),
    typeof v === "object" && v !== null ? lazyTree(v) : null,
  );
}

/** Characters of a value drawn at once; a longer one is drawn on asking. */
const SHOWN_CHARS = 100_000;

/**
 * A value's text, its first SHOWN_CHARS drawn, with a button that draws the rest: a value of
 * megabytes drawn whole (and in its diff and JSON tree) held the page for seconds.
 */
function boundedText(text: string): HTMLElement {
  if (text.length <= SHOWN_CHARS) return h("pre", {}, text);
  const pre = h("pre", {}, text.slice(0, SHOWN_CHARS));
  const more = h(
    "p",
    { class: "muted" },
    `the first ${SHOWN_CHARS.toLocaleString("en")} of ${text.length.toLocaleString("en")} characters `,
    h(
      "button",
      {
        type: "button",
        onclick: () => {
          fill(pre, text);
          more.remove();
        },
      },
      "show all",
    ),
  );
  return h("div", {}, pre, more);
}

/** A JSON tree built when first opened, not with the page. */
function lazyTree(v: object): HTMLElement {
  const details = h("details", {}, h("summary", {}, "JSON tree"));
  details.addEventListener(
    "toggle",
    () => {
      if (details.open) details.appendChild(jsonTree(v, 0));
    },
    { once: true },
  );
  return details;
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
 * A line diff of two values (see {@link lineDiff}): equality is decided on the whole values, and
 * what the diff leaves out is counted. `same` is what equal values read as.
 */
export function diffView(
  a: unknown,
  b: unknown,
  same = "output equals expected",
  names: [string, string] = ["expected", "output"],
): HTMLElement {
  if (isTruncated(a) || isTruncated(b))
    return h("p", { class: "muted" }, "not diffed: a value is truncated");
  const types = typeNote(a, b);
  const d = lineDiff(shownText(a, [b]), shownText(b, [a]), CUT);
  if (d.equal && !types) return h("p", { class: "muted" }, same);
  const skipped = (n: number, where: string) =>
    n > 0 ? h("div", { class: "d-skip" }, `\u2026 ${lines(n)} equal ${where}`) : null;
  const { a: leftA, b: leftB } = d.leftOut;
  return h(
    "div",
    {},
    types ? h("p", { class: "notice" }, types) : null,
    h(
      "pre",
      { class: "diff" },
      skipped(d.sameBefore, "before"),
      d.lines.map((l) => h("div", { class: `d-${l.kind}` }, `${MARK[l.kind]} ${cutLine(l.text)}`)),
      skipped(d.sameAfter, "after"),
    ),
    leftA + leftB > 0
      ? h(
          "p",
          { class: "notice" },
          `The values differ; the diff shows the changed part only up to ${CUT.toLocaleString("en")} lines of each side: ${lines(leftA)} more of ${names[0]} and ${lines(leftB)} more of ${names[1]} are left out of it.`,
        )
      : null,
  );
}

/** Characters of one line the diff draws; the rest is counted. */
const LINE_CHARS = 10_000;
const cutLine = (text: string) =>
  text.length <= LINE_CHARS
    ? text
    : `${text.slice(0, LINE_CHARS)} \u2026 (${(text.length - LINE_CHARS).toLocaleString("en")} more characters)`;

/** Lines of a side's changed part the diff compares; the rest is counted. */
const CUT = 1500;
const lines = (n: number) => `${n.toLocaleString("en")} ${pluralNoun(n, "line")}`;
const MARK = { same: " ", del: "-", add: "+" } as const;
