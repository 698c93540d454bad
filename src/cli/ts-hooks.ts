// Module hooks that teach Node to import TypeScript (registered by load.ts, run off-thread).
// Only TypeScript files are touched: everything else goes straight to Node's own loader, and
// compiled files are cached on disk, so a warm run never starts esbuild.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  esbuildVersion,
  loadEsbuild,
  nodeTarget,
  tsCandidates,
  writeCacheFile,
} from "./ts-shared.js";

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
    .update(`${esbuildVersion}\0node\0${format}\0${jsx}\0${path}\0${source}`)
    .digest("hex");
  const cached = join(cacheDir, `${key}.js`);
  try {
    return readFileSync(cached, "utf8");
  } catch {}
  const { code } = await loadEsbuild().transform(source, {
    loader: jsx ? "tsx" : "ts",
    format: format === "module" ? "esm" : "cjs",
    // For Node: a CommonJS module then names its exports where Node's lexer finds them, so an
    // ES module can import them by name (`import { up } from "./util.cts"`).
    platform: "node",
    target: nodeTarget,
    sourcefile: path,
    sourcemap: "inline",
    sourcesContent: false,
    jsx: "automatic",
  });
  writeCacheFile(cached, code);
  return code;
}
