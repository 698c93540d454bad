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
 * tsconfig that cannot be read counts as none (its own tools report it).
 */
export function tsconfigOf(path: string): TsconfigRaw {
  return { compilerOptions: pickCompiled(projectOptions(path)) };
}

/** Whether the tsconfig.json nearest `path` maps imports (`paths`, `baseUrl`), which niceeval does not. */
export function declaresAliases(path: string): boolean {
  const options = projectOptions(path);
  return options.paths !== undefined || options.baseUrl !== undefined;
}

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
  } catch {
    return {};
  }
  const bases = typeof config.extends === "string" ? [config.extends] : config.extends;
  let options: Record<string, unknown> = {};
  if (Array.isArray(bases) && depth < 10)
    for (const base of bases) {
      const resolved = typeof base === "string" ? resolveExtends(base, dirname(file)) : undefined;
      if (resolved) options = { ...options, ...readTsconfig(resolved, depth + 1) };
    }
  return { ...options, ...(config.compilerOptions ?? {}) };
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
