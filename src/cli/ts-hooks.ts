// Module hooks that teach Node to import TypeScript (registered by load.ts, run off-thread).
// Only TypeScript files are touched: everything else goes straight to Node's own loader, and
// compiled files are cached on disk, so a warm run never starts esbuild.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

type Format = "module" | "commonjs";
type Resolved = { url: string; format?: string | null; shortCircuit?: boolean };
type Loaded = {
  format: string;
  source?: string | ArrayBuffer | Uint8Array;
  shortCircuit?: boolean;
};
type NextResolve = (specifier: string, context?: unknown) => Promise<Resolved>;
type NextLoad = (url: string, context?: unknown) => Promise<Loaded>;

const TYPESCRIPT = /\.([mc]?)ts(x?)$/;
const RELATIVE = /^\.{1,2}\//;

// esbuild is tsx's own dependency; resolving it from tsx keeps it found however npm hoists.
const requireFromTsx = createRequire(createRequire(import.meta.url).resolve("tsx/package.json"));
type Esbuild = typeof import("esbuild");
let esbuild: Esbuild | undefined;
const esbuildVersion = (requireFromTsx("esbuild/package.json") as { version: string }).version;
const cacheDir = join(tmpdir(), `niceeval-ts-${process.getuid?.() ?? "user"}`);

/** `./x.js` written in a .ts file means `./x.ts`, as TypeScript resolves it. */
export async function resolve(
  specifier: string,
  context: { parentURL?: string },
  next: NextResolve,
): Promise<Resolved> {
  try {
    return await next(specifier, context);
  } catch (error) {
    const parent = context.parentURL;
    if (!(parent && TYPESCRIPT.test(parent) && RELATIVE.test(specifier))) throw error;
    for (const candidate of tsCandidates(specifier)) {
      try {
        return await next(candidate, context);
      } catch {}
    }
    throw error;
  }
}

function tsCandidates(specifier: string): string[] {
  const js = /\.([mc]?)js(x?)$/.exec(specifier);
  if (js) return [`${specifier.slice(0, js.index)}.${js[1]}ts${js[2]}`];
  if (/\.[a-z]+$/.test(specifier)) return [];
  return [`${specifier}.ts`, `${specifier}.tsx`, `${specifier}/index.ts`];
}

/** Compile .ts/.mts/.tsx as ES modules (in any project) and .cts as CommonJS. */
export async function load(
  url: string,
  context: { format?: string | null },
  next: NextLoad,
): Promise<Loaded> {
  const match = TYPESCRIPT.exec(url.split("?")[0] ?? url);
  if (!match || !url.startsWith("file:")) return next(url, context);
  const format: Format = match[1] === "c" ? "commonjs" : "module";
  const path = fileURLToPath(url);
  const source = readFileSync(path, "utf8");
  return {
    format,
    source: await compile(path, source, format, match[2] === "x"),
    shortCircuit: true,
  };
}

async function compile(path: string, source: string, format: Format, jsx: boolean) {
  const key = createHash("sha256")
    .update(`${esbuildVersion}\0${format}\0${jsx}\0${path}\0${source}`)
    .digest("hex");
  const cached = join(cacheDir, `${key}.js`);
  try {
    return readFileSync(cached, "utf8");
  } catch {}
  esbuild ??= requireFromTsx("esbuild") as Esbuild;
  const { code } = await esbuild.transform(source, {
    loader: jsx ? "tsx" : "ts",
    format: format === "module" ? "esm" : "cjs",
    target: `node${process.versions.node}`,
    sourcefile: path,
    sourcemap: "inline",
    sourcesContent: false,
    jsx: "automatic",
  });
  try {
    mkdirSync(cacheDir, { recursive: true });
    const partial = `${cached}.${process.pid}.tmp`;
    writeFileSync(partial, code);
    renameSync(partial, cached);
  } catch {}
  return code;
}
