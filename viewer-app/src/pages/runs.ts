import type { RunRow } from "../../../src/viewer/api.js";
import { trendCharts } from "../charts.js";
import { get } from "../data.js";
import { badge, enc, fail, fill, h, inputValue, interval, notice, pct, when } from "../dom.js";
import { meanText, sizeText } from "../numbers.js";
import { go, header, type PageHandle, poll, type Route, setParams } from "../router.js";

/** Every stored run, filterable by eval, branch and tag; two picked runs open the comparison. */
export function runsPage(root: HTMLElement, r: Route): PageHandle {
  const p = r.params;
  // Ticked runs stay ticked, and comparable, while a filter hides them.
  const selected = new Map<string, RunRow>();
  const compare = compareControl(selected);
  const body = h("tbody");
  const charts = h("section", { class: "charts" });
  const tagNote = h("div");
  const moreNote = h("div");
  let lastRuns: RunRow[] = [];
  const filter = (name: string, label: string) => filterInput(p, name, label, () => void load());
  root.append(
    header("runs"),
    h(
      "div",
      { class: "filters" },
      filter("evalId", "eval"),
      filter("branch", "branch"),
      filter("tag", "tag k=v"),
      compare.button,
      compare.hint,
    ),
    tagNote,
    moreNote,
    h(
      "table",
      { class: "runs" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          COLUMNS.map((t) => h("th", {}, t)),
        ),
      ),
      body,
    ),
    charts,
  );
  const line = (run: RunRow) => runLine(run, selected, () => compare.update(lastRuns));
  async function load(): Promise<void> {
    const tag = p.get("tag");
    // The server refuses a tag filter without `key=`: it is not sent, and the page says so.
    const badTag = !!tag && tag.indexOf("=") <= 0;
    fill(tagNote, badTag ? badTagNotice(tag) : null);
    let data: { runs: RunRow[] };
    const limit = listLimit(p.get("limit"));
    try {
      data = await get("/runs", {
        evalId: p.get("evalId"),
        branch: p.get("branch"),
        tag: badTag ? null : tag,
        limit,
      });
    } catch (err) {
      fill(body, h("tr", {}, h("td", { colspan: 9 }, fail(err))));
      return;
    }
    lastRuns = data.runs;
    fill(moreNote, data.runs.length >= limit ? moreRuns(p, limit) : null);
    compare.update(lastRuns);
    if (data.runs.length === 0)
      fill(body, h("tr", {}, h("td", { colspan: 9, class: "muted" }, noRunsText(p, badTag))));
    else fill(body, data.runs.map(line));
    fill(charts, trendCharts(data.runs, p.get("evalId")));
  }
  void load();
  const stop = poll(() => {
    if (lastRuns.some((x) => x.status === "running")) void load();
  }, 3000);
  return { stop, back: () => {} };
}

const COLUMNS = [
  "",
  "run",
  "branch",
  "commit",
  "started",
  "status",
  "cases",
  "pass rate (95% CI)",
  "mean score",
];

/**
 * The compare button and its hint: the button names the runs ticked; while it cannot compare,
 * the hint says why (and which ticked runs the filters hide). `update` takes the runs listed.
 */
function compareControl(selected: Map<string, RunRow>) {
  const button = h(
    "button",
    {
      disabled: true,
      onclick: () => {
        const rows = [...selected.values()].sort((a, b) => (a.startedAt < b.startedAt ? -1 : 1));
        if (rows.length === 2)
          go(`#/compare?base=${enc(rows[0]!.runId)}&head=${enc(rows[1]!.runId)}`);
      },
    },
    "Compare 0 selected",
  );
  const hint = h("span", { class: "muted small", id: "compare-hint" });
  const update = (listedRuns: readonly RunRow[]) => {
    const n = selected.size;
    const why =
      n === 0
        ? "Tick two runs to compare them."
        : n === 1
          ? "Tick one more run to compare."
          : n > 2
            ? `Compare takes two runs; ${n} are ticked.`
            : "";
    const listed = new Set(listedRuns.map((x) => x.runId));
    const hidden = [...selected.keys()].filter((id) => !listed.has(id)).length;
    const unlisted = hidden
      ? `${hidden === n ? (n === 1 ? "It is" : "They are") : `${hidden} of them ${hidden === 1 ? "is" : "are"}`} not listed under these filters.`
      : "";
    button.textContent = `Compare ${n} selected`;
    button.disabled = n !== 2;
    button.title = why;
    hint.textContent = [why, unlisted].filter(Boolean).join(" ");
  };
  update([]);
  return { button, hint, update };
}

