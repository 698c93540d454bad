import { readFile } from "node:fs/promises";
import { createRequire, register } from "node:module";
import { dirname, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { clearTimeout, setTimeout } from "../clock.js";
import { errorMessage, thrownAt } from "../errors.js";
import { builtFile } from "../package-files.js";
import type { RunEntry } from "../runner/run.js";
import type { LoadError } from "../runner/summary.js";
import {
  collectEvals,
  EvalIds,
  type Misexport,
  misexportCandidates,
  misexportErrors,
  noEvalMessage,
} from "./eval-exports.js";
import { isCommonJsImport, packageTypeOf } from "./module-format.js";
import { PrototypeGuard } from "./prototype-guard.js";
import { syntaxErrorAt } from "./syntax-error.js";
import { TickGuard } from "./tick-guard.js";
import { serveCommonJsTypeScript } from "./ts-commonjs.js";
import { directModuleUrl, withSourcePaths } from "./ts-direct.js";
import { importsTypeScript } from "./ts-shared.js";
import { declaresAliases } from "./tsconfig.js";

const TYPESCRIPT_FILE = /\.[mc]?tsx?$/;
const NICEEVAL_IMPORT =
  /\bfrom\s*["'](niceeval(?:\/[\w-]+)?)["']|\bimport\s*\(?\s*["'](niceeval(?:\/[\w-]+)?)["']/g;
let hooks = false;

/** How TypeScript eval files are imported: the URL of each (see ts-direct.ts). */
interface TypeScriptLoad {
  /** Why importing niceeval failed, when it did. */
  failure: unknown;
  urls: Map<string, string>;
}

/**
 * Teach Node to import TypeScript (only when a .ts file is loaded). The niceeval entry points the
 * files import are loaded first, while source maps are still off (turning them on makes Node
 * read the map of every module loaded after), and by Node's own loader. The files are then
 * compiled to modules Node imports as they are (ts-direct.ts); when one cannot be, the module
 * hooks serve them all, registered once per process (a loader thread, a round trip per module).
 */
async function prepareTypeScript(
  files: readonly { path: string; source: string | undefined }[],
): Promise<TypeScriptLoad> {
  // A niceeval that fails to load fails every file that imports it: that error is the one to
  // report (importing a graph that failed again only says "not in cache").
  let failure: unknown;
  for (const url of niceevalEntries(files)) {
    await import(url).catch((error: unknown) => {
      failure ??= error;
    });
  }
  process.setSourceMapsEnabled(true);
  // One way for the whole run: a TypeScript file two eval files import must be one module, so
  // when one file needs the hooks (or a JavaScript eval file imports TypeScript by name), every
  // TypeScript file goes through them.
  const direct = new Map<string, string>();
  let needsHooks =
    hooks ||
    files.some(({ path, source }) => !TYPESCRIPT_FILE.test(path) && importsTypeScript(source));
  if (!needsHooks) {
    const typescript = files.filter(({ path }) => TYPESCRIPT_FILE.test(path));
    const urls = await Promise.all(typescript.map(({ path }) => directModuleUrl(path)));
    needsHooks = urls.includes(undefined);
    for (const [i, { path }] of typescript.entries()) direct.set(path, urls[i]!);
  }
  if (!needsHooks) return { failure, urls: direct };
  registerHooks();
  return { failure, urls: new Map() };
}

function registerHooks(): void {
  if (hooks) return;
  hooks = true;
  serveCommonJsTypeScript();
  register(builtFile("cli/ts-hooks.js"));
}

/** The niceeval modules (`niceeval`, `niceeval/expect`, …) that TypeScript eval files import. */
function niceevalEntries(files: readonly { path: string; source: string | undefined }[]) {
  const urls = new Set<string>();
  for (const { path, source } of files) {
    if (!TYPESCRIPT_FILE.test(path) || source === undefined) continue;
    const require = createRequire(path);
    for (const match of source.matchAll(NICEEVAL_IMPORT)) {
      try {
        urls.add(pathToFileURL(require.resolve(match[1] ?? match[2]!)).href);
      } catch {}
    }
  }
  return urls;
}

/** What `process.exit` throws while an eval file is imported. */
class ExitWhileLoading extends Error {
  constructor(code: unknown) {
    super(
      `the file called process.exit(${code === undefined ? "" : String(code)}) while it was loading; an eval file must not end the process (exit from a script of its own, not from an eval file)`,
    );
    this.name = "ExitWhileLoading";
  }
}

/** What an eval file whose import did not settle in time fails with. */
class LoadTimedOut extends Error {
  constructor(waitMs: number) {
    super(
      `the file did not finish loading within ${formatWait(waitMs)} (--hang-timeout): its top-level code waits on something that does not settle, such as a top-level await of a connection or a promise nobody resolves; make that wait end, or raise --hang-timeout if loading is that slow`,
    );
    this.name = "LoadTimedOut";
  }
}

const formatWait = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/**
 * Import an eval file with `process.exit` turned into a throw: a file whose top-level code calls
 * it fails to load (the other files still run) instead of ending the run, silently and with the
 * code it chose. An import still pending after `waitMs` fails the same way (the module is left
 * as it is: Node has no way to stop it).
 */
async function importWithoutExit(url: string, waitMs: number): Promise<Record<string, unknown>> {
  const exit = process.exit;
  process.exit = ((code?: unknown) => {
    throw new ExitWhileLoading(code);
  }) as typeof process.exit;
  let timer: NodeJS.Timeout | undefined;
  try {
    const imported = import(url) as Promise<Record<string, unknown>>;
    if (waitMs <= 0) return await imported;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new LoadTimedOut(waitMs)), waitMs);
    });
    return await Promise.race([imported, late]);
  } finally {
    clearTimeout(timer);
    if (process.exit !== exit) process.exit = exit;
  }
}

