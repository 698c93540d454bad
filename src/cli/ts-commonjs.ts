// TypeScript files that CommonJS code requires (a `.cts` or `.cjs` eval file, a `.js` one in a
// project without "type": "module"): Node's CommonJS loader reads them, and they are compiled
// here, as CommonJS, in the thread that runs them (the module hooks and the compiled cache serve
// the ones that are imported). Without this a required `.ts` helper was read as JavaScript.
import { readFileSync } from "node:fs";
import Module from "node:module";
import { compileCachedSync } from "./ts-shared.js";

interface CommonJsModule {
  _compile(code: string, filename: string): void;
}

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
}
