import { derivedIdHint } from "../adapter/derived-id.js";
import { controlCharacter, loneSurrogate, loneSurrogateWords } from "../eval/ids.js";
import { isRunnable, type Runnable } from "../eval/runnable.js";
import { joinWords } from "../plural.js";
import type { LoadError } from "../runner/summary.js";
import { exportsInDeclarationOrder } from "./export-order.js";

/** An eval a file exports, with the name it is exported under. */
export interface Exported {
  runnable: Runnable;
  /** `name`, `default`, or `name[i]` for an item of an exported array. */
  name: string;
}

/** The evals a module exports (named, default, or in arrays), each once, in declaration order. */
export function collectEvals(
  module: Record<string, unknown>,
  source: string | undefined,
): Exported[] {
  const found: Exported[] = [];
  const known = new Set<Runnable>();
  const take = (runnable: Runnable, name: string) => {
    if (known.has(runnable)) return;
    known.add(runnable);
    found.push({ runnable, name });
  };
  const add = (value: unknown, name: string) => {
    if (isRunnable(value)) take(value, name);
    else if (Array.isArray(value)) {
      for (const [index, item] of value.entries())
        if (isRunnable(item)) take(item, `${name}[${index}]`);
    }
  };
  for (const name of exportsInDeclarationOrder(Object.keys(module), source)) {
    const value = module[name];
    add(value, name);
    // A file compiled to CommonJS arrives as { default: module.exports }: its
    // `export default` is then module.default.default.
    if (name === "default" && !isRunnable(value) && typeof value === "object" && value !== null)
      add((value as Record<string, unknown>).default, "default");
  }
  return found;
}

/**
 * The eval ids of a run's files, in load order: an eval whose id an earlier one has (of this file
 * or another), or whose id cannot be used, is left out, and the others of its file still run.
 */
export class EvalIds {
  /** Each id taken, with the export (and its file) that has it. */
  private readonly holders = new Map<string, Exported & { file: string }>();

  /** The evals of `file` that run, and why the others were left out: one message per id. */
  admit(file: string, evals: readonly Exported[]): { kept: Runnable[]; errors: LoadError[] } {
    const kept: Runnable[] = [];
    const errors: LoadError[] = [];
    const taken = new Map<string, Exported[]>();
    for (const exported of evals) {
      const { runnable, name } = exported;
      if (this.holders.has(runnable.id)) {
        taken.set(runnable.id, [...(taken.get(runnable.id) ?? []), exported]);
        continue;
      }
      const unusable = unusableId(runnable.id);
      if (unusable) {
        errors.push({
          file,
          message: `${exportNames([name])} was left out: its eval id ${JSON.stringify(runnable.id)} holds ${unusable}`,
          leftOut: [name],
        });
        continue;
      }
      this.holders.set(runnable.id, { ...exported, file });
      kept.push(runnable);
    }
    for (const [id, left] of taken) {
      const holder = this.holders.get(id)!;
      const names = left.map((exported) => exported.name);
      const whose = `export "${holder.name}" of ${holder.file === file ? "this file" : holder.file}`;
      errors.push({
        file,
        message: `${exportNames(names)} ${names.length === 1 ? "was left out: it has" : "were left out: they have"} the eval id "${id}" of ${whose}; give each eval a unique id${derivedIdHint(
          holder.runnable,
          left.map((exported) => exported.runnable),
        )}`,
        leftOut: names,
      });
    }
    return { kept, errors };
  }
}

/** What an eval id holds that it may not, after "holds"; undefined when it can be used. */
function unusableId(id: string): string | undefined {
  const control = controlCharacter(id);
  if (control)
    return `a control character (${control}); eval ids are shown and stored on one line, so use printable text`;
  const lone = loneSurrogate(id);
  return lone === undefined ? undefined : loneSurrogateWords(lone);
}

/** `export "a"`, `exports "a" and "b"`. */
const exportNames = (names: readonly string[]): string =>
  `${names.length === 1 ? "export" : "exports"} ${joinWords(names.map((name) => `"${name}"`))}`;

/**
 * Why a file's exports hold no eval, with what they hold instead where it tells what to do. Reads
 * data properties only (a getter of the user's never runs here) and never throws.
 */
