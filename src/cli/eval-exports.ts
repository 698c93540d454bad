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
  for (const [name, value] of exports) {
    const said = misexported(name, value, new Set());
    if (said !== undefined) return said;
  }
  for (const [name, value] of exports) {
    if (typeof value === "function")
      return `exports no eval: export "${name}" is a function; export the eval it makes (export const suite = ${name === "default" ? "make" : name}(...)), the result of defineSuite(...) or adapter.defineScoreEval(...)`;
  }
  return undefined;
}

/**
 * The exports of a file that also exports evals which look like evals exported the wrong way (a
 * suite's definition not given to defineSuite, an object holding evals the file does not export
 * itself): each is a load error of its own, the file's other evals still running, so a run
 * never passes without an eval its author meant to run and nothing saying so.
 */
export function misexportedEvals(
  module: Record<string, unknown>,
  file: string,
  found: readonly Exported[],
): LoadError[] {
  try {
    const exported = new Set(found.map((item) => item.runnable));
    return dataEntries(module).flatMap(([name, value]) => {
      const said = misexported(name, value, exported);
      return said === undefined ? [] : [{ file, message: said, leftOut: [name] }];
    });
  } catch {
    // A Proxy whose traps throw, or the like: nothing more to say than the evals found.
    return [];
  }
}

/**
 * Why export `name` looks like an eval that will not run: a suite's definition, or an object
 * holding evals not among `exported`; undefined otherwise.
 */
function misexported(
  name: string,
  value: unknown,
  exported: ReadonlySet<Runnable>,
): string | undefined {
  if (looksLikeSuiteData(value))
    return typeof dataEntries(value).find(([key]) => key === "target")?.[1] === "function"
      ? `export "${name}" is a plain object, not an eval; wrap it: export const ${name === "default" ? "suite" : name} = defineSuite({ ... })`
      : `export "${name}" is a suite without a target; export defineSuite({ ...${name}, target }) instead`;
  if (typeof value !== "object" || value === null || Array.isArray(value) || isRunnable(value))
    return undefined;
  const held = dataEntries(value)
    .filter(([, v]) => isRunnable(v) && !exported.has(v))
    .map(([key]) => key);
  if (held.length === 0) return undefined;
  return `export "${name}" is an object holding ${held.length === 1 ? "the eval" : "the evals"} ${held.map((key) => `"${key}"`).join(", ")}; niceeval runs the evals a file exports itself: export ${held.length === 1 ? "it" : "each"} by name (export const ${held[0]} = ...)`;
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
