import { NiceevalError } from "../errors.js";
import { modelList } from "../judge/judge-models.js";
import type { RunManifest } from "../store/types.js";

/**
 * What changed between the run as it started and the eval files as they are now: each file
 * whose contents differ, each eval whose configuration differs, each eval added or gone. A run
 * that recorded no eval (stopped while its files loaded) ran nothing that new attempts could
 * differ from: nothing changed, and its continuation records the evals loaded now
 * (`resumedManifest`).
 */
export function changesSince(stored: RunManifest, current: RunManifest): string[] {
  const changes: string[] = [];
  if (stored.evals.length === 0) return changes;
  const files = new Map(stored.files.map((f) => [f.path, f.hash]));
  const fileOf = new Map(current.evals.map((e) => [e.evalId, e.file]));
  for (const f of current.files) {
    const was = files.get(f.path);
    if (was !== undefined && was !== f.hash) {
      const evals = current.evals.filter((e) => e.file === f.path).map((e) => e.evalId);
      changes.push(`file ${f.path} (eval ${evals.join(", ") || "none"})`);
    }
  }
  const before = new Map(stored.evals.map((e) => [e.evalId, e]));
  for (const e of current.evals) {
    const was = before.get(e.evalId);
    if (was === undefined) changes.push(`eval ${e.evalId} is new (${fileOf.get(e.evalId) ?? "?"})`);
    else if (was.configHash !== e.configHash) {
      // The judge models are part of the configuration: a changed one is named.
      const [then, now] = [modelList(was.judgeModels), modelList(e.judgeModels)];
      changes.push(
        `eval ${e.evalId}'s configuration${then !== now ? ` (judge models ${then} → ${now})` : ""}`,
      );
    }
  }
  const now = new Set(current.evals.map((e) => e.evalId));
  for (const e of stored.evals)
    if (!now.has(e.evalId)) changes.push(`eval ${e.evalId} is no longer found`);
  return changes;
}

/** The first `most` changes, and how many more there are. */
export function listChanges(changes: readonly string[], most: number): string {
  const more = changes.length - most;
  return changes.slice(0, most).join("; ") + (more > 0 ? `; and ${more} more` : "");
}

/** Refuse to continue a run whose evals changed, naming them; `--force` goes on. */
export function refuseChanges(runId: string, flag: string, changes: readonly string[]): never {
  const shown = listChanges(changes, 8);
  throw new NiceevalError(
    "RUN_CHANGED",
    `cannot ${flag} run ${runId.slice(0, 8)}: its evals changed since it started (${shown}). Its stored attempts would not be comparable with new ones. Restore the files, start a new run, or pass --force to continue anyway (the run is then marked resumedWithChanges).`,
  );
}
