// `.cts` files that a `.cts` file requires: Node's CommonJS loader reads them, and compiles them
// here, in the thread that runs them (the module hooks serve the ones that are imported).
import { readFileSync } from "node:fs";
import Module from "node:module";
import { compileCachedSync } from "./ts-shared.js";

interface CommonJsModule {
  _compile(code: string, filename: string): void;
}

let served = false;

/** Teach `require` to load `.cts` files, once per process. */
export function serveCommonJsTypeScript(): void {
  if (served) return;
  served = true;
  const extensions = (Module as unknown as { _extensions: Record<string, unknown> })._extensions;
  extensions[".cts"] = (module: CommonJsModule, filename: string) => {
    const source = readFileSync(filename, "utf8");
    module._compile(compileCachedSync(filename, source, false), filename);
  };
}
