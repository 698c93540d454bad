// TypeScript files that CommonJS code requires (a `.cts` or `.cjs` eval file, a `.js` one in a
// project without "type": "module"): Node's CommonJS loader reads them, and they are compiled
// here, as CommonJS, in the thread that runs them (the module hooks and the compiled cache serve
// the ones that are imported). Without this a required `.ts` helper was read as JavaScript.
import { readFileSync } from "node:fs";
import Module, { isBuiltin } from "node:module";
import { resolveAlias } from "./ts-aliases.js";
import { compileCachedSync } from "./ts-shared.js";

interface CommonJsModule {
  _compile(code: string, filename: string): void;
}

type ResolveFilename = (
  request: string,
  parent: { filename?: string } | undefined,
  ...rest: unknown[]
) => string;

let served = false;

/** Teach `require` to load `.cts`, `.ts`, `.tsx` and `.mts` files, once per process. */
export function serveCommonJsTypeScript(): void {
  if (served) return;
  served = true;
  const extensions = (Module as unknown as { _extensions: Record<string, unknown> })._extensions;
  for (const extension of [".cts", ".ts", ".tsx", ".mts"])
    extensions[extension] = (module: CommonJsModule, filename: string) => {
      const source = readFileSync(filename, "utf8");
      module._compile(compileCachedSync(filename, source, extension === ".tsx"), filename);
    };
  resolveAliasesInRequire();
}

const TYPESCRIPT = /\.[mc]?tsx?$/;

/**
 * A `require` by a tsconfig.json alias (`paths`, `baseUrl`) in a TypeScript file names the file
 * the alias maps to, before any package of that name, as the module hooks do for imports: the
 * `import { x } from "@/lib/x"` of a `.cts` eval file compiles to such a require.
 */
function resolveAliasesInRequire(): void {
  const loader = Module as unknown as { _resolveFilename: ResolveFilename };
  const next = loader._resolveFilename;
  loader._resolveFilename = function (request, parent, ...rest) {
    const from = parent?.filename;
    if (from !== undefined && TYPESCRIPT.test(from) && byName(request)) {
      const file = resolveAlias(request, from);
      if (file !== undefined) return file;
    }
    return next.call(this, request, parent, ...rest);
  };
}

/** Whether a require names a package (or an alias): not a path, a URL, a builtin or `#import`. */
function byName(request: string): boolean {
  return !(
    /^\.{0,2}\//.test(request) ||
    /^[a-z][a-z0-9+.-]*:/i.test(request) ||
    request.startsWith("#") ||
    isBuiltin(request)
  );
}
