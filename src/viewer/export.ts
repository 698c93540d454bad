import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { compareRuns } from "../compare/compare-runs.js";
import type { Comparison } from "../compare/types.js";
import type { AttemptRecord } from "../eval/record.js";
import { safeStringify } from "../json-safe.js";
import { resolveRunRef } from "../store/resolve.js";
import type { RunStatus, Store, StoredRun } from "../store/types.js";
import { effectiveStatus } from "../store/writer.js";
import type { AttemptRow, RunDetail, RunRow } from "./api.js";
import { attemptRow, runDetail, runFinish, runRow } from "./api.js";
import { loadApp } from "./app-files.js";
import { ChartFold, type RunCharts } from "./charts.js";
import { scriptSafeJson, staticPageParts } from "./html.js";

/** Options of {@link exportHtml}. */
export interface ExportOptions {
  store: Store;
  /** The run to export (id, prefix, name, latest, latest~N). */
  run: string;
  /**
   * A run to compare with: its comparison and the base attempts of every changed case (also those
   * the comparison does not list) are embedded.
   */
  baseline?: string;
  file: string;
  /** The `--store` the page's suggested commands carry, as the user named the store; default none. */
  storeFlag?: string;
}

/** The data a static export embeds: what the live API would answer, for one run (and its baseline). */
export interface StaticData {
  runs: RunRow[];
  details: Record<string, RunDetail>;
  comparison: Comparison | null;
  /** Per run: the table's rows and the full records, in the same order. */
  attempts: Record<string, { rows: AttemptRow[]; records: AttemptRecord[] }>;
  charts: Record<string, RunCharts>;
  /** Runs of which only the attempts of the cases that changed are embedded (the baseline), by id. */
  changedOnly: string[];
}

/** What an export wrote. */
export interface ExportResult {
  runId: string;
  baselineId?: string;
  attempts: number;
  bytes: number;
  /** The run's status when exported: a `running` one is a snapshot of the attempts stored so far. */
  status: RunStatus;
}

/**
 * Write one self-contained HTML file of a run: the viewer's built module and stylesheet inlined, the
 * data embedded as JSON, a Content-Security-Policy that allows no request. Opens from file://.
 * Attempts are streamed from the store to the file, never all held as objects.
 * @example
 * await exportHtml({ store, run: "latest", baseline: "latest~1", file: "report.html" });
 */
export async function exportHtml(options: ExportOptions): Promise<ExportResult> {
  const { store } = options;
  const run = await resolveRunRef(store, options.run);
  const base = options.baseline ? await resolveRunRef(store, options.baseline) : undefined;
  // Every changed case, not only the ones the comparison lists: their base attempts are embedded.
  const changed = new Set<string>();
  const comparison = base
    ? await compareRuns(store, base.runId, run.runId, {
        onChange: (evalId, caseId) => changed.add(`${evalId}\n${caseId}`),
      })
    : undefined;
  const app = loadApp();
  const out = createWriteStream(options.file);
  let bytes = 0;
  const write = async (text: string) => {
    bytes += Buffer.byteLength(text);
    if (!out.write(text)) await once(out, "drain");
  };
  const parts = staticPageParts(`niceeval · ${run.name ?? run.runId.slice(0, 8)}`, app);
  await write(parts.head);
  const json = (value: unknown) => write(scriptSafeJson(safeStringify(value)));
  const runs = base ? [run, base] : [run];
  await write('{"runs":');
  await json(runs.map(runRow));
  await write(',"details":{');
  for (const [i, r] of runs.entries()) {
    await write(`${i ? "," : ""}${key(r.runId)}:`);
    await json({ ...(await runDetail(store, r)), finish: runFinish(r, options.storeFlag) });
  }
  await write('},"comparison":');
  await json(comparison ?? null);
  await write(',"attempts":{');
  const charts = new ChartFold();
  const attempts = await writeAttempts(store, run, () => true, write, json, charts);
  if (base && comparison) {
    await write(",");
    await writeAttempts(
      store,
      base,
      (evalId, caseId) => changed.has(`${evalId}\n${caseId}`),
      write,
      json,
    );
  }
  await write(`},"charts":{${key(run.runId)}:`);
  await json(charts.result());
  await write('},"changedOnly":');
  await json(base ? [base.runId] : []);
  await write("}");
  await write(parts.tail);
  out.end();
  await once(out, "finish");
  return {
    runId: run.runId,
    ...(base ? { baselineId: base.runId } : {}),
    attempts,
    bytes,
    status: effectiveStatus(run),
  };
}

/** `"<runId>":{"rows":[…],"records":[…]}`, rows and records in the same order. */
async function writeAttempts(
  store: Store,
  run: StoredRun,
  keep: (evalId: string, caseId: string) => boolean,
  write: (text: string) => Promise<void>,
  json: (value: unknown) => Promise<void>,
  charts?: ChartFold,
): Promise<number> {
  // Rows are small: held for the second pass; records go straight to the file.
  const rows: string[] = [];
  await write(`${key(run.runId)}:{"records":[`);
  for await (const record of store.streamAttempts(run.runId)) {
    if (!keep(record.evalId, record.caseId)) continue;
    charts?.add(record);
    if (rows.length) await write(",");
    await json(record);
    rows.push(scriptSafeJson(safeStringify(attemptRow(record))));
  }
  await write('],"rows":[');
  for (const [i, row] of rows.entries()) await write(i ? `,${row}` : row);
  await write("]}");
  return rows.length;
}

/** A run id as a key of the embedded JSON: safe inside the `<script>` as every value is. */
function key(runId: string): string {
  return scriptSafeJson(JSON.stringify(runId));
}
