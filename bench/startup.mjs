// Benchmark: the whole life of `niceeval run one.eval.ts` for a 1-case TypeScript suite (process
// start, loading niceeval and the TypeScript hooks, the run, exit). Median wall time.
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "./stats.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");

const EVAL = `import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer<string, string>({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });
export const one = defineSuite<string, string>({ id: "one", cases: [{ id: "a", input: "a", expected: "a" }], target: (i) => i, scorers: [same] });
`;

/** Median wall time (ms) of a 1-case `.ts` run; the first run (which fills the compile cache) is not counted. */
export async function run({ quick = false } = {}) {
  const project = join(here, ".tmp", "startup");
  rmSync(project, { recursive: true, force: true });
  mkdirSync(join(project, "node_modules"), { recursive: true });
  symlinkSync(root, join(project, "node_modules", "niceeval"), "dir");
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "startup", type: "module" }));
  writeFileSync(join(project, "one.eval.ts"), EVAL);
  // `store`: the default, the run written to the project's store (which exists after the first
  // run, as it does for a user); otherwise `--no-store`.
  const once = (env = process.env, store = true) => {
    const started = performance.now();
    const result = spawnSync(
      process.execPath,
      [join(root, "dist/cli/bin.js"), "run", "one.eval.ts", ...(store ? [] : ["--no-store"])],
      { cwd: project, encoding: "utf8", env: { ...env, CI: "true" } },
    );
    const wall = performance.now() - started;
    if (result.status !== 0 || !/1 passed/.test(result.stdout))
      throw new Error(`startup bench: the run failed\n${result.stdout}${result.stderr}`);
    return wall;
  };
  once();
  const runs = quick ? 5 : 11;
  // What the run is made of: a bare Node start on this machine, and one that imports the public
  // entries the eval file imports, alternated with the runs so all see the same load.
  const node = (code, env = process.env) => {
    const started = performance.now();
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", code], {
      cwd: project,
      encoding: "utf8",
      env,
    });
    if (result.status !== 0) throw new Error(`startup bench: ${code} failed\n${result.stderr}`);
    return performance.now() - started;
  };
  // NODE_EXTRA_CA_CERTS makes every Node process read and parse that file before it runs any
  // code (a system bundle of 200 KB costs about 45 ms here), and a supervised run starts two
  // processes one after the other: the same runs without it show what the run itself costs.
  const { NODE_EXTRA_CA_CERTS: extraCa, ...withoutCa } = process.env;
  // The floor of any supervised run: a Node process that, as its first act, starts a second one
  // (which does nothing) and exits when it has.
  const pair = `import { spawn } from "node:child_process"; spawn(process.execPath, ["-e", "0"], { stdio: "inherit" }).on("exit", () => process.exit(0));`;
  const walls = [];
  const noStore = [];
  const bare = [];
  const pairs = [];
  const imports = [];
  const plain = { walls: [], noStore: [], bare: [], pairs: [] };
  for (let i = 0; i < runs; i++) {
    walls.push(once());
    noStore.push(once(process.env, false));
    bare.push(node("0"));
    pairs.push(node(pair));
    imports.push(node('await import("niceeval"); await import("niceeval/scorers");'));
    if (extraCa !== undefined) {
      plain.walls.push(once(withoutCa));
      plain.noStore.push(once(withoutCa, false));
      plain.bare.push(node("0", withoutCa));
      plain.pairs.push(node(pair, withoutCa));
    }
  }
  const figure = median(walls);
  const seconds = (ms) => `${(ms / 1000).toFixed(3)} s`;
  console.log(
    `startup, 1-case .ts eval (\`niceeval run one.eval.ts\`, supervised, store on): wall ${seconds(figure)} (median of ${runs}, min ${seconds(Math.min(...walls))}); ` +
      `with --no-store ${seconds(median(noStore))}; ` +
      `a bare \`node\` start ${median(bare).toFixed(0)} ms, one starting a second bare \`node\` and waiting for it (the floor of a supervised run) ${median(pairs).toFixed(0)} ms, one importing niceeval and niceeval/scorers ${median(imports).toFixed(0)} ms`,
  );
  if (extraCa !== undefined) {
    console.log(
      `  the same with NODE_EXTRA_CA_CERTS (${extraCa}) unset: wall ${seconds(median(plain.walls))} (min ${seconds(Math.min(...plain.walls))}), with --no-store ${seconds(median(plain.noStore))}; a bare \`node\` start ${median(plain.bare).toFixed(0)} ms, two in sequence ${median(plain.pairs).toFixed(0)} ms`,
    );
  }
  return { wall: figure, runs };
}
