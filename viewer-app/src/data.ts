import type { AttemptRecord } from "../../src/eval/record.js";
import type { AttemptRow, RowPage } from "../../src/viewer/api.js";
import type { RunCharts } from "../../src/viewer/charts.js";
import { withEvalFigures } from "../../src/viewer/eval-row.js";
import type { StaticData } from "../../src/viewer/export.js";
import { decodeSegment } from "../../src/viewer/segment.js";

/** Rows fetched per page of the cases table. */
export const PAGE = 200;

type Params = Record<string, string | number | null | undefined>;

const dataElement = document.getElementById("niceeval-data");
/** The static export's embedded data; null in the live app. */
export const STATIC: StaticData | null = dataElement
  ? (JSON.parse(dataElement.textContent ?? "null") as StaticData)
  : null;

/** One API call: over HTTP in the live app, from the embedded data in the static export. */
export async function get<T>(path: string, params: Params = {}): Promise<T> {
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== "") clean[k] = String(v);
  if (STATIC)
    return staticApi(
      STATIC,
      path
        .split("/")
        .filter(Boolean)
        .map((part) => decodeSegment(decodeURIComponent(part))),
      clean,
    ) as T;
  const qs = new URLSearchParams(clean).toString();
  const res = await fetch(`/api${path}${qs ? `?${qs}` : ""}`, { credentials: "same-origin" });
  const body = (await res.json()) as T & { error?: string };
  if (!res.ok)
    throw Object.assign(new Error(body.error ?? `HTTP ${res.status}`), { status: res.status });
  return body;
}

/**
 * In a static export with a baseline, the baseline run holds only the cases that changed: how
 * many of its attempts it holds, and the head it was compared with. Null for a run held whole.
 */
export function changedOnly(
  runId: string,
): { exported: number; head: string; headId: string } | null {
  if (!STATIC?.changedOnly.includes(runId)) return null;
  const head = STATIC.comparison?.head;
  if (!head) return null;
  return {
    exported: STATIC.attempts[runId]?.rows.length ?? 0,
    head: head.name ?? head.runId.slice(0, 8),
    headId: head.runId,
  };
}

// ---------------------------------------------------------------- the static export's API

/** The id of the run `ref` names in the export (id, name, latest, id prefix); undefined for none. */
function exportedRun(data: StaticData, ref: string): string | undefined {
  const runs = data.runs;
  const found =
    runs.find((r) => r.runId === ref) ??
    runs.find((r) => r.name === ref) ??
    (ref === "latest" ? runs[0] : undefined) ??
    runs.find((r) => ref.length >= 6 && r.runId.startsWith(ref));
  return found && data.details[found.runId] ? found.runId : undefined;
}

function staticRun(data: StaticData, ref: string): string {
  const runId = exportedRun(data, ref);
  if (runId === undefined) throw new Error(`this export does not include run ${ref}`);
  return runId;
}

/** A run a comparison names. */
type ComparedRun = NonNullable<StaticData["comparison"]>["base"];

/**
 * In a static export with a comparison, its two runs when the page's `base` and `head` ask for
 * another (a static export holds one comparison; a side not given asks for nothing); null when
 * they name its runs (by id, id prefix or name, as the export knows them), and in the live app.
 */
export function otherThanHeld(
  base: string | null,
  head: string | null,
): { base: ComparedRun; head: ComparedRun } | null {
  const held = STATIC?.comparison;
  if (!STATIC || !held) return null;
  const names = (ref: string | null, run: ComparedRun) =>
    ref === null || ref === "" || exportedRun(STATIC!, ref) === run.runId;
  return names(base, held.base) && names(head, held.head) ? null : held;
}

