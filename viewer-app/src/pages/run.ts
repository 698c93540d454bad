import { plural, pluralNoun } from "../../../src/plural.js";
import { loadTroubles } from "../../../src/runner/load-troubles.js";
import type {
  AttemptRow,
  EvalView,
  RowPage,
  RunDetail,
  RunFinish,
  RunRow,
} from "../../../src/viewer/api.js";
import type { RunCharts } from "../../../src/viewer/charts.js";
import { scoreHistograms, scorerRates } from "../charts.js";
import { changedOnly, get, PAGE, STATIC } from "../data.js";
import {
  badge,
  enc,
  fail,
  fill,
  h,
  inputValue,
  interval,
  notice,
  num,
  pct,
  seg,
  when,
} from "../dom.js";
import { meanText, sizeText } from "../numbers.js";
import { caseHash, go, header, type PageHandle, poll, type Route, setParams } from "../router.js";
import { type TablePlace, virtualTable } from "./table.js";

const VERDICTS: [string, string][] = [
  ["", "any"],
  ["passed", "passed"],
  ["failed", "failed"],
  ["errored", "errored"],
  ["skipped", "skipped"],
  ["failed,errored", "not passed"],
];
const STATES: [string, string][] = [
  ["", "any"],
  ["matched", "matched"],
  ["mismatched", "mismatched"],
  ["unavailable", "unavailable"],
  ["errored", "errored"],
];
const SORTS: [string, string][] = [
  ["", "case"],
  ["score", "score"],
  ["elapsed", "elapsed"],
  ["verdict", "verdict"],
];
const ORDERS: [string, string][] = [
  ["", "asc"],
  ["desc", "desc"],
];
/** The filters with a list of choices: the URL's value is sent only when it is one of them. */
const CHOICES: Record<string, [string, string][]> = {
  verdict: VERDICTS,
  state: STATES,
  sort: SORTS,
  order: ORDERS,
};

/**
 * What the table asks the server for: the URL's filters as the page shows them. A value none of
 * a list's choices has (a link edited by hand) shows as the list's first choice ("any") and is
 * not sent, since the server refuses it; the free filters are sent as they are.
 */
function tableParams(p: URLSearchParams): Record<string, string | null> {
  const chosen = (name: string) => {
    const value = p.get(name);
    return CHOICES[name]!.some(([v]) => v !== "" && v === value) ? value : null;
  };
  return {
    evalId: p.get("evalId"),
    label: p.get("label"),
    q: p.get("q"),
    verdict: chosen("verdict"),
    state: chosen("state"),
    sort: chosen("sort"),
    order: chosen("order"),
  };
}

const COLUMNS = ["eval", "case", "trial", "verdict", "score", "ms", "why", "output"];
const EVAL_COLUMNS = [
  "eval",
  "attempts",
  "passed",
  "failed",
  "errored",
  "skipped",
  "pass rate (95% CI)",
  "mean score (95% CI)",
  "trials",
  "flaky",
];

/**
 * Where each view of a run's table was left, by its URL (run, filters, order): a page is built
 * anew on each visit, and coming back from a case must not start over at the first row.
 */
const places = new Map<string, TablePlace>();

