import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { errorMessage } from "../errors.js";
import { isRunnable, type Runnable } from "../eval/runnable.js";
import type { RunEntry } from "../runner/run.js";
import { exportsInDeclarationOrder } from "./export-order.js";

type TsImport = (specifier: string, parent: string) => Promise<unknown>;
let typescript: Promise<TsImport> | undefined;

/** Teach Node to import TypeScript (once per process); returns tsx's scoped importer too. */
function enableTypeScript(): Promise<TsImport> {
  typescript ??= import("tsx/esm/api").then((api) => {
    api.register();
    return api.tsImport as TsImport;
  });
  return typescript;
}

/**
 * Import an eval file with Node's own loader (TypeScript through tsx's hooks), so that it shares
 * niceeval's modules with the runner. In a project without `"type": "module"` tsx compiles a .ts
 * file as CommonJS, which Node cannot require from this import; tsx's scoped importer loads it as
 * an ES module instead (its niceeval is then a second instance, which process-wide state covers).
 */
async function importEvalFile(path: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(path).href;
  const typed = /\.[mc]?ts$/.test(path);
  const tsImport = typed ? await enableTypeScript() : undefined;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    if (!tsImport || (error as NodeJS.ErrnoException).code !== "ERR_REQUIRE_CYCLE_MODULE")
      throw error;
    return (await tsImport(url, import.meta.url)) as Record<string, unknown>;
  }
}

/** Result of loading eval files: the evals found, and the files that failed with why. */
export interface LoadResult {
  entries: RunEntry[];
  errors: { file: string; message: string }[];
}

/**
 * Import each file and collect the evals it exports (named, default, or arrays of evals).
 * A file that throws on import is reported with its path; the others still load.
 */
export async function loadEvalFiles(files: readonly string[], cwd: string): Promise<LoadResult> {
  const entries: RunEntry[] = [];
  const errors: LoadResult["errors"] = [];
  const seen = new Map<string, string>();
  for (const file of files) {
    let module: Record<string, unknown>;
    try {
      module = await importEvalFile(resolve(cwd, file));
    } catch (error) {
      errors.push({ file, message: describeLoadError(error) });
      continue;
    }
    const evals = collectEvals(
      module,
      await readFile(resolve(cwd, file), "utf8").catch(() => undefined),
    );
    if (evals.length === 0) {
      const bare = Object.entries(module).find(([, value]) => looksLikeSuiteData(value));
      errors.push({
        file,
        message: bare
          ? `export "${bare[0]}" is a suite without a target; export defineSuite({ ...${bare[0]}, target }) instead`
          : "exports no eval; export the result of defineSuite(...) or adapter.defineScoreEval(...)",
      });
      continue;
    }
    for (const runnable of evals) {
      const previous = seen.get(runnable.id);
      if (previous !== undefined) {
        errors.push({
          file,
          message: `eval id "${runnable.id}" is already used by ${previous}; give each eval a unique id`,
        });
        continue;
      }
      seen.set(runnable.id, file);
      entries.push({ eval: runnable, file });
    }
  }
  return { entries, errors };
}

function collectEvals(module: Record<string, unknown>, source: string | undefined): Runnable[] {
  const found: Runnable[] = [];
  const add = (value: unknown) => {
    if (isRunnable(value)) {
      if (!found.includes(value)) found.push(value);
    } else if (Array.isArray(value)) {
      for (const item of value) if (isRunnable(item) && !found.includes(item)) found.push(item);
    }
  };
  for (const name of exportsInDeclarationOrder(Object.keys(module), source)) {
    const value = module[name];
    add(value);
    // A file compiled to CommonJS arrives as { default: module.exports }: its
    // `export default` is then module.default.default.
    if (name === "default" && !isRunnable(value) && typeof value === "object" && value !== null)
      add((value as Record<string, unknown>).default);
  }
  return found;
}

/** A seed-style `{ id, cases, scorers }` object: runnable from code with runEval, not alone. */
function looksLikeSuiteData(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.id === "string" && "cases" in v && Array.isArray(v.scorers);
}

function describeLoadError(error: unknown): string {
  const message = errorMessage(error);
  const name = error instanceof Error && error.name !== "Error" ? `${error.name}: ` : "";
  return `${name}${message}`;
}