/** A filter box bound to the URL parameter `name`; `changed` runs after the URL changes. */
function filterInput(p: URLSearchParams, name: string, label: string, changed: () => void) {
  return h(
    "label",
    {},
    `${label} `,
    h("input", {
      name,
      value: p.get(name) ?? "",
      size: 14,
      onchange: (e: Event) => {
        const v = inputValue(e);
        if (v) p.set(name, v);
        else p.delete(name);
        setParams(p);
        changed();
      },
    }),
  );
}

/** One run's row; ticking its box adds it to `selected` (or takes it out), then `toggled`. */
function runLine(run: RunRow, selected: Map<string, RunRow>, toggled: () => void): HTMLElement {
  return h(
    "tr",
    { class: "run-row", "data-run": run.runId },
    h(
      "td",
      {},
      h("input", {
        type: "checkbox",
        "aria-label": "select for compare",
        checked: selected.has(run.runId),
        onchange: (e: Event) => {
          if ((e.target as HTMLInputElement).checked) selected.set(run.runId, run);
          else selected.delete(run.runId);
          toggled();
        },
      }),
    ),
    h(
      "td",
      {},
      h("a", { href: `#/run/${enc(run.runId)}` }, run.name ?? run.runId.slice(0, 8)),
      run.name ? h("span", { class: "muted" }, ` ${run.runId.slice(0, 8)}`) : null,
      run.shard ? h("span", { class: "muted" }, ` shard ${run.shard}`) : null,
      // As `niceeval runs` marks it: a run of some cases only is not taken for a whole run.
      run.filter !== null
        ? h("span", { class: "muted", title: `--filter ${run.filter}` }, " [filtered]")
        : null,
      tagsText(run.tags),
    ),
    h("td", {}, run.branch ?? ""),
    h("td", { class: "mono" }, (run.commit ?? "").slice(0, 7) + (run.dirty ? "*" : "")),
    h("td", {}, when(run.startedAt)),
    h(
      "td",
      {},
      badge(run.status),
      // What failed the run besides its attempts, which its figures do not show.
      run.troubles.length > 0
        ? h("div", { class: "err small" }, run.troubles.join(" \u00b7 "))
        : null,
    ),
    h("td", { class: "num" }, String(run.cases)),
    h(
      "td",
      { class: "num" },
      pct(run.passRate),
      h(
        "span",
        { class: "muted" },
        `${interval(run.passRateInterval, pct)} ${sizeText(run.attempts - run.skipped - run.interrupted, run.passRateCases)}`,
      ),
    ),
    h(
      "td",
      { class: "num" },
      meanText(run.meanScore, run.partialAttempts),
      h("span", { class: "muted" }, ` ${sizeText(run.scoredAttempts, run.meanScoreCases)}`),
    ),
  );
}

/** The tag filter the server ignores, said. */
function badTagNotice(tag: string | null): HTMLElement {
  return notice(
    `The tag filter ${JSON.stringify(tag)} is ignored: write it as key=value, for example model=gpt-4.1.`,
  );
}

/** What an empty list says: no run matches the filters (and how to clear them), or none stored. */
function noRunsText(p: URLSearchParams, badTag: boolean) {
  const filters = Object.entries({ evalId: "eval", branch: "branch", tag: "tag" }).flatMap(
    ([name, label]) => {
      const value = p.get(name);
      return value && !(name === "tag" && badTag) ? [`${label} ${value}`] : [];
    },
  );
  return filters.length > 0
    ? [
        `No run matches these filters (${filters.join(", ")}). `,
        h("a", { href: "#/" }, "Clear the filters"),
        " to see every run.",
      ]
    : "No runs stored yet: niceeval run writes one.";
}

/** Runs listed at most: the server's default, or `?limit=` (up to the server's 10,000). */
const MAX_RUNS = 10_000;
function listLimit(asked: string | null): number {
  const n = Number(asked ?? 200);
  return Number.isInteger(n) && n > 0 ? Math.min(n, MAX_RUNS) : 200;
}

/** The list stopped at its limit: say older runs are not listed, and how to list more. */
function moreRuns(p: URLSearchParams, limit: number): HTMLElement {
  const more = new URLSearchParams(p);
  more.set("limit", String(Math.min(limit * 2, MAX_RUNS)));
  return notice(
    `Only the newest ${limit} runs are listed; older runs are not. `,
    limit < MAX_RUNS ? [h("a", { href: `#/?${more}` }, `List ${more.get("limit")}`), ", or "] : "",
    "narrow them by eval, branch or tag (",
    h("code", {}, "niceeval runs --limit"),
    " lists them in the terminal).",
  );
}

/** A run's tags (`--tag key=value`), which the tag filter matches, shown under its name. */
function tagsText(tags: Record<string, string>): HTMLElement | null {
  const pairs = Object.entries(tags);
  if (pairs.length === 0) return null;
  return h("div", { class: "muted small" }, pairs.map(([k, v]) => `${k}=${v}`).join(" \u00b7 "));
}
