// Build step after tsc: bundles the compiled modules of dist/ into a few shared chunks, so that
// starting the CLI, an eval process or `import "niceeval"` reads a few dozen files instead of a
// few hundred (on Node 20 each ES module file costs a read, a compile and a link). Every module
// file that something loads by path is an entry: the package's exports, the processes, threads
// and hooks it starts, and the internal modules that the benchmarks and tests load from the
// build. Shared chunks keep one instance of each module across entries. Declarations (.d.ts)
// are tsc's, untouched.
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const staging = join(dist, ".bundle");

const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const exported = Object.values(pkg.exports)
  .map((target) => (typeof target === "string" ? target : target.import))
  .filter((target) => target?.endsWith(".js"));
const entries = [
  ...exported.map((target) => target.replace(/^\.\/dist\//, "")),
  // Started by path: the CLI, the eval process, the store's append thread, the TypeScript hooks.
  "cli/bin.js",
  "supervisor/child.js",
  "store/sqlite/append-worker.js",
  "cli/ts-hooks.js",
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

// Dependencies are loaded from node_modules, except zod, whose 95 module files would be read at
// every start: it is bundled (zod recognises its schemas by their traits, not by the copy that
// made them, so a user's schemas and ours still work together); and the JSON Schema validator
// (@hyperjump/json-schema and what it imports, about 60 files, loaded on the first schema):
// its registry is its own either way, so a user's copy and ours never shared it.
const bundled = new Set(["zod", "@hyperjump/json-schema"]);
const external = Object.keys({
  ...pkg.dependencies,
  ...pkg.peerDependencies,
  ...pkg.optionalDependencies,
})
  .filter((name) => !bundled.has(name))
  .flatMap((name) => [name, `${name}/*`]);

rmSync(staging, { recursive: true, force: true });
const { metafile } = await build({
  entryPoints: Object.fromEntries(
    [...new Set(entries)].map((entry) => [entry.replace(/\.js$/, ""), join(dist, entry)]),
  ),
  outdir: staging,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external,
  chunkNames: "chunks/[name]-[hash]",
  sourcemap: true,
  metafile: true,
  logLevel: "warning",
});
writeThirdPartyLicenses(Object.keys(metafile.inputs));

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
    const dir = join(root, folder);
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
