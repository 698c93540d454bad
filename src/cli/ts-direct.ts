// TypeScript eval files loaded without module hooks. Registering hooks on Node 20 starts a loader
// thread and blocks until it is up (about 50 ms, in each process that loads eval files), so a
// file is instead compiled to an ES module in the cache folder of its nearest node_modules, with
// every relative import rewritten to where it resolves from the original file (a TypeScript file
// it imports to that file's own compiled module), and `import.meta.url`, `.filename` and
// `.dirname` set to the original's. Bare imports are left as they are: from the cache folder,
// Node looks them up in the same node_modules folders as from the file. Paths are real paths, as
// Node's own are. The compiled module ends with a line naming what it was compiled from and how
// each import resolved, so a warm run does not start esbuild unless one of those changed.
//
// A file this cannot serve exactly as Node would (CommonJS, `import()` of a computed name or a
// pattern, `import.meta` used otherwise, package `#imports`, a package importing itself by name,
// a package that ships TypeScript sources, JavaScript it imports that imports TypeScript, a
// node_modules reached through a link, a cache folder that cannot be written) gives undefined:
// load.ts then loads every TypeScript file of the run through the hooks (ts-hooks.ts).
import { createHash } from "node:crypto";
import { readFileSync, realpathSync, statSync } from "node:fs";
import { isBuiltin } from "node:module";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Plugin } from "esbuild";
import { aliasMayMap, resolveAlias } from "./ts-aliases.js";
import {
  esbuildVersion,
  existingFile,
  importsTypeScript,
  jsxOf,
  loadEsbuild,
  nodeTarget,
  writeCacheFile,
} from "./ts-shared.js";
import { aliasesOf, tsconfigOf } from "./tsconfig.js";

/** Changes when the compiled form does, so older cache files are not read. */
const FORMAT = "direct-4";
const HEADER = "// niceeval-ts ";
/** The TypeScript files served here: ES modules (`.cts` is CommonJS: the hooks serve it). */
const DIRECT = /\.(?:ts|tsx|mts)$/;

/** The compiled module's last line: what it was compiled from, and how its imports resolved. */
interface Header {
  key: string;
  /** Each relative import as written, and the file it resolved to (a TypeScript one is compiled too). */
  local: [string, string][];
  /** The packages it imports by name (read again on each run: one may ship TypeScript now). */
  packages: string[];
  /**
   * Names it imports that a tsconfig alias could map but no file matched (imported as packages):
   * a file created there since takes them, so each is looked for again on each run.
   */
  unmatched?: string[];
}

/** Why a file is left to the hooks. */
class NotDirect extends Error {}

/**
 * The URL to import for a TypeScript eval file without hooks: its compiled module, once it and
 * every TypeScript file it imports are compiled. Undefined when the hooks have to serve it.
 */
export async function directModuleUrl(path: string): Promise<string | undefined> {
  if (!DIRECT.test(path)) return undefined;
  const tree = new CompiledTree();
  try {
    const url = tree.add(realpathSync(path));
    await tree.settled();
    return url;
  } catch {
    return undefined;
  }
}

/** The source file of each compiled module this process handed out, for messages. */
const sourceOf = new Map<string, string>();

/**
 * A message with every compiled module this process loaded named by its source file instead
 * (an import that failed inside one names the file the user wrote, not the cache's copy).
 */
export function withSourcePaths(text: string): string {
  if (!text.includes("niceeval-ts")) return text;
  let named = text;
  for (const [out, path] of sourceOf) {
    named = named.split(pathToFileURL(out).href).join(pathToFileURL(path).href);
    named = named.split(out).join(path);
  }
  return named;
}

/** The files of one import, compiled (or found compiled) once each, cycles included. */
class CompiledTree {
  private readonly pending = new Map<string, Promise<void>>();

  /** Start compiling `path` (once) and give its compiled module's URL. */
  add(path: string): string {
    const out = compiledPath(path);
    sourceOf.set(out, path);
    if (!this.pending.has(path)) {
      // Started on a later tick: a file it imports that imports it back finds it pending.
      const done = Promise.resolve().then(() => this.compile(path, out));
      // Awaited by settled(); a failure is seen there.
      done.catch(() => {});
      this.pending.set(path, done);
    }
    return pathToFileURL(out).href;
  }

  /** Every file added so far, and those they added, is compiled; throws if one could not be. */
  async settled(): Promise<void> {
    let seen = 0;
    while (seen < this.pending.size) {
      seen = this.pending.size;
      await Promise.all(this.pending.values());
    }
  }

