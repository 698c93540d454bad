// What both ways of loading TypeScript share (ts-hooks.ts in the loader thread, ts-direct.ts in
// the process itself): esbuild, loaded only when a file has to be compiled, cache writes that a
// concurrent process never sees half done, how `./x.js` finds `./x.ts`, and what imports `.ts`.

import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";

// esbuild is tsx's own dependency; resolving it from tsx keeps it found however npm hoists.
const requireFromTsx = createRequire(createRequire(import.meta.url).resolve("tsx/package.json"));
export type Esbuild = typeof import("esbuild");
let esbuild: Esbuild | undefined;

export const esbuildVersion = (requireFromTsx("esbuild/package.json") as { version: string })
  .version;

/** The compile target: the running Node. */
export const nodeTarget = `node${process.versions.node}`;

export function loadEsbuild(): Esbuild {
  esbuild ??= requireFromTsx("esbuild") as Esbuild;
  return esbuild;
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
