// Benchmark: N cases × 4 deterministic scorers with a trivial target, through the real CLI.
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { peakRss } from "./peak-rss.mjs";
import { median } from "./stats.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const work = join(here, ".tmp");

/**
 * The suite's file. `asyncTarget`: its target is an async function that resolves at once, as a
 * mock or a cache answers (its attempts do not answer synchronously).
 */
export function writeSuite(n, { asyncTarget = false } = {}) {
  mkdirSync(work, { recursive: true });
  const file = join(work, `suite-${n}${asyncTarget ? "-async" : ""}.eval.js`);
  writeFileSync(
    file,
    `import { bindScorer, defineSuite } from "niceeval";
import { evalScorersProvider, exactMatchTool, jsonSchemaValidTool, latencyBudgetTool, regexMatchTool } from "niceeval/scorers";
const schema = { type: "object", required: ["id", "tags"], properties: { id: { type: "integer" }, tags: { type: "array", items: { type: "string" } } } };
export const bench = defineSuite({
  id: "bench-${n}",
  cases: function* () { for (let i = 0; i < ${n}; i++) yield { id: "case-" + i, input: i, expected: "answer-" + i }; },
  target: ${asyncTarget ? "async " : ""}(i) => ({ text: "answer-" + i, latencyMs: i % 7, doc: { id: i, tags: ["a", "b"] } }),
  scorers: [
    bindScorer({ id: "exact", tool: exactMatchTool, driver: evalScorersProvider, mapInput: ({ output, expected }) => ({ actual: output.text, expected }) }),
    bindScorer({ id: "regex", tool: regexMatchTool, driver: evalScorersProvider, mapInput: ({ output }) => ({ actual: output.text, pattern: "^answer-\\\\d+$" }) }),
    bindScorer({ id: "schema", tool: jsonSchemaValidTool, driver: evalScorersProvider, mapInput: ({ output }) => ({ actual: output.doc, schema }) }),
    bindScorer({ id: "latency", tool: latencyBudgetTool, driver: evalScorersProvider, mapInput: ({ output }) => ({ durationMs: output.latencyMs, budgetMs: 10 }) }),
  ],
});
`,
  );
  return file;
}

/**
 * One CLI run with a fresh store. `piped`: the report goes through a shell pipe into `cat`, as
 * `niceeval run | tee log` in CI does, instead of straight to /dev/null. `inProcess`: with
 * `--no-supervise`, the engine and the attempts in the CLI's process alone. `apiKey`: with
 * OPENAI_API_KEY set, as in a developer's shell (no judge is called).
 */
function runOnce(file, { piped = false, inProcess = false, apiKey = false } = {}) {
  // Each run writes to a store of its own, as a first run does: a store that kept every earlier
  // benchmark run would make each run slower than the one before.
  const store = join(work, "cli-suite-store", "run.sqlite");
  rmSync(dirname(store), { recursive: true, force: true });
  const args = [
    "--import",
    join(here, "rss-hook.mjs"),
    join(root, "dist/cli/bin.js"),
    "run",
    file,
    "--quiet",
    "--store",
    store,
    ...(inProcess ? ["--no-supervise"] : []),
  ];
  const quoted = [process.execPath, ...args].map((a) => `'${a}'`).join(" ");
  const started = performance.now();
  const [command, argv] = piped
    ? ["bash", ["-c", `set -o pipefail; ${quoted} | cat > /dev/null`]]
    : [process.execPath, args];
  const child = spawnSync(command, argv, {
    cwd: root,
    encoding: "utf8",
    env: runEnv(apiKey),
    maxBuffer: 1024 * 1024 * 1024,
    stdio: ["ignore", "ignore", "pipe"],
  });
  const wallMs = performance.now() - started;
  rmSync(dirname(store), { recursive: true, force: true });
  if (child.status !== 0)
    throw new Error(`CLI exited ${child.status}: ${child.stderr.slice(0, 2000)}`);
  return { wallMs, rss: peakRss(child.stderr) };
}

// bench/run.mjs leaves no judge named by the environment; `apiKey` names one.
function runEnv(apiKey) {
  const env = { ...process.env, CI: "true" };
  if (apiKey) env.OPENAI_API_KEY = "sk-bench-never-called";
  return env;
}

/** Median peak RSS of the CLI, of its eval process and of both, MB. */
function medianRss(samples) {
  return {
    cli: median(samples.map((s) => s.rss.cli)),
    eval: median(samples.map((s) => s.rss.eval)),
    total: median(samples.map((s) => s.rss.total)),
  };
}

export function benchCliSuite({ sizes = [10_000, 100_000], runs = 3 } = {}) {
  const rows = [];
  for (const n of sizes) {
    const file = writeSuite(n);
    const samples = Array.from({ length: runs }, () => runOnce(file));
    rows.push({
      name: `suite: ${n.toLocaleString("en")} cases × 4 deterministic scorers (CLI, report to /dev/null)`,
      wall: median(samples.map((s) => s.wallMs)),
      rss: medianRss(samples),
      runs,
    });
  }
  // The largest again, each variant alternated with the default run so both see the same machine:
  // the report piped; in one process (`--no-supervise`: what the engine costs, and what supervision
  // adds to it); with an API key in the environment, as a developer's shell has (a suite of
  // deterministic tools calls no judge either way).
  const n = sizes.at(-1);
  const file = writeSuite(n);
  const seconds = (samples) => (median(samples.map((s) => s.wallMs)) / 1000).toFixed(2);
  const variants = [
    [{ piped: true }, "report piped through cat; to /dev/null alternated: %s"],
    [{ inProcess: true }, "--no-supervise, report to /dev/null; supervised alternated: %s"],
    [{ apiKey: true }, "OPENAI_API_KEY set, report to /dev/null; without it alternated: %s"],
  ];
  for (const [options, label] of variants) {
    const variant = [];
    const plain = [];
    for (let i = 0; i < runs; i++) {
      variant.push(runOnce(file, options));
      plain.push(runOnce(file));
    }
    const alternated = `${seconds(plain)} s, ${median(plain.map((s) => s.rss.total)).toFixed(0)} MB`;
    rows.push({
      name: `suite: ${n.toLocaleString("en")} cases × 4 deterministic scorers (CLI, ${label.replace("%s", alternated)})`,
      wall: median(variant.map((s) => s.wallMs)),
      rss: medianRss(variant),
      runs,
    });
  }
  return rows;
}
