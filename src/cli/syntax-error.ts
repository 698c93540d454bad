// Where a JavaScript syntax error is. Node's ES module loader throws a SyntaxError without the
// file or line it found it at (it prints them only for an error nobody caught), so a load error
// of an eval file would say "Unexpected token ';'" and nothing else, and a broken helper would
// read as the eval file's own fault. The files are parsed again to find it.

import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { loadEsbuild } from "./ts-shared.js";

/** Files of one import followed at most, so a large project is not parsed whole. */
const MAX_FILES = 200;

const SCRIPT = /\.[cm]?[jt]sx?$/;
const RELATIVE_IMPORT =
  /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["'](\.{1,2}\/[^"']+)["']/g;

/**
 * `path:line:column` of the syntax error `error` came from: the first line of a CommonJS
 * error's stack, or the first file, `file` or one it imports by a relative path (JavaScript or
 * TypeScript), that does not parse. Undefined when it is not a syntax error or none is found.
 */
export function syntaxErrorAt(error: unknown, file: string): string | undefined {
  if (!(error instanceof SyntaxError)) return undefined;
  const head = error.stack?.split("\n", 1)[0] ?? "";
  if (/^(?:\/|file:|[A-Za-z]:\\).*:\d+$/.test(head)) return head;
  const seen = new Set<string>();
  const queue = [resolve(file)];
  while (queue.length > 0 && seen.size < MAX_FILES) {
    const path = queue.shift()!;
    if (seen.has(path) || !SCRIPT.test(path)) continue;
    seen.add(path);
    let source: string;
    try {
      source = readFileSync(path, "utf8");
    } catch {
      continue;
    }
    const at = parseError(path, source);
    if (at) return at;
    for (const match of source.matchAll(RELATIVE_IMPORT))
      queue.push(resolve(dirname(path), match[1]!));
  }
  return undefined;
}

function parseError(path: string, source: string): string | undefined {
  try {
    loadEsbuild().transformSync(source, {
      loader: /ts$/.test(path) ? "ts" : /tsx$/.test(path) ? "tsx" : /x$/.test(path) ? "jsx" : "js",
      ...(/\.cjs$/.test(path) ? { format: "cjs" as const } : {}),
      sourcefile: path,
      logLevel: "silent",
    });
    return undefined;
  } catch (error) {
    const location = (error as { errors?: { location?: { line: number; column: number } }[] })
      .errors?.[0]?.location;
    return location ? `${path}:${location.line}:${location.column + 1}` : undefined;
  }
}