/** How eval files are loaded. */
export interface LoadOptions {
  /** How long one file's import may stay pending before it is a load error, ms; 0: no limit. */
  waitMs?: number | undefined;
  /** Called just before each file is imported (its path as given). */
  onImport?: (file: string) => void;
}

/**
 * Result of loading eval files: the evals found, the files that failed with why, and the evals
 * left out of files that loaded (`leftOut`: an id another eval has), with why.
 */
export interface LoadResult {
  entries: RunEntry[];
  errors: LoadError[];
}

/**
 * Import each file and collect the evals it exports (named, default, or arrays of evals).
 * A file that throws on import is reported with its path; the others still load. An eval whose id
 * is taken is left out, its export named; the other evals of its file still run.
 */
export async function loadEvalFiles(
  files: readonly string[],
  cwd: string,
  options: LoadOptions = {},
): Promise<LoadResult> {
  const entries: RunEntry[] = [];
  const errors: LoadResult["errors"] = [];
  const ids = new EvalIds();
  const sources = await Promise.all(
    files.map(async (file) => {
      const path = resolve(cwd, file);
      return { file, path, source: await readFile(path, "utf8").catch(() => undefined) };
    }),
  );
  const typescript = sources.some(
    ({ path, source }) => TYPESCRIPT_FILE.test(path) || importsTypeScript(source),
  )
    ? await prepareTypeScript(sources)
    : undefined;
  const preloadFailure = typescript?.failure;
  // A CommonJS file may `require` a TypeScript one, which no import names: Node's loader compiles it.
  if (sources.some(({ path }) => /\.(?:c[jt]s|js)$/.test(path))) serveCommonJsTypeScript();
  const ticks = new TickGuard();
  const prototypes = new PrototypeGuard();
  // Exports that may be evals exported the wrong way, told once every file's evals are known.
  const misexports: Misexport[] = [];
  const runIds = new Set<string>();
  for (const { file, path, source } of sources) {
    let module: Record<string, unknown> | undefined;
    let failure: unknown;
    try {
      const url = typescript?.urls.get(path) ?? pathToFileURL(path).href;
      options.onImport?.(file);
      module = await importWithoutExit(url, options.waitMs ?? 0);
    } catch (error) {
      failure = preloadFailure ?? error;
    }
    ticks.check(file);
    // A prototype the file changed is the cause of what failed with it.
    const defined = prototypes.check();
    if (defined !== undefined || !module) {
      errors.push({ file, message: defined ?? describeLoadError(failure, path) });
      continue;
    }
    const evals = collectEvals(module, source);
    if (evals.length === 0) {
      errors.push({ file, message: noEvalMessage(module) });
      continue;
    }
    misexports.push(...misexportCandidates(module, file));
    for (const { runnable } of evals) runIds.add(runnable.id);
    const admitted = ids.admit(file, evals);
    errors.push(...admitted.errors);
    for (const runnable of admitted.kept) entries.push({ eval: runnable, file });
  }
  errors.push(...misexportErrors(misexports, runIds));
  return { entries, errors };
}

