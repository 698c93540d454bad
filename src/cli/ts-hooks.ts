// Module hooks that teach Node to import TypeScript (registered by load.ts, run off-thread).
// Only TypeScript files are touched: everything else goes straight to Node's own loader, and
// compiled files are cached on disk, so a warm run never starts esbuild.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { compileCached, type ModuleFormat, tsCandidates } from "./ts-shared.js";

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
  const format: ModuleFormat = match[1] === "c" ? "commonjs" : "module";
  const path = fileURLToPath(url);
  const source = readFileSync(path, "utf8");
  return {
    format,
    source: await compileCached(path, source, format, match[2] === "x"),
    shortCircuit: true,
  };
}
