// Module hooks that teach Node to import TypeScript (registered by load.ts, run off-thread).
// Only TypeScript files are touched: everything else goes straight to Node's own loader, and
// compiled files are cached on disk, so a warm run never starts esbuild.
import { readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { resolveAlias } from "./ts-aliases.js";
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

/**
 * `./x.js` written in a .ts file means `./x.ts`, as TypeScript resolves it; a name the project's
 * tsconfig.json maps (`paths`, `baseUrl`) is the file it maps to (see ts-aliases.ts).
 */
export async function resolve(
  specifier: string,
  context: { parentURL?: string },
  next: NextResolve,
): Promise<Resolved> {
  const aliased = aliasedUrl(specifier, context.parentURL);
  if (aliased !== undefined) return { url: aliased, shortCircuit: true };
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

/** The URL of the file a tsconfig alias names, for an import by name in a TypeScript file. */
function aliasedUrl(specifier: string, parent: string | undefined): string | undefined {
  if (!parent?.startsWith("file:") || !TYPESCRIPT.test(parent)) return undefined;
  if (
    RELATIVE.test(specifier) ||
    specifier.startsWith("/") ||
    /^[a-z][a-z0-9+.-]*:/i.test(specifier)
  )
    return undefined;
  if (isBuiltin(specifier) || specifier.startsWith("#")) return undefined;
  const file = resolveAlias(specifier, fileURLToPath(parent));
  return file === undefined ? undefined : pathToFileURL(file).href;
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