  private async compile(path: string, out: string): Promise<void> {
    const source = readFileSync(path, "utf8");
    const key = createHash("sha256")
      .update(
        `${FORMAT}\0${esbuildVersion()}\0${nodeTarget}\0${path}\0${source}\0${JSON.stringify(tsconfigOf(path))}\0${JSON.stringify(aliasesOf(path) ?? null)}`,
      )
      .digest("hex");
    const kept = keptHeader(out, key, path);
    if (kept) {
      for (const [, target] of kept.local) if (DIRECT.test(target)) this.add(target);
      return;
    }
    const header: Header = { key, local: [], packages: [] };
    const code = await this.build(path, out, header);
    // Last, so the source map's lines stay those of esbuild's output.
    const text = `${code}${code.endsWith("\n") ? "" : "\n"}${HEADER}${JSON.stringify(header)}\n`;
    if (!writeCacheFile(out, text)) throw new NotDirect(`cannot write ${out}`);
  }

  private async build(path: string, out: string, header: Header): Promise<string> {
    const url = pathToFileURL(path).href;
    const result = await loadEsbuild().build({
      entryPoints: [path],
      outfile: out,
      write: false,
      bundle: true,
      treeShaking: false,
      format: "esm",
      platform: "node",
      target: nodeTarget,
      sourcemap: "inline",
      sourcesContent: false,
      ...jsxOf(path),
      logLevel: "silent",
      metafile: true,
      define: {
        "import.meta.url": JSON.stringify(url),
        "import.meta.filename": JSON.stringify(path),
        "import.meta.dirname": JSON.stringify(dirname(path)),
      },
      plugins: [this.rewriter(path, header)],
    });
    const code = result.outputFiles?.[0]?.text;
    if (code === undefined) throw new NotDirect(`esbuild gave no output for ${path}`);
    // An import() of a pattern (`./locale/${lang}.ts`) is bundled in, not asked of the plugin.
    if (Object.keys(result.metafile?.inputs ?? {}).length > 1)
      throw new NotDirect(`${path} imports files by a pattern`);
    const body = code.slice(0, code.lastIndexOf("//# sourceMappingURL="));
    // What is left of import.meta, or an import() of a computed name, resolves against the
    // compiled module's location, not the file's.
    if (/\bimport\.meta\b/.test(body) || /\bimport\s*\(\s*(?!["'])/.test(body))
      throw new NotDirect(`${path} uses import.meta or import() in a way only the hooks serve`);
    return code;
  }

  /** The esbuild plugin that leaves every import external, rewritten as described above. */
  private rewriter(from: string, header: Header): Plugin {
    return {
      name: "niceeval-direct",
      setup: (build) => {
        build.onResolve({ filter: /.*/ }, (args) => {
          if (args.kind === "entry-point") return undefined;
          return { path: this.rewrite(args.path, args.kind, from, header), external: true };
        });
      },
    };
  }

  private rewrite(specifier: string, kind: string, from: string, header: Header): string {
    if (kind !== "import-statement" && kind !== "dynamic-import")
      throw new NotDirect(`${kind} of ${specifier}`);
    if (specifier.startsWith("node:") || isBuiltin(specifier)) return specifier;
    if (specifier.startsWith("#")) throw new NotDirect(`package import ${specifier}`);
    if (specifier.startsWith("file:") || specifier.startsWith("data:")) return specifier;
    // A tsconfig alias names a file of the project before any package of that name.
    const target = resolveImport(specifier, from);
    if (!byPath(specifier) && target === undefined) {
      if (aliasMayMap(specifier, from)) header.unmatched = [...(header.unmatched ?? []), specifier];
      if (packageOf(specifier) === ownPackageName(from))
        throw new NotDirect(`${specifier} imports the package itself`);
      // A package that ships TypeScript sources (a workspace package, often) needs the hooks:
      // Node alone does not load a .ts file.
      const name = packageOf(specifier);
      if (!header.packages.includes(name)) header.packages.push(name);
      if (shipsTypeScript(name, from))
        throw new NotDirect(`${specifier} points to TypeScript sources`);
      return specifier;
    }
    if (target === undefined) throw new NotDirect(`${specifier} not found from ${from}`);
    header.local.push([specifier, target]);
    if (DIRECT.test(target)) return this.add(target);
    if (/\.[mc]?tsx?$/.test(target)) throw new NotDirect(`${target} is CommonJS TypeScript`);
    if (plainImportsTypeScript(target)) throw new NotDirect(`${target} imports TypeScript`);
    return pathToFileURL(target).href;
  }
}

/** The file a relative import names, as the hooks would find it: as written, else as TypeScript. */
function resolveLocal(path: string): string | undefined {
  return /[?#]/.test(path) ? undefined : existingFile(path);
}

/** Whether an import names a file by its path (else a package, or a tsconfig alias). */
const byPath = (specifier: string) =>
  specifier.startsWith("./") || specifier.startsWith("../") || isAbsolute(specifier);

/** The file an import in `from` names, by its path or by a tsconfig alias (see ts-aliases.ts). */
function resolveImport(specifier: string, from: string): string | undefined {
  return byPath(specifier)
    ? resolveLocal(resolve(dirname(from), specifier))
    : resolveAlias(specifier, from);
}

/** A JavaScript file that imports TypeScript by name: Node alone cannot load what it imports. */
function plainImportsTypeScript(path: string): boolean {
  if (!/\.[mc]?jsx?$/.test(path)) return false;
  try {
    return importsTypeScript(readFileSync(path, "utf8"));
  } catch {
    return true;
  }
}

/**
 * The header of a compiled module that is still what `key` and the file system say: same
 * source, each relative import resolving to the same file, no JavaScript it imports importing
 * TypeScript, and no package it imports shipping TypeScript.
 */
function keptHeader(out: string, key: string, path: string): Header | undefined {
  let text: string;
  try {
    text = readFileSync(out, "utf8");
  } catch {
    return undefined;
  }
  const at = text.lastIndexOf(`\n${HEADER}`);
  if (at < 0) return undefined;
  try {
    const header = JSON.parse(text.slice(at + 1 + HEADER.length)) as Header;
    if (header.key !== key) return undefined;
    // Each relative import still finds the same file (a file added or removed may change that),
    // and JavaScript it imports still imports no TypeScript.
    for (const [specifier, target] of header.local) {
      if (resolveImport(specifier, path) !== target) return undefined;
      if (plainImportsTypeScript(target)) return undefined;
    }
    // A package upgraded since may ship TypeScript now.
    for (const name of header.packages) if (shipsTypeScript(name, path)) return undefined;
    // A file an alias names may have been created since.
    for (const specifier of header.unmatched ?? [])
      if (resolveAlias(specifier, path) !== undefined) return undefined;
    return header;
  } catch {
    return undefined;
  }
}

/** Where a file's compiled module goes: the cache folder of its nearest node_modules. */
function compiledPath(path: string): string {
  const modules = nearestNodeModules(dirname(path));
  if (modules === undefined) throw new NotDirect(`no node_modules above ${path}`);
  // Node would resolve the compiled module's imports from where the link points.
  if (realpathSync(modules) !== modules) throw new NotDirect(`${modules} is a link`);
  const id = createHash("sha256").update(path).digest("hex").slice(0, 16);
  return join(modules, ".cache", "niceeval-ts", `${basename(path)}-${id}.mjs`);
}

/** The first answer `look` gives for `dir` or a folder above it, nearest first. */
function findUp<T>(dir: string, look: (at: string) => T | undefined): T | undefined {
  for (let at = dir; ; at = dirname(at)) {
    const found = look(at);
    if (found !== undefined || dirname(at) === at) return found;
  }
}

function nearestNodeModules(dir: string): string | undefined {
  return findUp(dir, (at) => {
    const candidate = join(at, "node_modules");
    return isDirectory(candidate) ? candidate : undefined;
  });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** `@scope/name` or `name` of a bare specifier. */
function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/**
 * Whether the package a file would import by `name` names a TypeScript file (not a declaration
 * file) as its `main`, `module` or anywhere in its `exports`.
 */
function shipsTypeScript(name: string, from: string): boolean {
  const manifest = findUp(dirname(from), (at) =>
    readJson(join(at, "node_modules", name, "package.json")),
  );
  return (
    manifest !== undefined &&
    [manifest.main, manifest.module, manifest.exports].some(namesTypeScript)
  );
}

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function namesTypeScript(value: unknown): boolean {
  if (typeof value === "string") return /\.[mc]?tsx?$/.test(value) && !/\.d\.[mc]?ts$/.test(value);
  if (Array.isArray(value)) return value.some(namesTypeScript);
  if (typeof value === "object" && value !== null)
    return Object.values(value).some(namesTypeScript);
  return false;
}

/** The name in the package.json that holds a file (a package may import itself by it). */
function ownPackageName(file: string): string | undefined {
  const manifest = findUp(dirname(file), (at) =>
    basename(at) === "node_modules" ? {} : readJson(join(at, "package.json")),
  );
  return typeof manifest?.name === "string" ? manifest.name : undefined;
}
