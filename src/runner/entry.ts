import { NiceevalError } from "../errors.js";
import { isRunnable, type Runnable } from "../eval/runnable.js";

/** An eval to run, with the file it came from when known. */
export interface RunEntry {
  eval: Runnable;
  file?: string;
}

const FROM = "an eval from defineSuite, adapter.defineScoreEval or adapter.defineEval";

/**
 * Refuse entries that are not `{ eval, file? }` with an eval in them, before anything runs:
 * called from JavaScript, or with a cast, a bare eval (`runEvals([review])`) or a plain object
 * would otherwise fail deep in the engine ("reading 'id'") or run as an eval named undefined.
 */
export function checkEntries(entries: unknown): asserts entries is readonly RunEntry[] {
  if (!Array.isArray(entries)) {
    throw new NiceevalError(
      "USAGE",
      `runEvals: \`entries\` must be an array of { eval } entries, got ${described(entries)}; pass [{ eval }] with ${FROM}`,
    );
  }
  entries.forEach((entry: unknown, index) => {
    const where = `runEvals: entries[${index}]`;
    if (isRunnable(entry)) {
      throw new NiceevalError(
        "USAGE",
        `${where} is the eval "${entry.id}" itself, not an entry; wrap it as { eval } (runEvals([{ eval: myEval }]))`,
      );
    }
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      throw new NiceevalError(
        "USAGE",
        `${where} is ${described(entry)}, not an entry; pass { eval } with ${FROM}`,
      );
    }
    const { eval: runnable, file } = entry as { eval?: unknown; file?: unknown };
    if (!isRunnable(runnable)) {
      throw new NiceevalError(
        "USAGE",
        `${where}.eval is ${described(runnable)}, not an eval; pass ${FROM} (a plain { id, cases, scorers } suite runs with runEval, or becomes an eval with defineSuite)`,
      );
    }
    if (file !== undefined && typeof file !== "string") {
      throw new NiceevalError(
        "USAGE",
        `${where}.file (eval "${runnable.id}") is ${described(file)}; give the path of the file the eval came from, or leave it out`,
      );
    }
  });
}

/** What a value given in place of an entry or an eval is, in a few words. */
function described(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "an array";
  if (typeof value === "function") return "a function";
  if (typeof value !== "object") return `a ${typeof value}`;
  const { id } = value as { id?: unknown };
  if (typeof id === "string") return `a plain object with id "${id}"`;
  const keys = Object.keys(value);
  return keys.length === 0 ? "an empty object" : `an object with keys ${keys.join(", ")}`;
}
