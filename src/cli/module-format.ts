// Whether a package an eval file imports is CommonJS: only then can a named import it fails to
// give be a name Node's lexer could not see, rather than a name the package does not export.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * Whether `specifier`, imported from `from`, resolves to a CommonJS file. False when it does not
 * resolve for `require` (a package that exports only for `import` is an ES module) or is an ES
 * module by its extension or its package.json's `type`.
 */
export function isCommonJsImport(specifier: string, from: string): boolean {
  let file: string;
  try {
    file = createRequire(from).resolve(specifier);
  } catch {
    return false;
  }
  if (file.endsWith(".cjs") || file.endsWith(".cts")) return true;
  if (file.endsWith(".mjs")) return false;
  return packageTypeOf(file) !== "module";
}

/** The `type` of the package.json nearest `file`, or undefined when there is none. */
export function packageTypeOf(file: string): string | undefined {
  const folder = dirname(file);
  for (let at = folder; ; at = dirname(at)) {
    try {
      const type = (
        JSON.parse(readFileSync(join(at, "package.json"), "utf8")) as { type?: unknown }
      ).type;
      return typeof type === "string" ? type : undefined;
    } catch {
      // No readable package.json here: the one above decides.
    }
    if (dirname(at) === at) return undefined;
  }
}
