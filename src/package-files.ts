import { readFileSync } from "node:fs";

/**
 * The way from this module's file to the package's `dist` folder. The build bundles modules into
 * shared chunks, so the file a module ends up in says little about where the package's other
 * files are; the bundling step (scripts/bundle.mjs) rewrites this literal, in each file it
 * writes, to the way from that file to `dist`. Unbundled (tsc output, or sources under test),
 * this module sits at the root of `dist` (or `src`) and the literal stays as it is.
 */
const DIST_ROOT = "niceeval-dist-root:./";

/**
 * URL of a file of the built package, given by its path under `dist` (`supervisor/child.js`,
 * `../package.json`): a process, thread or hook module to start from it, or a file to read.
 */
export function builtFile(path: string): URL {
  return new URL(DIST_ROOT.slice("niceeval-dist-root:".length) + path, import.meta.url);
}

/** niceeval's version, from its package.json. */
export function packageVersion(): string {
  const url = builtFile("../package.json");
  return (JSON.parse(readFileSync(url, "utf8")) as { version: string }).version;
}