/** A run: per-eval figures, charts, and its cases table with filters that live in the URL. */
export function runPage(root: HTMLElement, r: Route): PageHandle {
  const runId = r.args[0] ?? "latest";
  const p = r.params;
  const summary = h("section", {});
  const charts = h("section", { class: "charts" });
  const count = h("span", { class: "muted", id: "count" });
  const openCase = (row: AttemptRow) => go(caseHash(runId, row.evalId, row.caseId, row.trial));
  const table = virtualTable(
    runId,
    (offset) =>
      get<RowPage>(`/runs/${seg(runId)}/attempts`, { ...tableParams(p), offset, limit: PAGE }),
    openCase,
  );
  const title = h("span", {}, runId.slice(0, 8));
  function update(name: string, value: string): void {
    if (value) p.set(name, value);
    else p.delete(name);
    setParams(p);
    table.reset();
  }
  const sel = (name: string, label: string, options: [string, string][]) =>
    selectFilter(p, name, label, options, update);
  const evalSel = h("span");
  const scorers = scorerFilter(p, sel);
  root.append(
    header(title),
    summary,
    filterBar(sel, [evalSel, scorers.el, searchBox(p, update)], count),
    h(
      "div",
      { class: "thead vt-row" },
      COLUMNS.map((t) => h("span", {}, t)),
    ),
    table.el,
    charts,
  );
  table.onTotal = (n) => {
    count.textContent = `${n.toLocaleString("en")} ${pluralNoun(n, "attempt")}`;
  };
  let detail: RunDetail | null = null;
  let chartsFor: string | null = null;
  async function loadDetail(): Promise<void> {
    try {
      detail = await get<RunDetail>(`/runs/${seg(runId)}`);
    } catch (err) {
      fill(summary, fail(err));
      return;
    }
    const run = detail.run;
    // Named by latest~N or a name, the page would be another run's once a newer run comes: it
    // takes the run's id, so that its links, its table's pages and the URL stay this run's.
    if (!run.runId.startsWith(runId)) {
      const qs = p.toString();
      location.replace(`#/run/${enc(run.runId)}${qs ? `?${qs}` : ""}`);
      return;
    }
    title.textContent = run.name ?? run.runId.slice(0, 8);
    fill(summary, ...runSummary(detail), unknownEval(detail, p.get("evalId")));
    if (!evalSel.firstChild) {
      evalSel.append(
        sel("evalId", "eval", [
          ["", "any"],
          ...detail.evals.map((e): [string, string] => [e.evalId, e.evalId]),
        ]),
      );
    }
    scorers.list(detail.labels);
    // Charts read the whole run on the server: once, and again when a live run has finished.
    if (chartsFor !== run.status) {
      chartsFor = run.status;
      get<RunCharts>(`/runs/${seg(runId)}/charts`).then(
        (c) => {
          fill(charts, scoreHistograms(c), scorerRates(c));
          scorers.list(c.scorers.map((rate) => rate.label));
        },
        (err: unknown) => fill(charts, fail(err)),
      );
    }
  }
  void loadDetail();
  // Back from a case, the table is where it was left (the same run, filters and order).
  const placeKey = () => `${runId}?${p.toString()}`;
  table.reset(places.get(placeKey()));
  // A live run's figures fold every stored attempt on the server: one request at a time.
  let loading = false;
  const stop = poll(() => {
    if (detail?.run.status === "running" && !loading) {
      loading = true;
      void loadDetail().finally(() => {
        loading = false;
      });
      table.refresh();
    }
  }, 2000);
  return {
    stop: () => {
      places.set(placeKey(), table.place());
      stop();
    },
    back: () => go("#/"),
    key: (k) => tableKey(k, table, openCase),
  };
}

/** j and k move through the table, Enter opens the case selected; false for any other key. */
function tableKey(
  k: string,
  table: ReturnType<typeof virtualTable>,
  openCase: (row: AttemptRow) => void,
): boolean {
  if (k === "j") table.move(1);
  else if (k === "k") table.move(-1);
  else if (k === "Enter") {
    const row = table.selected();
    if (row) openCase(row);
  } else return false;
  return true;
}

type Select = (name: string, label: string, options: [string, string][]) => HTMLElement;

/** The filters above the table: eval, verdict, judgment, scorer, search, sort and order. */
function filterBar(
  sel: Select,
  [evalSel, scorerSel, search]: [HTMLElement, HTMLElement, HTMLElement],
  count: HTMLElement,
): HTMLElement {
  return h(
    "div",
    { class: "filters" },
    evalSel,
    sel("verdict", "verdict", VERDICTS),
    sel("state", "judgment", STATES),
    scorerSel,
    search,
    sel("sort", "sort", SORTS),
    sel("order", "order", ORDERS),
    count,
  );
}

