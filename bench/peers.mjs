// Benchmark: the same 1,000-case eval (4 deterministic scorers, a trivial target) run by niceeval
// and by evalite 0.19, each through its own CLI with its default storage (a fresh store for both),
// alternated in one run. evalite is installed from the npm registry into bench/.tmp/peers the
// first time, in a folder of its own (its better-sqlite3 builds from source there: about a minute).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "./stats.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const peers = join(here, ".tmp", "peers", "evalite");
const CASES = 1000;
const EVALITE = "0.19.0";

// The four scorers, written the same way for both tools.
const checks = {
  exact: "output.text === expected",
  regex: "/^answer-\\d+$/.test(output.text)",
  schema:
    'Number.isInteger(output.doc.id) && Array.isArray(output.doc.tags) && output.doc.tags.every((t) => typeof t === "string")',
  latency: "output.latencyMs <= 10",
};
// biome-ignore lint/suspicious/noTemplateCurlyInString: the target's source, written into both eval files
const target = "({ text: `answer-${i}`, latencyMs: i % 7, doc: { id: i, tags: ['a', 'b'] } })";

const niceevalFile = `import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
${Object.entries(checks)
  .map(
    ([name, check]) =>
      `const ${name} = createScorer<number, any, string>({ name: "${name}", score: ({ output, expected }) => ({ score: ${check} ? 1 : 0 }) });`,
  )
  .join("\n")}
export const peers = defineSuite<number, any, string>({
  id: "peers",
  cases: Array.from({ length: ${CASES} }, (_, i) => ({ id: \`case-\${i}\`, input: i, expected: \`answer-\${i}\` })),
  target: async (i) => ${target},
  scorers: [${Object.keys(checks).join(", ")}],
});
`;

const evaliteFile = `import { createScorer, evalite } from "evalite";
${Object.entries(checks)
  .map(
    ([name, check]) =>
      `const ${name} = createScorer<number, any, string>({ name: "${name}", scorer: ({ output, expected }) => (${check} ? 1 : 0) });`,
  )
  .join("\n")}
evalite("peers", {
  data: async () => Array.from({ length: ${CASES} }, (_, i) => ({ input: i, expected: \`answer-\${i}\` })),
  task: async (i) => ${target},
  scorers: [${Object.keys(checks).join(", ")}],
});
`;

/** Install evalite once; undefined when it is there, else why it could not be. */
function installPeers() {
  if (existsSync(join(peers, "node_modules", "evalite", "package.json"))) return undefined;
  mkdirSync(peers, { recursive: true });
  writeFileSync(
    join(peers, "package.json"),
    JSON.stringify({ name: "peers", private: true, type: "module" }),
  );
  const install = spawnSync(
    "npm",
    ["install", "--no-audit", "--no-fund", `evalite@${EVALITE}`, "vitest@4.1.12"],
    { cwd: peers, encoding: "utf8" },
  );
  if (install.status !== 0)
    return `npm install evalite@${EVALITE} failed: ${install.stderr.slice(-300)}`;
  return undefined;
}

function timed(command, args, cwd, fresh) {
  rmSync(join(cwd, fresh), { recursive: true, force: true });
  const started = performance.now();
  const result = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, CI: "true" },
  });
  const wall = performance.now() - started;
  if (result.status !== 0)
    throw new Error(
      `peers bench: ${command} ${args.join(" ")} failed\n${result.stdout.slice(-500)}${result.stderr.slice(-500)}`,
    );
  return wall;
}

export async function run({ quick = false } = {}) {
  if (quick) return;
  const skipped = installPeers();
  if (skipped) {
    console.log(`peers, ${CASES} cases: skipped (${skipped})`);
    return;
  }
  const project = join(peers, "..", "niceeval");
  mkdirSync(join(project, "node_modules"), { recursive: true });
  if (!existsSync(join(project, "node_modules", "niceeval")))
    symlinkSync(root, join(project, "node_modules", "niceeval"), "dir");
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "peers-niceeval", type: "module" }),
  );
  writeFileSync(join(project, "peers.eval.ts"), niceevalFile);
  writeFileSync(join(peers, "peers.eval.ts"), evaliteFile);
  // A config of its own, so that Vitest under evalite does not read this repository's.
  writeFileSync(join(peers, "vitest.config.mjs"), "export default {};\n");
  const niceeval = () =>
    timed(
      process.execPath,
      [join(root, "dist/cli/bin.js"), "run", "peers.eval.ts", "--quiet"],
      project,
      ".niceeval",
    );
  const evalite = () =>
    timed(
      process.execPath,
      [join(peers, "node_modules", "evalite", "dist", "bin.js"), "run", "--hideTable"],
      peers,
      "node_modules/.evalite",
    );
  // A first run of each fills the compile caches.
  niceeval();
  evalite();
  const runs = 5;
  const ours = [];
  const theirs = [];
  for (let i = 0; i < runs; i++) {
    ours.push(niceeval());
    theirs.push(evalite());
  }
  const a = median(ours);
  const b = median(theirs);
  console.log(
    `peers, ${CASES} cases × 4 deterministic scorers, each CLI with a fresh store: niceeval ${(a / 1000).toFixed(3)} s, evalite ${EVALITE} ${(b / 1000).toFixed(3)} s: ${(b / a).toFixed(1)}× (medians of ${runs} alternated runs)`,
  );
  return { niceeval: a, evalite: b };
}