function staticApi(data: StaticData, parts: string[], p: Record<string, string>): unknown {
  const [first, id, sub, evalId, caseId] = parts;
  if (first === "runs" && id === undefined) {
    // The app sends no tag without `key=` (the server refuses one); any such filters nothing.
    const tags = (p.tag ? p.tag.split("&") : []).filter((t) => t.indexOf("=") > 0);
    const runs = data.runs.filter(
      (r) =>
        (!p.evalId || r.evals.includes(p.evalId)) &&
        (!p.branch || r.branch === p.branch) &&
        tags.every((t) => {
          const i = t.indexOf("=");
          return r.tags[t.slice(0, i)] === t.slice(i + 1);
        }),
    );
    // Filtered on an eval, its own figures, as the server gives them.
    const evalId = p.evalId;
    if (!evalId) return { runs };
    return {
      runs: runs.map((r) => withEvalFigures(r, data.details[r.runId]?.manifest.summaries, evalId)),
    };
  }
  if (first === "runs" && id !== undefined) {
    const runId = staticRun(data, id);
    const attempts = data.attempts[runId] ?? { rows: [], records: [] };
    if (sub === undefined) return data.details[runId];
    if (sub === "charts")
      return data.charts[runId] ?? ({ evals: [], scorers: [] } satisfies RunCharts);
    if (evalId === undefined) return staticPage(attempts, p);
    const trials = attempts.records
      .filter((r) => r.evalId === evalId && r.caseId === caseId)
      .sort((a, b) => (a.trial ?? 0) - (b.trial ?? 0));
    if (trials.length === 0 && data.changedOnly.includes(runId)) {
      const run = data.details[runId]!.run;
      throw new Error(
        `case ${JSON.stringify(caseId)} of eval ${JSON.stringify(evalId)} was not exported: this export holds only the cases that changed for its baseline run ${run.name ?? runId.slice(0, 8)}`,
      );
    }
    return { runId, evalId, caseId, trials };
  }
  if (first === "compare") {
    if (!data.comparison)
      throw new Error("this export has no comparison: export it with --baseline");
    return data.comparison;
  }
  throw new Error(`no data for /${parts.join("/")}`);
}

type Embedded = { rows: AttemptRow[]; records: AttemptRecord[] };
const VERDICT_ORDER = ["passed", "failed", "skipped", "errored"];
const SORT_KEYS: Record<string, (r: AttemptRow) => number | null> = {
  score: (r) =>
    r.score.state !== "unavailable" && r.score.max > 0 ? r.score.earned / r.score.max : null,
  elapsed: (r) => r.elapsedMs,
  verdict: (r) => VERDICT_ORDER.indexOf(r.verdict),
};

// The same filters and order as the store's query, over the embedded rows.
function staticPage(data: Embedded, p: Record<string, string>): RowPage {
  const verdicts = p.verdict ? p.verdict.split(",") : null;
  const q = p.q ? p.q.toLowerCase() : null;
  const idx: number[] = [];
  data.rows.forEach((row, i) => {
    if (p.evalId && row.evalId !== p.evalId) return;
    if (verdicts && !verdicts.includes(row.verdict)) return;
    if (!judged(row, p.label, p.state)) return;
    if (q && !searchText(data, i).includes(q)) return;
    idx.push(i);
  });
  const key = p.sort ? SORT_KEYS[p.sort] : undefined;
  if (key) {
    const dir = p.order === "desc" ? -1 : 1;
    idx.sort((a, b) => {
      const x = key(data.rows[a]!);
      const y = key(data.rows[b]!);
      if (x === y) return a - b;
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * dir;
    });
  } else if (p.order === "desc") idx.reverse();
  const offset = Number(p.offset ?? 0);
  const limit = Number(p.limit ?? PAGE);
  return {
    total: idx.length,
    offset,
    items: idx.slice(offset, offset + limit).map((i) => data.rows[i]!),
  };
}

/** A judgment filter, as the store reads it: with a scorer and a state, that scorer's judgment in it. */
function judged(row: AttemptRow, label: string | undefined, state: string | undefined): boolean {
  if (!label && !state) return true;
  return row.labels.some((l, i) => (!label || l === label) && (!state || row.states[i] === state));
}

const searchCache = new WeakMap<Embedded, string[]>();
function searchText(data: Embedded, i: number): string {
  let texts = searchCache.get(data);
  if (!texts) {
    texts = [];
    searchCache.set(data, texts);
  }
  if (texts[i] === undefined) {
    const r = data.records[i]!;
    texts[i] = [
      r.caseId,
      r.error?.message ?? "",
      JSON.stringify(r.input),
      JSON.stringify(r.output),
      ...r.judgments.map((j) => j.reason),
    ]
      .join("\n")
      .toLowerCase();
  }
  return texts[i];
}