/** A select bound to the URL parameter `name`; a choice goes to `update`. */
function selectFilter(
  p: URLSearchParams,
  name: string,
  label: string,
  options: [string, string][],
  update: (name: string, value: string) => void,
): HTMLElement {
  return h(
    "label",
    {},
    `${label} `,
    h(
      "select",
      { name, onchange: (e: Event) => update(name, inputValue(e)) },
      options.map(([v, t]) => h("option", { value: v, selected: (p.get(name) ?? "") === v }, t)),
    ),
  );
}

/**
 * The scorer select. The scorers of the run: those of the header's sample first, every one once
 * the charts (which read the whole run) have come; the one in the URL is listed even before.
 */
function scorerFilter(p: URLSearchParams, sel: Select) {
  const el = h("span");
  const labels = new Set<string>(p.get("label") ? [p.get("label")!] : []);
  const list = (more: readonly string[]) => {
    const before = labels.size;
    for (const l of more) labels.add(l);
    if (labels.size === before && el.firstChild) return;
    el.replaceChildren(
      sel("label", "scorer", [
        ["", "any"],
        ...[...labels].sort().map((l): [string, string] => [l, l]),
      ]),
    );
  };
  return { el, list };
}

/** The search box: what is typed goes to `update` as `q` once typing pauses. */
function searchBox(p: URLSearchParams, update: (name: string, value: string) => void) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return h("input", {
    type: "search",
    name: "q",
    placeholder: "search ids, inputs, outputs, reasons, errors (/)",
    value: p.get("q") ?? "",
    size: 46,
    oninput: (e: Event) => {
      clearTimeout(timer);
      const v = inputValue(e);
      timer = setTimeout(() => update("q", v), 120);
    },
  });
}

/** The run's header: its status and figures, the table of its evals, and notes on what it lacks. */
function runSummary(detail: RunDetail) {
  const run = detail.run;
  return [
    h(
      "p",
      { class: "meta" },
      badge(run.status),
      " ",
      run.runId,
      " \u00b7 ",
      when(run.startedAt),
      run.branch ? ` \u00b7 ${run.branch}` : "",
      run.commit ? ` @ ${run.commit.slice(0, 7)}` : "",
      " \u00b7 pass rate ",
      pct(run.passRate),
      interval(run.passRateInterval, pct),
      ` ${sizeText(run.attempts - run.skipped - run.interrupted, run.passRateCases)}`,
      " \u00b7 mean score ",
      meanText(
        run.meanScore,
        detail.evals.reduce((sum, e) => sum + e.partialCases, 0),
      ),
    ),
    h(
      "table",
      { class: "evals" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          EVAL_COLUMNS.map((t) => h("th", {}, t)),
        ),
      ),
      h("tbody", {}, detail.evals.map(evalLine)),
    ),
    partialExport(run),
    unfinished(run, detail.finish),
    outsideCases(detail.manifest),
  ];
}

/**
 * A link's eval filter naming no eval of this run (a filtered link reused on another run): its
 * empty table says why, instead of looking like a run without attempts.
 */
function unknownEval(detail: RunDetail, evalId: string | null): HTMLElement | null {
  if (!evalId || detail.evals.some((e) => e.evalId === evalId)) return null;
  return notice(
    `This run has no eval ${JSON.stringify(evalId)} (its evals: ${detail.evals.map((e) => e.evalId).join(", ")}), so no attempt matches the eval filter. Choose another in the eval list.`,
  );
}

/**
 * A run that stopped before it finished: what it holds, and the command `show` gives to resume
 * it. In a static export, a run still running when exported: the page is a snapshot (the live
 * viewer fills a running run in as it goes).
 */
