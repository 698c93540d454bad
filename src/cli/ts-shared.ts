// What both ways of loading TypeScript share (ts-hooks.ts in the loader thread, ts-direct.ts in
// the process itself): esbuild, loaded only when a file has to be compiled, cache writes that a
// concurrent process never sees half done, how `./x.js` finds `./x.ts`, and what imports `.ts`.

import { createHash } from "node:crypto";
import {
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type TsconfigRaw, tsconfigOf } from "./tsconfig.js";

export type Esbuild = typeof import("esbuild");
let esbuild: Esbuild | undefined;
let fromTsx: NodeJS.Require | undefined;
let version: string | undefined;

/**
 * esbuild is tsx's own dependency; resolving it from tsx keeps it found however npm hoists.
 * Resolved on first use, not as this module loads: every process that loads niceeval's runtime
 * loads this module, most of them never compile TypeScript.
 */
function requireFromTsx(id: string): unknown {
  fromTsx ??= createRequire(createRequire(import.meta.url).resolve("tsx/package.json"));
  return fromTsx(id);
}

/** The version of the esbuild that compiles (part of each compiled file's cache key). */
export function esbuildVersion(): string {
  version ??= (requireFromTsx("esbuild/package.json") as { version: string }).version;
  return version;
}

/** The project's tsconfig for esbuild, and React's automatic JSX unless it says otherwise. */
export function jsxOf(path: string): { tsconfigRaw: TsconfigRaw; jsx?: "automatic" } {
  const tsconfigRaw = tsconfigOf(path);
  return tsconfigRaw.compilerOptions.jsx === undefined
    ? { tsconfigRaw, jsx: "automatic" }
    : { tsconfigRaw };
}

/** The compile target: the running Node. */
export const nodeTarget = `node${process.versions.node}`;

export function loadEsbuild(): Esbuild {
  esbuild ??= requireFromTsx("esbuild") as Esbuild;
  return esbuild;
}

/** How a TypeScript file is compiled: as an ES module, or (`.cts`) as CommonJS. */
export type ModuleFormat = "module" | "commonjs";

/** Where the compiled forms of files loaded through the hooks (and of `.cts` files) are kept. */
const cacheDir = join(tmpdir(), `niceeval-ts-${process.getuid?.() ?? "user"}`);

/** The cache file of a file's compiled form (its name changes with the source and the compiler). */
function cacheFileOf(path: string, source: string, format: ModuleFormat, jsx: boolean): string {
  const key = createHash("sha256")
    .update(
      `${esbuildVersion()}\0node-3\0${format}\0${jsx}\0${path}\0${source}\0${JSON.stringify(tsconfigOf(path))}`,
    )
    .digest("hex");
  return join(cacheDir, `${key}.js`);
}

function transformOptions(
  path: string,
  format: ModuleFormat,
  jsx: boolean,
): import("esbuild").TransformOptions {
  return {
    loader: jsx ? "tsx" : "ts",
    format: format === "module" ? "esm" : "cjs",
    // For Node: a CommonJS module then names its exports where Node's lexer finds them, so an
    // ES module can import them by name (`import { up } from "./util.cts"`).
    platform: "node",
    target: nodeTarget,
    sourcefile: path,
    sourcemap: "inline",
    sourcesContent: false,
    ...jsxOf(path),
    // A CommonJS module Node's ES module loader runs from a hook's source gets a `require` that
    // cannot load an ES module (niceeval is one): it uses Node's own instead.
    ...(format === "commonjs"
      ? { banner: "require = module.constructor.createRequire(__filename);" }
      : {}),
  };
}

/** A TypeScript file compiled (or read from the cache), off the calling thread: the hooks'. */
export async function compileCached(
  path: string,
  source: string,
  format: ModuleFormat,
  jsx: boolean,
): Promise<string> {
  const cached = cacheFileOf(path, source, format, jsx);
  try {
    return readFileSync(cached, "utf8");
  } catch {}
  const { code } = await loadEsbuild().transform(source, transformOptions(path, format, jsx));
  writeCacheFile(cached, code);
  return code;
}

/** The same, synchronously: for Node's CommonJS loader, which compiles `.cts` files as it requires them. */
export function compileCachedSync(path: string, source: string, jsx: boolean): string {
  const cached = cacheFileOf(path, source, "commonjs", jsx);
  try {
    return readFileSync(cached, "utf8");
  } catch {}
  const { code } = loadEsbuild().transformSync(source, transformOptions(path, "commonjs", jsx));
  writeCacheFile(cached, code);
  return code;
}

/** Write a cache file through a temporary one, so a reader sees all of it or none. */
export function writeCacheFile(path: string, text: string): boolean {
  try {
    mkdirSync(dirname(path), { recursive: true });
    const partial = `${path}.${process.pid}.tmp`;
    writeFileSync(partial, text);
    renameSync(partial, path);
    return true;
  } catch {
    return false;
  }
}

/**
 * What `./x.js` written in a TypeScript file may mean, as TypeScript resolves it: `./x.ts`; and
 * an extensionless `./x`: `./x.ts`, `./x.tsx` or `./x/index.ts`.
 */
/**
 * The file at `path`, or the TypeScript file it stands for (`x.js` for `x.ts`, `x` for `x.ts`),
 * as a real path; undefined when there is none.
 */
export function existingFile(path: string): string | undefined {
  const found = isFile(path) ? path : tsCandidates(path).find(isFile);
  return found === undefined ? undefined : realpathSync(found);
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export function tsCandidates(specifier: string): string[] {
  const js = /\.([mc]?)js(x?)$/.exec(specifier);
  if (js) return [`${specifier.slice(0, js.index)}.${js[1]}ts${js[2]}`];
  if (/\.[a-z]+$/.test(specifier)) return [];
  return [`${specifier}.ts`, `${specifier}.tsx`, `${specifier}/index.ts`];
}

const TYPESCRIPT_IMPORT = /(?:\bfrom|\bimport\s*\(?)\s*["'][^"']+\.[mc]?tsx?["']/;

/** Whether a source imports a file by a TypeScript name (`./x.ts`). */
export function importsTypeScript(source: string | undefined): boolean {
  return source !== undefined && TYPESCRIPT_IMPORT.test(source);
}
