// The options of a project's tsconfig.json that change how TypeScript compiles, as niceeval
// hands them to esbuild: read from the file nearest each eval file, with what it extends.

import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join, resolve } from "node:path";

/** The tsconfig.json options that change the compiled code, as esbuild reads them. */
const COMPILED_OPTIONS = [
  "experimentalDecorators",
  "emitDecoratorMetadata",
  "useDefineForClassFields",
  "verbatimModuleSyntax",
  "preserveValueImports",
  "importsNotUsedAsValues",
  "jsx",
  "jsxFactory",
  "jsxFragmentFactory",
  "jsxImportSource",
  "alwaysStrict",
  "strict",
  "target",
] as const;

/** What esbuild is given as the project's tsconfig (`tsconfigRaw`). */
export interface TsconfigRaw {
  compilerOptions: Record<string, unknown>;
}

/**
 * The compiler options of the tsconfig.json nearest `path` (its folder or one above it, not
 * past node_modules), with what it `extends` (a file, or a package's), that change the compiled
 * code: decorators, class fields, kept imports, JSX. Every TypeScript file is compiled with
 * them, whichever way it loads, and they are part of its cache key. Read once per folder; a
 * tsconfig that cannot be read counts as none, and an `extends` not found is left out, each said
 * once on stderr.
 */
export function tsconfigOf(path: string): TsconfigRaw {
  return { compilerOptions: pickCompiled(projectOptions(path)) };
}

/** How the tsconfig.json nearest a file maps imports by name: its `paths` and `baseUrl`. */
export interface Aliases {
  /** `paths` as written: a pattern (at most one `*`) and the places it names, in order. */
  paths: Record<string, string[]>;
  /** The folder `paths` places are relative to: `baseUrl`, else the folder of the file with `paths`. */
  pathsBase: string;
  /** `baseUrl` as an absolute folder, when one is set: any name is looked for under it too. */
  baseUrl?: string;
}

/** The `paths` and `baseUrl` of the tsconfig.json nearest `path` (with what it extends), if any. */
export function aliasesOf(path: string): Aliases | undefined {
  const options = projectOptions(path);
  const baseUrl = options[BASE_URL] as string | undefined;
  const pathsDir = options[PATHS_DIR] as string | undefined;
  const paths: Record<string, string[]> = {};
  if (typeof options.paths === "object" && options.paths !== null)
    for (const [pattern, places] of Object.entries(options.paths))
      if (Array.isArray(places))
        paths[pattern] = places.filter((place): place is string => typeof place === "string");
  const pathsBase = baseUrl ?? pathsDir;
  if (pathsBase === undefined) return undefined;
  return { paths, pathsBase, ...(baseUrl !== undefined ? { baseUrl } : {}) };
}

/** Whether the tsconfig.json nearest `path` maps imports (`paths`, `baseUrl`). */
export function declaresAliases(path: string): boolean {
  return aliasesOf(path) !== undefined;
}

// Where a tsconfig's relative `baseUrl` and `paths` are read from: the file that sets each (one
// a project extends sets them relative to itself), kept beside the options as absolute folders.
const BASE_URL = "\0baseUrl";
const PATHS_DIR = "\0pathsDir";

/** Every compiler option of the tsconfig.json nearest `path` (see {@link tsconfigOf}). */
function projectOptions(path: string): Record<string, unknown> {
  const dir = dirname(path);
  let found = tsconfigs.get(dir);
  if (found) return found;
  const file = join(dir, "tsconfig.json");
  if (existsSync(file)) found = readTsconfig(file, 0);
  else {
    const parent = dirname(dir);
    found = parent === dir || /[\\/]node_modules$/.test(dir) ? {} : projectOptions(dir);
  }
  tsconfigs.set(dir, found);
  return found;
}
const tsconfigs = new Map<string, Record<string, unknown>>();

/** A tsconfig file's compiler options, over those of what it extends. */
function readTsconfig(file: string, depth: number): Record<string, unknown> {
  let config: { extends?: unknown; compilerOptions?: Record<string, unknown> };
  try {
    config = JSON.parse(withoutComments(readFileSync(file, "utf8")));
  } catch (error) {
    warnOnce(
      `${file} is not valid JSON (${(error as Error).message}), so none of its compiler options apply to the TypeScript files under it; fix it (\`npx tsc --showConfig -p ${dirname(file)}\` says where)`,
    );
    return {};
  }
  const bases = typeof config.extends === "string" ? [config.extends] : config.extends;
  let options: Record<string, unknown> = {};
  if (Array.isArray(bases) && depth < 10)
    for (const base of bases) {
      if (typeof base !== "string") continue;
      const resolved = resolveExtends(base, dirname(file));
      if (resolved) options = { ...options, ...readTsconfig(resolved, depth + 1) };
      else
        warnOnce(
          `${file} extends "${base}", which was not found from ${dirname(file)}; its compiler options are read without it: install that package or fix the path`,
        );
    }
  const own = config.compilerOptions ?? {};
  const merged: Record<string, unknown> = { ...options, ...own };
  if (typeof own.baseUrl === "string") merged[BASE_URL] = resolve(dirname(file), own.baseUrl);
  if (own.paths !== undefined) merged[PATHS_DIR] = dirname(file);
  return merged;
}

const warned = new Set<string>();

/**
 * Say on stderr, once per process, why a tsconfig is read otherwise than TypeScript would: its
 * own tools report the same, but an eval file compiled without its options fails far from it.
 */
function warnOnce(message: string): void {
  if (warned.has(message)) return;
  warned.add(message);
  process.stderr.write(`niceeval: ${message}\n`);
}

/** Where an `extends` points: a relative file, or a package's tsconfig. */
function resolveExtends(base: string, from: string): string | undefined {
  if (base.startsWith(".") || isAbsolute(base)) {
    const file = resolve(from, base);
    return existsSync(file) ? file : existsSync(`${file}.json`) ? `${file}.json` : undefined;
  }
  // As TypeScript reads it: a JSON file only (a package's main script is no tsconfig).
  const require = createRequire(join(from, "tsconfig.json"));
  for (const candidate of [`${base}/tsconfig.json`, `${base}.json`, base])
    try {
      const file = require.resolve(candidate);
      if (file.endsWith(".json")) return file;
    } catch {}
  return undefined;
}

function pickCompiled(options: Record<string, unknown>): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const key of COMPILED_OPTIONS) if (options[key] !== undefined) picked[key] = options[key];
  // The target is the running Node's; tsconfig's would only say what it may not downlevel.
  delete picked.target;
  return picked;
}

/** JSON with comments and trailing commas, as tsconfig files are written, made JSON. */
function withoutComments(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '"') {
      const end = endOfString(text, i);
      out += text.slice(i, end);
      i = end - 1;
    } else if (char === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
    } else if (char === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 1;
    } else out += char;
  }
  return out.replace(/,(\s*[}\]])/g, "$1");
}

function endOfString(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i + 1;
  }
  return text.length;
}
