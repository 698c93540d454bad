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
  const body = h("tbody");
  const charts = h("section", { class: "charts" });
  const tagNote = h("div");
  const moreNote = h("div");
  let lastRuns: RunRow[] = [];
  const compareBtn = h(
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
  const compareHint = h("span", { class: "muted small", id: "compare-hint" });
  /** The button names the runs ticked; while it cannot compare, the hint says why. */
  const updateCompare = () => {
    const n = selected.size;
    const why =
      n === 0
        ? "Tick two runs to compare them."
        : n === 1
          ? "Tick one more run to compare."
          : n > 2
            ? `Compare takes two runs; ${n} are ticked.`
            : "";
    const listed = new Set(lastRuns.map((x) => x.runId));
    const hidden = [...selected.keys()].filter((id) => !listed.has(id)).length;
    const unlisted = hidden
      ? `${hidden === n ? (n === 1 ? "It is" : "They are") : `${hidden} of them ${hidden === 1 ? "is" : "are"}`} not listed under these filters.`
      : "";
    compareBtn.textContent = `Compare ${n} selected`;
    compareBtn.disabled = n !== 2;
    compareBtn.title = why;
    compareHint.textContent = [why, unlisted].filter(Boolean).join(" ");
  };
  updateCompare();
  const filter = (name: string, label: string) =>
    h(
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
          void load();
        },
      }),
    );
  const columns = [
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
  root.append(
    header("runs"),
    h(
      "div",
      { class: "filters" },
      filter("evalId", "eval"),
      filter("branch", "branch"),
      filter("tag", "tag k=v"),
      compareBtn,
      compareHint,
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
          columns.map((t) => h("th", {}, t)),
        ),
      ),
      body,
    ),
    charts,
  );
  const line = (run: RunRow) =>
    h(
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
            updateCompare();
          },
        }),
      ),
      h(
        "td",
        {},
        h("a", { href: `#/run/${enc(run.runId)}` }, run.name ?? run.runId.slice(0, 8)),
        run.name ? h("span", { class: "muted" }, ` ${run.runId.slice(0, 8)}`) : null,
        run.shard ? h("span", { class: "muted" }, ` shard ${run.shard}`) : null,
      ),
      h("td", {}, run.branch ?? ""),
      h("td", { class: "mono" }, (run.commit ?? "").slice(0, 7) + (run.dirty ? "*" : "")),
      h("td", {}, when(run.startedAt)),
      h("td", {}, badge(run.status)),
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
  async function load(): Promise<void> {
    const tag = p.get("tag");
    // The server ignores a tag filter without `key=`: say so rather than show every run unasked.
    const badTag = !!tag && tag.indexOf("=") <= 0;
    fill(
      tagNote,
      badTag
        ? notice(
            `The tag filter ${JSON.stringify(tag)} is ignored: write it as key=value, for example model=gpt-4.1.`,
          )
        : null,
    );
    let data: { runs: RunRow[] };
    const limit = listLimit(p.get("limit"));
    try {
      data = await get("/runs", {
        evalId: p.get("evalId"),
        branch: p.get("branch"),
        tag: p.get("tag"),
        limit,
      });
    } catch (err) {
      fill(body, h("tr", {}, h("td", { colspan: 9 }, fail(err))));
      return;
    }
    lastRuns = data.runs;
    fill(moreNote, data.runs.length >= limit ? moreRuns(p, limit) : null);
    updateCompare();
    const filters = Object.entries({ evalId: "eval", branch: "branch", tag: "tag" }).flatMap(
      ([name, label]) => {
        const value = p.get(name);
        return value && !(name === "tag" && badTag) ? [`${label} ${value}`] : [];
      },
    );
    const none =
      filters.length > 0
        ? [
            `No run matches these filters (${filters.join(", ")}). `,
            h("a", { href: "#/" }, "Clear the filters"),
            " to see every run.",
          ]
        : "No runs stored yet: niceeval run writes one.";
    if (data.runs.length === 0)
      fill(body, h("tr", {}, h("td", { colspan: 9, class: "muted" }, none)));
    else fill(body, data.runs.map(line));
    fill(charts, trendCharts(data.runs, p.get("evalId")));
  }
  void load();
  const stop = poll(() => {
    if (lastRuns.some((x) => x.status === "running")) void load();
  }, 3000);
  return { stop, back: () => {} };
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