function describeLoadError(error: unknown, path: string): string {
  const message = errorMessage(error);
  const name =
    error instanceof Error &&
    error.name !== "Error" &&
    !(error instanceof ExitWhileLoading) &&
    !(error instanceof LoadTimedOut)
      ? `${error.name}: `
      : "";
  const at =
    syntaxErrorAt(error, path) ??
    (name !== "" || (error instanceof Error && error.name === "Error")
      ? thrownAt(error)
      : undefined);
  const said = `${name}${withSourcePaths(message)}${at ? ` (at ${withSourcePaths(at)})` : ""}`;
  const hint = esModuleHint(said, path);
  return hint ? `${said} (${hint})` : said;
}

/**
 * What to do about the errors of TypeScript compiled as an ES module in a project that writes
 * CommonJS, and of a tsconfig alias, which reads as a package that is not installed.
 */
function esModuleHint(said: string, path: string): string | undefined {
  const missing = /Cannot find package '([^']+)' imported from (\S+)/.exec(said);
  if (missing) {
    const from = missing[2]!.startsWith("file:") ? fileURLToPath(missing[2]!) : missing[2]!;
    if (declaresAliases(from))
      return 'no file matches it through the "paths" or "baseUrl" of the tsconfig.json nearest the file (read as TypeScript reads them): check the pattern and the file it names, or import the file by a relative path';
    return /^[@~#]\//.test(missing[1]!)
      ? 'it reads as a tsconfig.json alias, but no tsconfig.json above the file maps it: add "paths" there (such as "@/*": ["src/*"]), or import the file by a relative path'
      : `install it (npm install ${missing[1]}) where the file can find it, or correct the name`;
  }
  if (
    /\b(require|__dirname|__filename|module|exports) is not defined in ES module scope/.test(said)
  )
    return TYPESCRIPT_FILE.test(path)
      ? "niceeval runs .ts eval files as ES modules: use import.meta.dirname and import.meta.filename (Node 20.11 and later), createRequire(import.meta.url), or name the file .cts to write CommonJS"
      : "this file is an ES module: use import.meta.dirname and import.meta.filename (Node 20.11 and later), createRequire(import.meta.url), or name the file .cjs to write CommonJS";
  if (
    /needs an import attribute of "?type"?: "?json"?|needs an import attribute of type "json"/.test(
      said,
    )
  )
    return `import JSON with an attribute: import data from "./data.json" with { type: "json" }${/\.tsx?$/.test(path) && packageTypeOf(path) !== "module" ? ` (TypeScript's checker refuses the attribute in a .ts file of a package that is not "type": "module", which it compiles to CommonJS: name the file .mts)` : ""}`;
  const named = /The requested module '([^']+)' does not provide an export named '([^']+)'/.exec(
    said,
  );
  if (named) return commonJsNameAdvice(named[1]!, named[2]!, path);
  return undefined;
}

/**
 * What to write instead of a named import a CommonJS module did not give: Node names an export
 * of one to an ES module only where its lexer finds it without running the module. Undefined when
 * the module is an ES module (the name is then wrong) or a TypeScript file (compiled to one).
 */
function commonJsNameAdvice(specifier: string, name: string, path: string): string | undefined {
  const local = /^(?:file:|\.|\/)/.test(specifier);
  const target = specifier.startsWith("file:") ? fileURLToPath(specifier) : specifier;
  if (local && /\.[mc]?tsx?$/.test(target) && !target.endsWith(".cts")) return undefined;
  if (!isCommonJsImport(target, path)) return undefined;
  if (!local)
    return 'a CommonJS package may not name its exports where an ES module can see them: import its default export (import pkg from "pkg") and use pkg.name';
  const shown = relative(dirname(path), target).replaceAll(sep, "/");
  return `it is a CommonJS file, whose exports an ES module sees by name only where Node can find them without running it: import its default export (import lib from "${shown.startsWith(".") ? shown : `./${shown}`}") and use lib.${name}`;
}
