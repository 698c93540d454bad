// Build step after tsc: bundles the compiled modules of dist/ into a few shared chunks, so that
// starting the CLI, an eval process or `import "niceeval"` reads a handful of files instead of a
// few hundred (on Node 20 each ES module file costs a resolve, a read, a compile and a link, more
// than its bytes cost). Every module file that something loads by path is an entry: the
// package's exports, the processes, threads and hooks it starts, and the internal modules that
// the benchmarks and tests load from the build. Shared chunks keep one instance of each module
// across entries. Declarations (.d.ts) are tsc's, untouched.
//
// Left to itself, a bundler makes one chunk per set of entries that share code, which with this
// many entries is dozens of small chunks on every start. Named groups gather them instead (see
// GROUPS), and the entries that start a thread are bundled alone (see THREADS).
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { rolldown } from "rolldown";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const staging = join(dist, ".bundle");

const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const exported = Object.values(pkg.exports)
  .map((target) => (typeof target === "string" ? target : target.import))
  .filter((target) => target?.endsWith(".js"));
// Started by path: the CLI, the eval process, the store's append thread, the TypeScript hooks.
// Their top-level code runs when they load, so no group takes them in.
const started = [
  "cli/bin.js",
  "supervisor/child.js",
  "store/sqlite/append-worker.js",
  "cli/ts-hooks.js",
];
/**
 * Entries that start a thread: each is bundled alone, whole in one file, as a thread shares no
 * module with the process that starts it; with the rest, each would load the runtime (about 1 MB
 * where the append thread needs 114 KB and the TypeScript hooks' thread 13 KB).
 */
const THREADS = ["store/sqlite/append-worker.js", "cli/ts-hooks.js"];
const entries = [
  ...exported.map((target) => target.replace(/^\.\/dist\//, "")),
  ...started,
  // Loaded from the build by benchmarks (bench/) and tests of the built code.
  "cli/main.js",
  "cli/load.js",
  "runner/run.js",
  "eval/record.js",
  "supervisor/index.js",
  "supervisor/spawn.js",
  "store/sink.js",
  "store/sqlite/index.js",
  "judge/call.js",
  "judge/retries.js",
  "judge/index.js",
  "scorers/judged/index.js",
  "adapter/index.js",
  "viewer/export.js",
  "viewer/server.js",
];

/**
 * The chunks that gather modules, each with the entries whose static imports it takes (what
 * loads with them, never what they import on demand; with `alsoFrom`, only those these load
 * too). A module two would take goes to the first. `boot`: the CLI's first steps, before it
 * starts the eval process; kept small, as the eval process starts only after it. `expect` and
 * `engine`: what `niceeval/expect` and `niceeval/vitest` share with the runtime, so importing
 * them does not load all of it (nor the runtime, Vitest). `runtime`: the rest of what the eval
 * process and the package's main entries (a run's code, an eval file) load, with zod.
 */
const RUNTIME = ["supervisor/child.js", "index.js", "scorers/index.js"];
const GROUPS = [
  { name: "boot", from: ["cli/bin.js", "supervisor/spawn.js"] },
  { name: "expect", from: ["expect/index.js"] },
  { name: "engine", from: ["vitest/index.js"], alsoFrom: RUNTIME },
  { name: "runtime", from: RUNTIME },
];

// Dependencies are loaded from node_modules, except zod, whose 95 module files would be read at
// every start: it is bundled (zod recognises its schemas by their traits, not by the copy that
// made them, so a user's schemas and ours still work together); and the JSON Schema validator
// (@hyperjump/json-schema and what it imports, about 60 files, loaded on the first schema):
// its registry is its own either way, so a user's copy and ours never shared it.
const bundled = new Set(["zod", "@hyperjump/json-schema"]);
const externalNames = Object.keys({
  ...pkg.dependencies,
  ...pkg.peerDependencies,
  ...pkg.optionalDependencies,
}).filter((name) => !bundled.has(name));
const isExternal = (id) =>
  id.startsWith("node:") || externalNames.some((name) => id === name || id.startsWith(`${name}/`));

const startedIds = new Set(started.map((entry) => join(dist, entry)));
/** The group of each module (by id), from the graph once it is built (see groupsOfGraph). */
const groupOf = new Map();

/** Every module `from` imports statically, directly or not, and those modules themselves. */
function staticallyLoaded(from, info) {
  const seen = new Set();
  const visit = (id) => {
    if (seen.has(id)) return;
    seen.add(id);
    for (const next of info(id)?.importedIds ?? []) visit(next);
  };
  for (const entry of from) visit(join(dist, entry));
  return seen;
}

/** Finds each group's modules once the module graph is known, before chunks are made. */
const groupsOfGraph = {
  name: "chunk-groups",
  buildEnd() {
    const info = (id) => this.getModuleInfo(id);
    for (const group of GROUPS) {
      const also = group.alsoFrom && staticallyLoaded(group.alsoFrom, info);
      for (const module of staticallyLoaded(group.from, info))
        if (!groupOf.has(module) && !startedIds.has(module) && (!also || also.has(module)))
          groupOf.set(module, group.name);
    }
  },
};

/** tsc's source map of each compiled file goes with its code, so the bundle maps to src/. */
const tscMaps = {
  name: "tsc-source-maps",
  load(id) {
    if (!id.startsWith(dist) || !id.endsWith(".js")) return null;
    const code = readFileSync(id, "utf8");
    let map;
    try {
      map = readFileSync(`${id}.map`, "utf8");
    } catch {
      return null;
    }
    return { code: code.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n"), map };
  },
};

/** Bundle `input` with `plugins`, written as `output` says; gives the chunks written. */
async function bundleInto(input, plugins, output) {
  const build = await rolldown({
    input,
    platform: "node",
    external: isExternal,
    plugins,
    logLevel: "warn",
    // bin.js imports the eval process's starter on demand, which the runtime also imports.
    checks: { ineffectiveDynamicImport: false },
  });
  const written = await build.write({ format: "es", sourcemap: true, ...output });
  await build.close();
  return written.output.filter((file) => file.type === "chunk");
}

rmSync(staging, { recursive: true, force: true });
const chunks = await bundleInto(
  Object.fromEntries(
    [...new Set(entries)]
      .filter((entry) => !THREADS.includes(entry))
      .map((entry) => [entry.replace(/\.js$/, ""), join(dist, entry)]),
  ),
  [tscMaps, groupsOfGraph],
  {
    dir: staging,
    entryFileNames: "[name].js",
    chunkFileNames: "chunks/[name]-[hash].js",
    // Each group takes its modules first (a higher priority than the next), so the dependencies
    // a later group would take along stay where the graph put them.
    codeSplitting: {
      groups: GROUPS.map(({ name }, i) => ({
        name,
        test: (id) => groupOf.get(id) === name,
        priority: GROUPS.length - i,
      })),
    },
  },
);
for (const entry of THREADS)
  chunks.push(
    ...(await bundleInto(join(dist, entry), [tscMaps], {
      file: join(staging, entry),
      codeSplitting: false,
    })),
  );
writeThirdPartyLicenses(chunks.flatMap((chunk) => chunk.moduleIds));

/**
 * The licences of the packages whose code is in the bundle, beside it, as their licences ask of
 * a copy: dist/THIRD-PARTY-LICENSES.txt, one section per package.
 */
function writeThirdPartyLicenses(inputs) {
  const packages = new Map();
  for (const input of inputs) {
    const match = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) packages.set(match[1], input.slice(0, match.index + match[0].length));
  }
  const sections = [];
  for (const [name, folder] of [...packages].sort(([a], [b]) => a.localeCompare(b))) {
    const dir = resolve(root, folder);
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const file = readdirSync(dir).find((entry) => /^(licen[cs]e|copying)/i.test(entry));
    if (!file) throw new Error(`bundle: ${name} is bundled but ships no licence file`);
    const text = readFileSync(join(dir, file), "utf8").trim();
    sections.push(`${name}@${manifest.version} (${manifest.license ?? "see below"})\n\n${text}\n`);
  }
  mkdirSync(dist, { recursive: true });
  writeFileSync(
    join(dist, "THIRD-PARTY-LICENSES.txt"),
    `Packages whose code is bundled into this build, with their licences.\n\n${sections.join(`\n${"-".repeat(72)}\n\n`)}`,
  );
}

/** Every file under `dir` (recursively), but not under the folders `skip`. */
function filesUnder(dir, skip = []) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (skip.includes(path)) continue;
    if (statSync(path).isDirectory()) out.push(...filesUnder(path, skip));
    else out.push(path);
  }
  return out;
}

