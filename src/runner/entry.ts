import { derivedIdHint } from "../adapter/derived-id.js";
import { NiceevalError } from "../errors.js";
import { isRunnable, type Runnable } from "../eval/runnable.js";
import { joinWords } from "../plural.js";

/** An eval to run, with the file it came from when known. */
export interface RunEntry {
  eval: Runnable;
  file?: string | undefined;
}

const FROM = "an eval from defineSuite, adapter.defineScoreEval or adapter.defineEval";

/**
 * Refuse entries that are not `{ eval, file? }` with an eval in them, before anything runs:
 * called from JavaScript, or with a cast, a bare eval (`runEvals([review])`) or a plain object
 * would otherwise fail deep in the engine ("reading 'id'") or run as an eval named undefined.
 * Two evals with one id are refused too: their records could not be told apart.
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
  checkUniqueIds(entries as readonly RunEntry[]);
}

/**
 * Refuse two entries whose evals have one id: records, summaries and a store tell evals apart by
 * id, so one would silently stand for the other (a store keeps one). The CLI leaves such an eval
 * out of its files (cli/eval-exports.ts); from code the entries are the caller's to fix.
 */
function checkUniqueIds(entries: readonly RunEntry[]): void {
  const first = new Map<string, number>();
  for (const [index, entry] of entries.entries()) {
    const id = entry.eval.id;
    const holder = first.get(id);
    if (holder === undefined) {
      first.set(id, index);
      continue;
    }
    const held = entries[holder]!;
    const others = entries.flatMap((e, i) => (i > holder && e.eval.id === id ? [i] : []));
    if (entry.eval === held.eval && others.every((i) => entries[i]!.eval === held.eval))
      throw new NiceevalError(
        "USAGE",
        `runEvals: ${places(entries, others)} ${others.length === 1 ? "is" : "are"} the same eval "${id}" as ${place(entries, holder)}; pass each eval once (to run its cases more than once, set its trials or the run's)`,
      );
    throw new NiceevalError(
      "USAGE",
      `runEvals: ${places(entries, others)} ${others.length === 1 ? "has" : "have"} the eval id "${id}" of ${place(entries, holder)}; give each eval a unique id (a run's records and a store tell evals apart by id)${derivedIdHint(
        held.eval,
        others.map((i) => entries[i]!.eval),
      )}`,
    );
  }
}

/** `entries[1] (file evals/b.eval.ts)`: where an entry is, with its file when known. */
function place(entries: readonly RunEntry[], index: number): string {
  const { file } = entries[index]!;
  return `entries[${index}]${file === undefined ? "" : ` (file ${file})`}`;
}

function places(entries: readonly RunEntry[], indexes: readonly number[]): string {
  return joinWords(indexes.map((index) => place(entries, index)));
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
