import { shownId } from "../../../src/report/shown-id.js";
import type { AttemptRow, RowPage } from "../../../src/viewer/api.js";
import { PAGE } from "../data.js";
import { badge, fail, fill, h, scoreText } from "../dom.js";
import { msNumber } from "../numbers.js";
import { caseHash } from "../router.js";

const ROW = 28;

/** A place in the table: how far it is scrolled and the row selected. */
export interface TablePlace {
  top: number;
  sel: number;
}

/** The cases table's handle: its element and what the run page asks of it. */
export interface VirtualTable {
  el: HTMLElement;
  onTotal: (n: number) => void;
  /** Load from the first row; or, given a place the table was left at, back at it. */
  reset(at?: TablePlace): void;
  /** Where the table is scrolled to and which row is selected (to come back to it). */
  place(): TablePlace;
  refresh(): void;
  move(delta: number): void;
  selected(): AttemptRow | undefined;
}

/**
 * Only the rows in view are in the DOM; pages of {@link PAGE} rows come from the server as they
 * scroll in, at most 50 pages held.
 */
export function virtualTable(
  runId: string,
  fetchPage: (offset: number) => Promise<RowPage>,
  onOpen: (row: AttemptRow) => void,
): VirtualTable {
  const el = h("div", { class: "vt", tabindex: 0, role: "grid" });
  const spacer = h("div", { class: "vt-spacer" });
  const rows = h("div", { class: "vt-rows" });
  el.append(spacer, rows);
  let total = 0;
  let pages = new Map<number, AttemptRow[] | null>();
  let generation = 0;
  let sel = 0;
  let frame = 0;
  // A place to go back to once the rows are counted (the scroll needs the table's height).
  let returning: TablePlace | undefined;

  function load(n: number): void {
    if (pages.has(n)) return;
    const gen = generation;
    pages.set(n, null);
    fetchPage(n * PAGE).then(
      (page) => {
        if (gen !== generation) return;
        pages.set(n, page.items);
        dropOldest(pages, n);
        total = page.total;
        self.onTotal(total);
        if (returning && total > 0) {
          sel = Math.min(returning.sel, total - 1);
          spacer.style.height = `${total * ROW}px`;
          el.scrollTop = returning.top;
        }
        returning = undefined;
        draw();
      },
      (err: unknown) => {
        if (gen === generation) fill(rows, fail(err));
      },
    );
  }
  const rowAt = (i: number) => pages.get(Math.floor(i / PAGE))?.[i % PAGE];
  const line = (row: AttemptRow, i: number) =>
    rowLine(row, i === sel, caseHash(runId, row.evalId, row.caseId, row.trial), {
      select: () => {
        sel = i;
        draw();
      },
      open: () => onOpen(row),
    });
  function draw(): void {
    frame = 0;
    const [first, last] = rowsInView(el, total);
    spacer.style.height = `${total * ROW}px`;
    rows.style.transform = `translateY(${first * ROW}px)`;
    const out: HTMLElement[] = [];
    for (let i = first; i < last; i++) {
      const row = rowAt(i);
      if (row) out.push(line(row, i));
      else {
        load(Math.floor(i / PAGE));
        out.push(h("div", { class: "vt-row loading" }, "\u2026"));
      }
    }
    const settled = pages.size > 0 && [...pages.values()].every((v) => v !== null);
    if (total === 0 && settled) out.push(h("div", { class: "muted empty" }, "No attempt matches."));
    fill(rows, out);
  }
  el.addEventListener("scroll", () => {
    if (!frame) frame = requestAnimationFrame(draw);
  });
  const self: VirtualTable = {
    el,
    onTotal: () => {},
    reset(at) {
      generation++;
      pages = new Map();
      total = 0;
      sel = 0;
      el.scrollTop = 0;
      returning = at;
      load(0);
    },
    place: () => ({ top: el.scrollTop, sel }),
    refresh() {
      generation++;
      const keep = [...pages.keys()];
      pages = new Map();
      for (const n of keep) load(n);
    },
    move(d) {
      sel = Math.max(0, Math.min(total - 1, sel + d));
      keepInView(el, sel);
      draw();
    },
    selected: () => rowAt(sel),
  };
  return self;
}

/** The rows to draw, first and past the last: those in view, and 8 more either side. */
function rowsInView(el: HTMLElement, total: number): [number, number] {
  const top = el.scrollTop;
  const height = el.clientHeight || 600;
  return [
    Math.max(0, Math.floor(top / ROW) - 8),
    Math.min(total, Math.ceil((top + height) / ROW) + 8),
  ];
}

/** Scroll so that row `i` is in view. */
function keepInView(el: HTMLElement, i: number): void {
  if (i * ROW < el.scrollTop) el.scrollTop = i * ROW;
  else if ((i + 1) * ROW > el.scrollTop + el.clientHeight)
    el.scrollTop = (i + 1) * ROW - el.clientHeight;
}

/** Pages held at most: past it, the page loaded longest ago (other than `kept`) goes. */
const MAX_PAGES = 50;
function dropOldest(pages: Map<number, AttemptRow[] | null>, kept: number): void {
  if (pages.size <= MAX_PAGES) return;
  for (const key of pages.keys())
    if (key !== kept) {
      pages.delete(key);
      return;
    }
}

/** One attempt's row: a click selects it, a double click opens its case. */
function rowLine(
  row: AttemptRow,
  selected: boolean,
  href: string,
  on: { select: () => void; open: () => void },
): HTMLElement {
  return h(
    "div",
    {
      class: `vt-row${selected ? " sel" : ""}`,
      "data-verdict": row.verdict,
      "data-case": row.caseId,
      onclick: on.select,
      ondblclick: on.open,
    },
    h("span", {}, shownId(row.evalId)),
    h("span", {}, h("a", { href }, shownId(row.caseId))),
    h("span", { class: "num" }, String(row.trial + 1)),
    h("span", {}, badge(row.verdict)),
    h("span", { class: "num" }, scoreText(row.score)),
    h("span", { class: "num" }, msNumber(row.elapsedMs)),
    h("span", { class: "why" }, row.why ?? ""),
    h("span", { class: "out" }, row.output ?? ""),
  );
}
