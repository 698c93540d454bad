// Packaging check (part of `npm test`): pack the package as npm would publish it, lint the
// packed exports (publint, attw), install the tarball into a fresh project and run its bin, and
// type-check seed 001 against the packed types alone (test/fixtures/types-standalone).
import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), "niceeval-pack-"));
const run = (cmd, args, cwd = root) =>
  execFileSync(cmd, args, { cwd, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });

try {
  run("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", work]);
  const tarball = join(
    work,
    readdirSync(work).find((f) => f.endsWith(".tgz")),
  );
  console.log(`packed ${tarball}`);

  // Every file the README links to (docs, images) ships with it.
  const packed = new Set(
    run("tar", ["-tzf", tarball])
      .split("\n")
      .map((entry) => entry.replace(/^package\//, "")),
  );
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const missing = [...readme.matchAll(/\]\(((?!https?:|#)[^)#\s]+)/g)]
    .map((link) => link[1])
    .filter((path) => !packed.has(path));
  if (missing.length > 0)
    throw new Error(`the README links to files the package leaves out: ${missing.join(", ")}`);
  console.log("README links: ok");

  run(join(root, "node_modules/.bin/publint"), ["--strict", tarball]);
  console.log("publint: ok");
  run(join(root, "node_modules/.bin/attw"), [tarball, "--profile", "esm-only", "--no-emoji"]);
  console.log("attw: ok");

  // The published types stand alone: seed 001's code, verbatim, in a project with only
  // typescript and niceeval (no @types/node), strict, skipLibCheck off.
  const typed = join(work, "types-standalone");
  cpSync(join(root, "test/fixtures/types-standalone"), typed, {
    recursive: true,
    filter: (path) => !path.endsWith("biome.json"),
  });
  run(
    "npm",
    [
      "install",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      tarball,
      join(root, "node_modules/typescript"),
    ],
    typed,
  );
  if (existsSync(join(typed, "node_modules/@types/node")))
    throw new Error(
      "types-standalone: @types/node was installed; the check needs a project without it",
    );
  run(join(typed, "node_modules/.bin/tsc"), ["-p", "tsconfig.json"], typed);
  console.log("types-standalone: seed 001 type-checks without @types/node");

  // Older TypeScript setups ("moduleResolution": "node") read no `exports`: the top-level `types`
  // and `typesVersions` give them the entry point and every subpath.
  const node10 = join(typed, "node10");
  mkdirSync(node10);
  writeFileSync(
    join(node10, "entry.ts"),
    `import { defineSuite } from "niceeval";
import { exactMatchTool } from "niceeval/scorers";
import { pattern } from "niceeval/expect";
import { evaluate } from "niceeval/vitest";
import { judgeFromAiSdk } from "niceeval/ai-sdk";
import { openStore } from "niceeval/store";
export const used = [defineSuite, exactMatchTool, pattern, evaluate, judgeFromAiSdk, openStore];
`,
  );
  writeFileSync(
    join(node10, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        moduleResolution: "node",
        module: "commonjs",
        target: "es2022",
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: [],
      },
      files: ["entry.ts"],
    }),
  );
  run(join(typed, "node_modules/.bin/tsc"), ["-p", "node10/tsconfig.json"], typed);
  console.log('types: every entry point resolves with "moduleResolution": "node"');

  // Source maps ship with their sources, so traces (Vitest's too) never point at missing files.
  const installed = join(typed, "node_modules/niceeval/dist");
  const maps = readdirSync(installed, { recursive: true }).filter((f) => f.endsWith(".map"));
  const bare = maps.filter((f) => {
    const map = JSON.parse(readFileSync(join(installed, f), "utf8"));
    return !map.sourcesContent?.every((text) => typeof text === "string");
  });
  if (bare.length) throw new Error(`source maps without their sources: ${bare.join(", ")}`);
  console.log(`source maps: ${maps.length}, each with its sources`);

  const project = join(work, "project");
  mkdirSync(join(project, "evals"), { recursive: true });
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  writeFileSync(
    join(project, "evals", "smoke.eval.ts"),
    `import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer<string, string>({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });
export const smoke = defineSuite<string, string>({ id: "smoke", cases: [{ id: "a", input: "a", expected: "a" }], target: (i) => i, scorers: [same] });
`,
  );
  run(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball],
    project,
  );
  // Install scripts are off, so give better-sqlite3 the native binding this machine already built
  // (the one a user's install would build): the default run writes to the SQLite store.
  cpSync(
    join(root, "node_modules/better-sqlite3/build"),
    join(project, "node_modules/better-sqlite3/build"),
    { recursive: true },
  );
  const out = run(join(project, "node_modules/.bin/niceeval"), ["run"], project);
  if (!/1 passed/.test(out))
    throw new Error(`installed bin did not report the smoke case:\n${out}`);
  const runs = run(join(project, "node_modules/.bin/niceeval"), ["runs", "--json"], project);
  if (JSON.parse(runs).length !== 1) throw new Error(`the run was not stored:\n${runs}`);
  console.log("installed tarball: `niceeval run` passed and stored its run");
} catch (error) {
  console.error(error.stdout ?? "", error.stderr ?? "", error.message);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
