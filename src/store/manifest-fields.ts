import { NiceevalError } from "../errors.js";
import { givenText, givenTyped } from "../eval/timeout.js";
import type { RunManifest } from "./types.js";

/**
 * The fields of a manifest that `beginRun` and every later reader of the run use as they are
 * (the command line, tags, file hashes, evals): one missing or of another type, in a manifest
 * built by hand or read from an edited export, is a USAGE error naming the field and what it
 * takes, before anything is written, rather than a TypeError from the store's code or a run
 * that `show`, `compare` and `--resume` cannot read later. Optional fields are the manifest
 * module's and their own readers' concern.
 */
export function checkManifestFields(given: RunManifest): void {
  const problem = manifestFieldProblem(given);
  if (problem !== undefined)
    throw new NiceevalError(
      "USAGE",
      `beginRun: manifest.${problem}; see the RunManifest type for what each field holds`,
    );
}

/**
 * The first field of a manifest that is not what a manifest holds, as "field must …, got …"
 * (read with "manifest." before it); undefined when there is none. An import checks an export's
 * manifest line with it before it stores anything.
 */
export function manifestFieldProblem(manifest: unknown): string | undefined {
  const m = manifest as Record<string, unknown>;
  for (const key of ["niceevalVersion", "nodeVersion"] as const)
    if (typeof m[key] !== "string") return `${key} must be a string, got ${givenText(m[key])}`;
  if (!isStringRecord(m.tags))
    return `tags must be an object of string values (the run's --tag key=value pairs, {} for none), got ${shown(m.tags)}`;
  if (!Array.isArray(m.command) || !m.command.every((arg) => typeof arg === "string"))
    return `command must be an array of strings (the command line, as argv after node), got ${shown(m.command)}`;
  for (const key of ["trials", "concurrency"] as const)
    if (!isCount(m[key])) return `${key} must be a whole number from 1, got ${givenTyped(m[key])}`;
  if (!Array.isArray(m.files))
    return `files must be an array of { path, hash } (each eval file and a hash of its contents), got ${shown(m.files)}`;
  for (const [i, file] of m.files.entries()) {
    const f = file as { path?: unknown; hash?: unknown } | null;
    if (
      typeof f !== "object" ||
      f === null ||
      typeof f.path !== "string" ||
      typeof f.hash !== "string"
    )
      return `files[${i}] must be { path, hash } with both strings, got ${shown(file)}`;
  }
  if (!Array.isArray(m.evals))
    return `evals must be an array of the run's evals (an EvalManifest each), got ${shown(m.evals)}`;
  const seen = new Set<string>();
  for (const [i, entry] of m.evals.entries()) {
    const problem = evalProblem(entry);
    if (problem !== undefined) return `evals[${i}].${problem}`;
    const id = (entry as { evalId: string }).evalId;
    if (seen.has(id))
      return `evals[${i}].evalId ${JSON.stringify(id)} names an eval listed before it; each eval of a run needs an id of its own`;
    seen.add(id);
  }
  return undefined;
}

/** What is wrong with one eval of a manifest, as "field must …, got …". */
function evalProblem(entry: unknown): string | undefined {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry))
    return `(the eval) must be an object (an EvalManifest), got ${shown(entry)}`;
  const e = entry as Record<string, unknown>;
  if (typeof e.evalId !== "string" || e.evalId === "")
    return `evalId must be a non-empty string, got ${givenText(e.evalId)}`;
  if (e.style !== "suite" && e.style !== "score")
    return `style must be "suite" or "score", got ${givenText(e.style)}`;
  if (typeof e.configHash !== "string")
    return `configHash must be a string, got ${givenText(e.configHash)}`;
  if (!Array.isArray(e.judgeModels) || !e.judgeModels.every((model) => typeof model === "string"))
    return `judgeModels must be an array of strings ([] when no judge), got ${shown(e.judgeModels)}`;
  if (!isCount(e.trials))
    return `trials must be a whole number from 1, got ${givenTyped(e.trials)}`;
  return undefined;
}

const isCount = (value: unknown): boolean => Number.isInteger(value) && (value as number) >= 1;

function isStringRecord(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  return Object.values(value).every((v) => typeof v === "string");
}

/** A value as an error shows it: JSON where it has some, cut to a line, else its type. */
function shown(value: unknown): string {
  if (value === undefined) return "undefined";
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {}
  if (json === undefined) return givenText(value);
  return json.length > 80 ? `${json.slice(0, 80)}…` : json;
}