function unfinished(run: RunRow, finish: RunFinish | undefined): HTMLElement | null {
  if (run.status === "running" && STATIC)
    return notice(
      `This run was still running when it was exported: this page holds the ${plural(run.attempts, "attempt")} stored by then, not the whole run.`,
    );
  if (run.status !== "crashed" && run.status !== "interrupted") return null;
  const stored = `This run stopped before it finished (${run.status}): ${plural(run.attempts, "attempt")} ${run.attempts === 1 ? "is" : "are"} stored. `;
  if (finish?.advice) return notice(`${stored}But ${finish.advice.replaceAll("`", "")}.`);
  return notice(
    stored,
    h("code", {}, finish?.command ?? `niceeval run --resume ${run.runId.slice(0, 8)}`),
    " runs the rest.",
  );
}

/**
 * What failed the run besides its attempts: files that did not load, evals left out of files that
 * loaded, errors outside every case.
 */
function outsideCases(run: RunDetail["manifest"]): HTMLElement | null {
  const load = run.loadErrors ?? [];
  const { failed, leftOut, files, evals } = loadTroubles(load);
  const outside = run.runErrors ?? [];
  if (load.length === 0 && outside.length === 0) return null;
  const item = (text: string) => h("li", {}, text);
  return notice(
    failed.length > 0
      ? h(
          "div",
          {},
          `${plural(files, "file")} failed to load (the run fails):`,
          h(
            "ul",
            {},
            failed.map((e) => item(`${e.file}: ${e.message}`)),
          ),
        )
      : "",
    leftOut.length > 0
      ? h(
          "div",
          {},
          `${plural(evals, "eval")} left out (the run fails):`,
          h(
            "ul",
            {},
            leftOut.map((e) => item(`${e.file}: ${e.message}`)),
          ),
        )
      : "",
    outside.length > 0
      ? h(
          "div",
          {},
          `${plural(outside.length, "error")} in user code belonged to no case (the run fails):`,
          h("ul", {}, outside.map(item)),
        )
      : "",
  );
}

/** A static export's baseline run holds only the changed cases: say so, not that it lacks the rest. */
function partialExport(run: RunRow): HTMLElement | null {
  const held = changedOnly(run.runId);
  if (!held) return null;
  return notice(
    `Only the cases that changed against ${held.head} were exported for this baseline run: the table lists ${held.exported} of its ${plural(run.attempts, "attempt")}; the figures above count them all. See the `,
    h("a", { href: `#/compare?base=${enc(run.runId)}&head=${enc(held.headId)}` }, "comparison"),
    ".",
  );
}

function evalLine(e: EvalView): HTMLElement {
  const t = e.summary?.trials;
  return h(
    "tr",
    {},
    h("td", {}, e.evalId),
    [e.attempts, e.passed, e.failed, e.errored, e.skipped].map((v) =>
      h("td", { class: "num" }, String(v)),
    ),
    h(
      "td",
      { class: "num" },
      pct(e.passRate),
      h(
        "span",
        { class: "muted" },
        `${interval(e.passRateInterval, pct)} ${sizeText(e.passRateN, e.passRateCases)}`,
      ),
    ),
    h(
      "td",
      { class: "num" },
      meanText(e.meanScore, e.partialCases),
      h(
        "span",
        { class: "muted" },
        `${interval(e.meanScoreInterval, num)} ${sizeText(e.scoredCases, e.summary?.trials?.scoredCases)}${e.partialCases ? `, ${e.partialCases} partial` : ""}`,
      ),
    ),
    h(
      "td",
      { class: "small" },
      t
        ? t.byK
            .map((k) => `pass@${k.k} ${pct(k.passAtK.value)} pass^${k.k} ${pct(k.passHatK.value)}`)
            .join(" \u00b7 ")
        : "",
    ),
    h(
      "td",
      { class: "small" },
      t
        ? String(t.flaky.count) +
            (t.flaky.cases.length
              ? `: ${t.flaky.cases
                  .slice(0, 5)
                  .map((c) => c.caseId)
                  .join(", ")}`
              : "")
        : "",
    ),
  );
}
