// Store benchmark: N attempts of a 4-scorer deterministic suite (short input and output, like the
// CLI suite's) appended in batches of 256, then bytes per attempt, append throughput, a filtered
// page, a full stream, and `listRuns` over 1,000 runs. Run after `npm run build`:
// node bench/store.mjs [--quick]
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { emptyJudgeUsage, unreportedUsage } from "../dist/eval/record.js";
import { openSqliteStore } from "../dist/store/index.js";
import { median } from "./stats.mjs";

const BATCH = 256;
function judgment(label, source, passed, reason) {
  return {
    label,
    source,
    state: passed ? "matched" : "mismatched",
    gate: true,
    points: 1,
    earned: passed ? 1 : 0,
    value: passed ? 1 : 0,
    reason,
  };
}

/** One attempt as the CLI benchmark's suite records it (output and input kept); 1 in 10 fails. */
function attempt(evalId, i) {
  const passed = i % 10 !== 0;
  return {
    evalId,
    caseId: `case-${i}`,
    trial: 0,
    index: i,
    verdict: passed ? "passed" : "failed",
    score: { state: "complete", earned: passed ? 4 : 3, max: 4, reasons: [] },
    judgments: [
      judgment(
        "exact",
        "eval.exact-match",
        passed,
        passed ? "actual equals expected" : "actual differs from expected",
      ),
      judgment("regex", "eval.regex-match", true, "actual matches /^answer-\\d+$/"),
      judgment(
        "schema",
        "eval.json-schema-valid",
        true,
        "actual is valid against the JSON Schema (draft 2020-12)",
      ),
      judgment("latency", "eval.latency-budget", true, `${i % 7}ms within budget of 10ms`),
    ],
    usage: { app: unreportedUsage(), judge: emptyJudgeUsage() },
    elapsedMs: 0.4 + (i % 97) / 100,
    input: i,
    expected: `answer-${i}`,
    output: { text: `answer-${i}`, latencyMs: i % 7, doc: { id: i, tags: ["a", "b"] } },
  };
}

function manifest(runId, startedAt) {
  return {
    runId,
    tags: { ci: "true" },
    niceevalVersion: "0.1.0",
    nodeVersion: process.version,
    git: {
      commit: "0123456789abcdef",
      branch: runId.endsWith("0") ? "main" : "feature",
      dirty: false,
    },
    command: ["niceeval", "run", "bench/.tmp"],
    files: [{ path: "bench/.tmp/suite.eval.js", hash: "f00d" }],
    evals: [{ evalId: "bench", style: "suite", configHash: "c0ffee", judgeModels: [], trials: 1 }],
    trials: 1,
    concurrency: 8,
    startedAt,
  };
}

const fileBytes = (path) =>
  statSync(path).size + (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);

/** Wall and CPU time of `fn` (CPU too, since a shared machine's load inflates wall time). */
async function timed(fn) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const value = await fn();
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000, value };
}

/** Append `n` attempts to a fresh store; returns the figures of that one run and the store's path. */
async function appendRun(dir, n) {
  const path = join(dir, "store.sqlite");
  const store = await openSqliteStore(path);
  await store.beginRun(manifest("run-big", new Date().toISOString()));
  await store.close();
  const empty = fileBytes(path);
  const again = await openSqliteStore(path);
  const { ms, cpuMs } = await timed(async () => {
    for (let i = 0; i < n; i += BATCH)
      await again.appendAttempts(
        "run-big",
        Array.from({ length: Math.min(BATCH, n - i) }, (_, k) => attempt("bench", i + k)),
      );
  });
  await again.close(); // checkpoints the WAL into the file
  return { path, ms, cpuMs, bytesPerAttempt: (fileBytes(path) - empty) / n };
}

