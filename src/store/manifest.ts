import { NiceevalError } from "../errors.js";
import { redactUrl } from "./postgres/connection.js";
import type { RunManifest } from "./types.js";

/** Passwords in command-line arguments (`--store postgres://u:pw@…`) never reach a store. */
export function withoutCredentials(manifest: RunManifest): RunManifest {
  const command = manifest.command.map((arg) =>
    /:\/\/[^/@]*:[^@/]*@|[?&]password=/i.test(arg) ? redactUrl(arg) : arg,
  );
  return command.some((arg, i) => arg !== manifest.command[i])
    ? { ...manifest, command }
    : manifest;
}

/**
 * Refuse a writer joining a run with other eval files or configurations (`RUN_MISMATCH`): its
 * attempts would not be comparable with the rest of the run.
 */
export function checkJoin(stored: RunManifest, joining: RunManifest, location: string): void {
  const differences: string[] = [];
  const files = new Map(stored.files.map((f) => [f.path, f.hash]));
  for (const f of joining.files)
    if (files.has(f.path) && files.get(f.path) !== f.hash) differences.push(`file ${f.path}`);
  const configs = new Map(stored.evals.map((e) => [e.evalId, e.configHash]));
  for (const e of joining.evals)
    if (configs.has(e.evalId) && configs.get(e.evalId) !== e.configHash)
      differences.push(`eval ${e.evalId}'s configuration`);
  if (differences.length)
    throw new NiceevalError(
      "RUN_MISMATCH",
      `cannot join run ${joining.runId} in ${location}: this writer's eval files or configurations differ from the run's (${differences.slice(0, 5).join(", ")}). Run every writer on the same eval files and configuration, or start a new run.`,
    );
}

/**
 * The manifest of a run being continued (`beginRun(…, { resume: true })`): the run's own, with
 * the new writer, one more resume mark and any changes it was forced through.
 */
export function resumedManifest(stored: RunManifest, resuming: RunManifest): RunManifest {
  const next: RunManifest = {
    ...stored,
    resumes: [...(stored.resumes ?? []), ...(resuming.resumes ?? [])],
  };
  if (resuming.writer) next.writer = resuming.writer;
  const changes = [...(stored.resumedWithChanges ?? []), ...(resuming.resumedWithChanges ?? [])];
  if (changes.length) next.resumedWithChanges = [...new Set(changes)];
  return next;
}
