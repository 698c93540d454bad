import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { compareRuns } from "../compare/compare-runs.js";
import type { Comparison } from "../compare/types.js";
import { safeStringify } from "../report/json-safe.js";
import { resolveRunRef } from "../store/resolve.js";
import type { Store, StoredRun } from "../store/types.js";
import { attemptRow, runDetail, runRow } from "./api.js";
import { scriptSafeJson, staticPageParts } from "./html.js";

/** Options of {@link exportHtml}. */
export interface ExportOptions {
  store: Store;
  /** The run to export (id, prefix, name, latest, latest~N). */
  run: string;
  /** A run to compare with: its comparison and the changed cases' base attempts are embedded. */
  baseline?: string;
  file: string;
}

/** What an export wrote. */
export interface ExportResult {
  runId: string;
  baselineId?: string;
  attempts: number;
  bytes: number;
}

/**
 * Write one self-contained HTML file of a run: the viewer's app and stylesheet inlined, the
 * data embedded as JSON, a Content-Security-Policy that allows no request. Opens from file://.
 * Attempts are streamed from the store to the file, never all held as objects.
 * @example
 * await exportHtml({ store, run: "latest", baseline: "latest~1", file: "report.html" });
 */
export async function exportHtml(options: ExportOptions): Promise<ExportResult> {
  const { store } = options;
  const run = await resolveRunRef(store, options.run);
  const base = options.baseline ? await resolveRunRef(store, options.baseline) : undefined;
  const comparison = base ? await compareRuns(store, base.runId, run.runId) : undefined;
  const out = createWriteStream(options.file);
  let bytes = 0;
  const write = async (text: string) => {
    bytes += Buffer.byteLength(text);
    if (!out.write(text)) await once(out, "drain");
  };
  const parts = staticPageParts(`niceeval · ${run.name ?? run.runId.slice(0, 8)}`);
  await write(parts.head);
  const json = (value: unknown) => write(scriptSafeJson(safeStringify(value)));
  const runs = base ? [run, base] : [run];
  await write('{"runs":');
  await json(runs.map(runRow));
  await write(',"details":{');
  for (const [i, r] of runs.entries()) {
    await write(`${i ? "," : ""}${JSON.stringify(r.runId)}:`);
    await json(await runDetail(store, r));
  }
  await write('},"comparison":');
  await json(comparison ?? null);
  await write(',"attempts":{');
  const attempts = await writeAttempts(store, run, () => true, write, json);
  if (base && comparison) {
    const changed = changedKeys(comparison);
    await write(",");
    await writeAttempts(
      store,
      base,
      (evalId, caseId) => changed.has(`${evalId}\n${caseId}`),
      write,
      json,
    );
  }
  await write("}}");
  await write(parts.tail);
  out.end();
  await once(out, "finish");
  return {
    runId: run.runId,
    ...(base ? { baselineId: base.runId } : {}),
    attempts,
    bytes,
  };
}

/** `"<runId>":{"rows":[…],"records":[…]}`, rows and records in the same order. */
async function writeAttempts(
  store: Store,
  run: StoredRun,
  keep: (evalId: string, caseId: string) => boolean,
  write: (text: string) => Promise<void>,
  json: (value: unknown) => Promise<void>,
): Promise<number> {
  // Rows are small: held for the second pass; records go straight to the file.
  const rows: string[] = [];
  await write(`${JSON.stringify(run.runId)}:{"records":[`);
  for await (const record of store.streamAttempts(run.runId)) {
    if (!keep(record.evalId, record.caseId)) continue;
    if (rows.length) await write(",");
    await json(record);
    rows.push(scriptSafeJson(safeStringify(attemptRow(record))));
  }
  await write('],"rows":[');
  for (const [i, row] of rows.entries()) await write(i ? `,${row}` : row);
  await write("]}");
  return rows.length;
}

function changedKeys(comparison: Comparison): Set<string> {
  const keys = new Set<string>();
  for (const e of comparison.evals)
    for (const change of e.changes) keys.add(`${e.evalId}\n${change.caseId}`);
  return keys;
}
