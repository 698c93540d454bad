import { readdir, realpath, stat } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";
import { NiceevalError } from "../errors.js";
import { plural } from "../plural.js";

/** The extensions niceeval loads as code: Node's own JavaScript, and TypeScript (load.ts). */
const CODE_EXTENSIONS = ["ts", "tsx", "mts", "cts", "js", "mjs", "cjs"];
const CODE_FILE = new RegExp(`\\.(?:${CODE_EXTENSIONS.join("|")})$`);
const EVAL_FILE = new RegExp(`\\.eval\\.(?:${CODE_EXTENSIONS.join("|")})$`);

/** Whether `path` is named as an eval file is (`*.eval.ts`, `*.eval.js`, …). */
export const isEvalFileName = (path: string): boolean => EVAL_FILE.test(path);
const SKIP_DIRS = new Set(["node_modules", "dist", "coverage"]);

/** Default places to look for eval files, relative to the working directory. */
export const DEFAULT_EVAL_DIRS = ["evals", "examples"];

/**
 * Find eval files (`*.eval.ts`, `*.eval.js`, …) under the given paths, sorted for stable
 * output. A path that does not exist, to search or to exclude, is a usage error naming it.
 */
export async function discoverEvalFiles(
  paths: readonly string[],
  options: { cwd: string; exclude?: readonly string[] },
): Promise<string[]> {
  const excluded = (options.exclude ?? []).map((p) => resolve(options.cwd, p));
  // An --exclude that names nothing would exclude nothing without a word (a glob, a typo).
  for (const [i, path] of excluded.entries()) {
    if (await stat(path).catch(() => undefined)) continue;
    const given = options.exclude![i]!;
    throw new NiceevalError(
      "USAGE",
      `--exclude ${given}: no such file or folder${/[*?[\]{}]/.test(given) ? " (globs are not expanded: give the file or folder to skip)" : ""}. Pass a file or folder that exists.`,
    );
  }
  const isExcluded = (file: string) =>
    excluded.some((ex) => file === ex || file.startsWith(ex.endsWith(sep) ? ex : ex + sep));
  const files = await findEvalFiles(paths, options.cwd, isExcluded);
  // "No eval files found" would be false: there were some, and --exclude left them all out.
  if (files.length === 0 && excluded.length > 0) {
    const all = await findEvalFiles(paths, options.cwd, () => false);
    if (all.length > 0) throw allExcluded(options.exclude!, paths, all);
  }
  return files;
}

/** The eval files under `paths` (or the default folders) that `isExcluded` leaves in, sorted. */
async function findEvalFiles(
  paths: readonly string[],
  cwd: string,
  isExcluded: (path: string) => boolean,
): Promise<string[]> {
  const explicit = paths.length > 0;
  const roots = explicit ? paths : DEFAULT_EVAL_DIRS;
  const found = new Set<string>();
  const searched = new Set<string>();
  for (const root of roots) {
    const absolute = resolve(cwd, root);
    const info = await stat(absolute).catch(() => undefined);
    if (!info) {
      if (explicit) {
        throw new NiceevalError(
          "USAGE",
          /[*?[{]/.test(root)
            ? `path not found: ${root}. niceeval does not expand patterns: let the shell expand it (leave it unquoted), or pass the folder`
            : `path not found: ${root}. Pass eval files or folders that exist.`,
        );
      }
      continue;
    }
    if (info.isFile()) {
      if (isExcluded(absolute)) continue;
      // Imported, a notes.txt or a package.json fails as a file that did not load, after the run
      // started, with Node's words (an unknown extension, import attributes) that do not say the
      // file was never one to run.
      if (!CODE_FILE.test(absolute)) throw notCode(root);
      found.add(absolute);
      continue;
    }
    await walk(absolute, found, isExcluded, searched);
  }
  return [...found].sort().map((file) => relative(cwd, file) || file);
}

/** Files named at most, in the usage error of an --exclude that left out every eval file. */
const SHOWN_EXCLUDED = 5;

/** The usage error of `--exclude`s that left out every eval file found. */
function allExcluded(
  exclude: readonly string[],
  paths: readonly string[],
  all: readonly string[],
): NiceevalError {
  const flags = exclude.map((given) => `--exclude ${given}`).join(", ");
  const shown = all.slice(0, SHOWN_EXCLUDED).join(", ");
  const more = all.length > SHOWN_EXCLUDED ? ` and ${all.length - SHOWN_EXCLUDED} more` : "";
  const where = paths.length
    ? paths.join(", ")
    : DEFAULT_EVAL_DIRS.map((d) => `./${d}`).join(" and ");
  return new NiceevalError(
    "USAGE",
    `${flags} left out ${all.length === 1 ? "the one eval file" : `all ${plural(all.length, "eval file")}`} found in ${where} (${shown}${more}), so there is nothing to run. Exclude fewer files or folders.`,
  );
}

/** The usage error of a file named on the command line that is not code niceeval can load. */
function notCode(given: string): NiceevalError {
  const extensions = CODE_EXTENSIONS.map((ext) => `.${ext}`).join(", ");
  return new NiceevalError(
    "USAGE",
    `cannot run ${given}: niceeval runs JavaScript and TypeScript files (${extensions}), and in a folder the *.eval.* ones. Pass eval files or folders.`,
  );
}

/**
 * Add the eval files under `dir` to `found`. A linked folder is followed as a folder is, each real
 * folder searched once (`searched`, by real path), so two links to one folder, or a link to a
 * folder above, find each file once and never loop; a link that leads nowhere is passed over.
 */
async function walk(
  dir: string,
  found: Set<string>,
  isExcluded: (p: string) => boolean,
  searched: Set<string>,
) {
  if (isExcluded(dir)) return;
  const real = await realpath(dir).catch(() => dir);
  if (searched.has(real)) return;
  searched.add(real);
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries) {
    const path = join(dir, entry.name);
    const folder =
      entry.isDirectory() ||
      (entry.isSymbolicLink() && (await stat(path).catch(() => undefined))?.isDirectory());
    if (folder) {
      if (!SKIP_DIRS.has(entry.name) && !entry.name.startsWith("."))
        await walk(path, found, isExcluded, searched);
    } else if (EVAL_FILE.test(entry.name) && !isExcluded(path)) {
      found.add(path);
    }
  }
}