export function noEvalMessage(module: Record<string, unknown>): string {
  const generic =
    "exports no eval; export the result of defineSuite(...) or adapter.defineScoreEval(...)";
  try {
    return whatIsExported(dataEntries(module)) ?? generic;
  } catch {
    // A Proxy whose traps throw, or the like: the plain advice.
    return generic;
  }
}

function whatIsExported(exports: readonly [string, unknown][]): string | undefined {
  const said = misexportErrors(misexportCandidates(Object.fromEntries(exports), ""), new Set());
  if (said[0] !== undefined) return said[0].message;
  for (const [name, value] of exports) {
    if (typeof value === "function")
      return `exports no eval: export "${name}" is a function; export the eval it makes (export const suite = ${name === "default" ? "make" : name}(...)), the result of defineSuite(...) or adapter.defineScoreEval(...)`;
  }
  return undefined;
}

/**
 * An export that looks like an eval exported the wrong way: a suite's definition not given to
 * defineSuite (`data`), or an object holding evals (`held`). Whether it is one is known once every
 * file of the run has loaded ({@link misexportErrors}): the definition of a suite the run has
 * (`export const definition = {…}; export const qa = defineSuite(definition)`), or an object
 * of evals exported by name somewhere (a namespace re-exported, a list of a file's own), is none.
 */
export interface Misexport {
  file: string;
  name: string;
  data?: { id: string; target: boolean };
  held?: { key: string; id: string }[];
}

/** The exports of a file of evals that may be evals exported the wrong way ({@link Misexport}). */
export function misexportCandidates(module: Record<string, unknown>, file: string): Misexport[] {
  try {
    return dataEntries(module).flatMap(([name, value]): Misexport[] => {
      if (looksLikeSuiteData(value)) {
        const fields = Object.fromEntries(dataEntries(value));
        return [
          {
            file,
            name,
            data: { id: String(fields.id), target: typeof fields.target === "function" },
          },
        ];
      }
      if (typeof value !== "object" || value === null || Array.isArray(value) || isRunnable(value))
        return [];
      const held = dataEntries(value).flatMap(([key, v]) =>
        isRunnable(v) ? [{ key, id: v.id }] : [],
      );
      return held.length > 0 ? [{ file, name, held }] : [];
    });
  } catch {
    // A Proxy whose traps throw, or the like: nothing more to say than the evals found.
    return [];
  }
}

/**
 * The load errors of the candidates that stand for evals the run does not have (`runIds`: the
 * ids of every eval its files export), each naming its export and what to write instead, so a
 * run never passes without an eval its author meant to run and nothing saying so.
 */
export function misexportErrors(
  candidates: readonly Misexport[],
  runIds: ReadonlySet<string>,
): LoadError[] {
  return candidates.flatMap(({ file, name, data, held }): LoadError[] => {
    if (data !== undefined) {
      if (runIds.has(data.id)) return [];
      const message = data.target
        ? `export "${name}" is a plain object, not an eval; wrap it: export const ${name === "default" ? "suite" : name} = defineSuite({ ... })`
        : `export "${name}" is a suite without a target; export defineSuite({ ...${name}, target }) instead`;
      return [{ file, message, leftOut: [name] }];
    }
    const keys = (held ?? []).filter(({ id }) => !runIds.has(id)).map(({ key }) => key);
    if (keys.length === 0) return [];
    return [{ file, message: holdingMessage(name, keys), leftOut: [name] }];
  });
}

/** What to do with export `name`, an object holding the evals under `keys`. */
function holdingMessage(name: string, keys: readonly string[]): string {
  return `export "${name}" is an object holding ${keys.length === 1 ? "the eval" : "the evals"} ${keys.map((key) => `"${key}"`).join(", ")}; niceeval runs the evals a file exports itself: export ${keys.length === 1 ? "it" : "each"} by name (export const ${keys[0]} = ...)`;
}

/** The own enumerable data properties of a value, without running its getters. */
function dataEntries(value: unknown): [string, unknown][] {
  if (typeof value !== "object" || value === null) return [];
  const entries: [string, unknown][] = [];
  for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(value)))
    if (descriptor.enumerable && "value" in descriptor) entries.push([key, descriptor.value]);
  return entries;
}

/** A seed-style `{ id, cases, scorers }` object: runnable from code with runEval, not alone. */
function looksLikeSuiteData(value: unknown): boolean {
  const v = Object.fromEntries(dataEntries(value));
  return typeof v.id === "string" && "cases" in v && Array.isArray(v.scorers);
}