// The way from each bundled file to dist/, for package-files.ts (see DIST_ROOT there).
const MARKER = '"niceeval-dist-root:./"';
for (const file of filesUnder(staging)) {
  if (!file.endsWith(".js")) continue;
  let text = readFileSync(file, "utf8");
  const back = relative(dirname(file), staging).split(sep).join("/");
  text = text.replaceAll(MARKER, `"niceeval-dist-root:${back ? `${back}/` : "./"}"`);
  // A module URL resolved against its own file would point into the wrong folder once bundled.
  const relativeUrl = /new URL\(\s*["'`]\.\.?\//.exec(text);
  if (relativeUrl)
    throw new Error(
      `bundle: ${relative(staging, file)} resolves "${relativeUrl[0]}" against its own URL; use builtFile() (src/package-files.ts) instead`,
    );
  writeFileSync(file, text);
}

// tsc's JavaScript gives way to the bundle; its declarations and the viewer's build stay.
const viewerApp = join(dist, "viewer-app");
for (const file of filesUnder(dist, [viewerApp, staging]))
  if (file.endsWith(".js") || file.endsWith(".js.map")) rmSync(file);
for (const file of filesUnder(staging)) {
  const target = join(dist, relative(staging, file));
  mkdirSync(dirname(target), { recursive: true });
  // A map names its sources relative to its own folder, one level up once it moves.
  if (file.endsWith(".js.map")) {
    const map = JSON.parse(readFileSync(file, "utf8"));
    map.sources = map.sources.map((source) =>
      relative(dirname(target), join(dirname(file), source))
        .split(sep)
        .join("/"),
    );
    writeFileSync(file, JSON.stringify(map));
  }
  rmSync(target, { force: true });
  renameSync(file, target);
}
rmSync(staging, { recursive: true, force: true });
