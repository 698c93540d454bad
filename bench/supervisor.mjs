// Benchmark: what supervision costs. (1) The cli-suite benchmark (N cases × 4 deterministic
// scorers, trivial target) through the real CLI, supervised and `--no-supervise`, alternated so
// both see the same load; CPU is user+sys of the CLI and its eval process (each also shown), the
// steadier figure on a shared machine; "waiting" is the time each process's event loop had
// nothing to do (the two should rarely wait for each other). (2) How long a crashed eval process
// takes to be replaced: from the crash to the first attempt the new one finishes (told by the
// pid its scorer reports: records the crashed process ran ahead still come after the crash).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { writeSuite } from "./cli-suite.mjs";
import { median } from "./stats.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const work = join(here, ".tmp", "supervisor");

// Each process of the run (the CLI, its eval process) appends on exit: which one, its CPU time
// (µs) and how long its event loop waited with nothing to do (ms).
const CPU_HOOK = `data:text/javascript,${encodeURIComponent(
  `import { appendFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
process.on("exit", () => { const u = process.cpuUsage(); const loop = performance.eventLoopUtilization(); appendFileSync(process.env.BENCH_CPU_FILE, (process.send ? "eval" : "cli") + " " + (u.user + u.system) + " " + loop.idle + "\\n"); });`,
)}`;

function runCli(file, supervise) {
  const cpuFile = join(work, `cpu-${process.pid}.txt`);
  rmSync(cpuFile, { force: true });
  const started = performance.now();
  const child = spawnSync(
    process.execPath,
    [
      "--import",
      CPU_HOOK,
      join(root, "dist/cli/bin.js"),
      "run",
      file,
      "--quiet",
      "--no-store",
      ...(supervise ? [] : ["--no-supervise"]),
    ],
    {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, CI: "true", BENCH_CPU_FILE: cpuFile },
      stdio: ["ignore", "ignore", "pipe"],
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const wallMs = performance.now() - started;
  if (child.status !== 0)
    throw new Error(`CLI exited ${child.status}: ${child.stderr.slice(0, 2000)}`);
  const byProcess = { cli: { cpuMs: 0, idleMs: 0 }, eval: { cpuMs: 0, idleMs: 0 } };
  for (const line of readFileSync(cpuFile, "utf8").trim().split("\n")) {
    const [which, cpuUs, idleMs] = line.split(" ");
    byProcess[which].cpuMs += Number(cpuUs) / 1000;
    byProcess[which].idleMs += Number(idleMs);
  }
  return {
    wallMs,
    cpuMs: byProcess.cli.cpuMs + byProcess.eval.cpuMs,
    cliCpuMs: byProcess.cli.cpuMs,
    evalCpuMs: byProcess.eval.cpuMs,
    cliIdleMs: byProcess.cli.idleMs,
    evalIdleMs: byProcess.eval.idleMs,
  };
}

const CRASH_SUITE = (marker, n, at) => `import { existsSync, writeFileSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output.i === expected ? 1 : 0, metadata: { pid: output.pid } }) });
export const crash = defineSuite({
  id: "crash-once",
  cases: function* () { for (let i = 0; i < ${n}; i++) yield { id: "case-" + i, input: i, expected: i }; },
  target: (i) => {
    // The first time this case runs, the eval process dies; its rerun in the new one passes.
    if (i === ${at} && !existsSync(${JSON.stringify(marker)})) {
      writeFileSync(${JSON.stringify(marker)}, Date.now() + " " + process.pid);
      process.exit(1);
    }
    // Which eval process ran it: records the crashed one ran ahead still come after the crash.
    return { i, pid: process.pid };
  },
  scorers: [same],
});
`;

/** One supervised run whose eval process exits mid-run: crash → detected → next attempt done, ms. */
async function crashOnce(index) {
  const [{ loadEvalFiles }, { runEvals }, { supervisedExecutor }] = await Promise.all([
    import(pathToFileURL(join(root, "dist/cli/load.js")).href),
    import(pathToFileURL(join(root, "dist/runner/run.js")).href),
    import(pathToFileURL(join(root, "dist/supervisor/index.js")).href),
  ]);
  const marker = join(work, `crashed-${index}.txt`);
  const file = join(work, `crash-${index}.eval.js`);
  rmSync(marker, { force: true });
  writeFileSync(file, CRASH_SUITE(marker, 2000, 1000));
  const loaded = await loadEvalFiles([file], root);
  let detectedAt;
  let nextAt;
  let crashedPid;
  const executor = supervisedExecutor({
    files: [file],
    cwd: root,
    start: true,
    stderr: (text) => {
      if (detectedAt === undefined && /starting a new eval process/.test(text))
        detectedAt = Date.now();
    },
  });
  try {
    const summary = await runEvals(loaded.entries, {
      executor,
      reporters: [
        {
          onAttemptFinished: (record) => {
            if (nextAt !== undefined || detectedAt === undefined) return;
            crashedPid ??= Number(readFileSync(marker, "utf8").split(" ")[1]);
            if (record.judgments[0]?.detail?.pid !== crashedPid) nextAt = Date.now();
          },
        },
      ],
    });
    if (summary.totals.passed !== 2000)
      throw new Error("crash bench: not every case passed after the crash");
  } finally {
    await executor.close();
  }
  const crashedAt = Number(readFileSync(marker, "utf8").split(" ")[0]);
  return { detectMs: detectedAt - crashedAt, nextMs: nextAt - crashedAt };
}

/** Supervised and in-process runs of `file`, alternated: each one's median figures. */
function compare(file, runs) {
  const samples = { supervised: [], inProcess: [] };
  for (let i = 0; i < runs; i++) {
    samples.supervised.push(runCli(file, true));
    samples.inProcess.push(runCli(file, false));
  }
  const fig = (list, key) => median(list.map((s) => s[key]));
  return {
    sup: {
      wall: fig(samples.supervised, "wallMs"),
      cpu: fig(samples.supervised, "cpuMs"),
      cliCpu: fig(samples.supervised, "cliCpuMs"),
      evalCpu: fig(samples.supervised, "evalCpuMs"),
      cliIdle: fig(samples.supervised, "cliIdleMs"),
      evalIdle: fig(samples.supervised, "evalIdleMs"),
    },
    inp: { wall: fig(samples.inProcess, "wallMs"), cpu: fig(samples.inProcess, "cpuMs") },
  };
}

/** Supervised vs in-process at 100,000 cases (10,000 with quick), and the replacement time. */
export async function run({ quick = false, crashOnly = false } = {}) {
  mkdirSync(work, { recursive: true });
  const n = quick ? 10_000 : 100_000;
  const runs = quick ? 3 : 5;
  const pct = (a, b) => `${a >= b ? "+" : ""}${(((a - b) / b) * 100).toFixed(0)}%`;
  const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
  const results = {};
  // A synchronous target, then one that answers through a promise resolved at once (a mock, a
  // cache): its records cross in batches too, though each attempt ends a turn later.
  for (const asyncTarget of crashOnly ? [] : [false, true]) {
    const { sup, inp } = compare(writeSuite(n, { asyncTarget }), runs);
    results[asyncTarget ? "async" : "sync"] = { supervised: sup, inProcess: inp };
    console.log(
      `supervisor, suite of ${n.toLocaleString("en")} cases × 4 deterministic scorers, ${asyncTarget ? "async target" : "synchronous target"} (CLI, --quiet --no-store, concurrency 8, ${cpus().length} cores): ` +
        `supervised CPU ${s(sup.cpu)} (CLI ${s(sup.cliCpu)}, eval process ${s(sup.evalCpu)}) vs --no-supervise ${s(inp.cpu)} (${pct(sup.cpu, inp.cpu)}), ` +
        `wall ${s(sup.wall)} vs ${s(inp.wall)} (${pct(sup.wall, inp.wall)}); waiting: CLI ${s(sup.cliIdle)}, eval process ${s(sup.evalIdle)}; ` +
        `CPU is user+sys of every process, median of ${runs} alternated runs each`,
    );
  }
  const crashes = [];
  for (let i = 0; i < runs; i++) crashes.push(await crashOnce(i));
  console.log(
    `supervisor, a crashed eval process (process.exit in a target, 2,000-case run): detected ${median(crashes.map((c) => c.detectMs)).toFixed(0)} ms after the crash, ` +
      `first attempt finished by the new eval process ${median(crashes.map((c) => c.nextMs)).toFixed(0)} ms after it (median of ${runs}; max ${Math.max(...crashes.map((c) => c.nextMs)).toFixed(0)} ms)`,
  );
  if (existsSync(work)) rmSync(work, { recursive: true, force: true });
  return { ...results.sync, async: results.async, crashes };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  // --crash: only the replacement time.
  await run({
    quick: process.argv.includes("--quick"),
    crashOnly: process.argv.includes("--crash"),
  });
}