async function listRunsStore(dir, runs) {
  const store = await openSqliteStore(join(dir, "runs.sqlite"));
  for (let r = 0; r < runs; r++) {
    const id = `run-${String(r).padStart(4, "0")}`;
    await store.beginRun(manifest(id, new Date(Date.UTC(2026, 0, 1) + r * 60_000).toISOString()));
    await store.appendAttempts(
      id,
      Array.from({ length: 20 }, (_, i) => attempt("bench", i)),
    );
    await store.finishRun(id, {
      status: "finished",
      endedAt: new Date().toISOString(),
      summaries: [],
    });
  }
  return store;
}

/** Print the figures; `quick` appends 10,000 attempts instead of 100,000. */
export async function run({ quick = false } = {}) {
  const n = quick ? 10_000 : 100_000;
  const repeats = 3;
  const dir = mkdtempSync(join(tmpdir(), "niceeval-bench-store-"));
  try {
    const appends = [];
    for (let r = 0; r < repeats; r++) {
      const sub = join(dir, `append-${r}`);
      appends.push(await appendRun(sub, n));
      if (r < repeats - 1) rmSync(sub, { recursive: true, force: true });
    }
    const label = `store: ${n.toLocaleString("en")} attempts × 4 deterministic scorers`;
    const appendMs = median(appends.map((a) => a.ms));
    console.log(
      `${label}: ${median(appends.map((a) => a.bytesPerAttempt)).toFixed(0)} bytes/attempt (target ≤ 1000), append ${Math.round((n / appendMs) * 1000).toLocaleString("en")} attempts/s in batches of ${BATCH} (${(appendMs / 1000).toFixed(2)} s, CPU ${(median(appends.map((a) => a.cpuMs)) / 1000).toFixed(2)} s, median of ${repeats})`,
    );

    const store = await openSqliteStore(appends.at(-1).path);
    const queries = [
      ["verdict failed", { verdict: "failed" }],
      ["judgment exact mismatched", { judgmentLabel: "exact", judgmentState: "mismatched" }],
      ["all, by score asc", { sort: "score" }],
      ["text 'case-9999'", { text: "case-9999" }],
      ["text 'differs' + failed, by score", { text: "differs", verdict: "failed", sort: "score" }],
      [
        `all, by elapsed desc, offset ${(n / 2).toLocaleString("en")}`,
        { sort: "elapsed", order: "desc", offset: n / 2 },
      ],
    ];
    for (const [name, query] of queries) {
      const samples = [];
      const cpu = [];
      let total = 0;
      for (let r = 0; r < 5; r++) {
        const { ms, cpuMs, value } = await timed(() => store.queryAttempts("run-big", query));
        samples.push(ms);
        cpu.push(cpuMs);
        total = value.total;
      }
      console.log(
        `store: queryAttempts page of 100 at ${n.toLocaleString("en")} attempts, ${name} (${total.toLocaleString("en")} match): ${median(samples).toFixed(1)} ms, CPU ${median(cpu).toFixed(1)} ms (median of 5; target < 100 ms)`,
      );
    }
    const streams = [];
    for (let r = 0; r < repeats; r++) {
      const { ms, value } = await timed(async () => {
        let count = 0;
        for await (const _ of store.streamAttempts("run-big")) count++;
        return count;
      });
      if (value !== n) throw new Error(`streamed ${value} of ${n} attempts`);
      streams.push(ms);
    }
    console.log(
      `store: streamAttempts of ${n.toLocaleString("en")} attempts: ${(median(streams) / 1000).toFixed(2)} s (median of ${repeats}; target < 3 s for show)`,
    );
    await store.close();

    const runsStore = await listRunsStore(dir, 1000);
    for (const [name, query] of [
      ["all 1,000", undefined],
      ["limit 20", { limit: 20 }],
      ["branch main, limit 20", { branch: "main", limit: 20 }],
    ]) {
      const samples = [];
      for (let r = 0; r < 5; r++) samples.push((await timed(() => runsStore.listRuns(query))).ms);
      console.log(
        `store: listRuns with 1,000 runs stored, ${name}: ${median(samples).toFixed(1)} ms (median of 5; target < 200 ms)`,
      );
    }
    await runsStore.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(
    `machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  );
  await run({ quick: process.argv.includes("--quick") });
}
