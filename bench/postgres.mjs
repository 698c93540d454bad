// PostgreSQL store benchmark, on a real server started on loopback (test/support/postgres.ts,
// durable: fsync and synchronous commit on): N attempts of the 4-scorer suite of the store tests
// appended in batches of 256, against SQLite on the same workload in the same process; four
// writers appending to one run at once; queries, a full stream and listRuns over 1,000 runs.
// Run after `npm run build`: node bench/postgres.mjs [--quick]

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";
import { openPostgresStore, openSqliteStore } from "../dist/store/index.js";
import { writeSuite } from "./cli-suite.mjs";
import { median } from "./stats.mjs";

register();
const { startPostgres } = await import("../test/support/postgres.ts");
const { attempt, manifest } = await import("../test/store/fixtures.ts");

const BATCH = 256;
const repeats = 3;
const fmt = (n) => Math.round(n).toLocaleString("en");

async function timed(fn) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const value = await fn();
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000, value };
}

/** Append attempts `from`…`to` of run `runId`, in batches. */
async function append(store, runId, from, to) {
  for (let i = from; i < to; i += BATCH)
    await store.appendAttempts(
      runId,
      Array.from({ length: Math.min(BATCH, to - i) }, (_, k) =>
        attempt("alpha", i + k, { verdict: (i + k) % 10 === 0 ? "failed" : "passed" }),
      ),
    );
}

async function appendOnce(open, runId, n) {
  const store = await open();
  await store.beginRun(manifest(runId));
  const figures = await timed(() => append(store, runId, 0, n));
  return { store, ...figures };
}

/** Print the figures; `quick` appends 10,000 attempts instead of 100,000. */
export async function run({ quick = false } = {}) {
  const n = quick ? 10_000 : 100_000;
  const server = await startPostgres({ durable: true });
  const dir = mkdtempSync(join(tmpdir(), "niceeval-bench-pg-"));
  try {
    const label = `postgres store: ${n.toLocaleString("en")} attempts × 4 deterministic scorers`;
    const pg = [];
    const lite = [];
    let pgUrl = "";
    for (let r = 0; r < repeats; r++) {
      pgUrl = await server.createDatabase(`bench_${r}`);
      const p = await appendOnce(() => openPostgresStore(pgUrl), "run-big", n);
      if (r < repeats - 1) await p.store.close();
      else pg.store = p.store;
      pg.push(p);
      const s = await appendOnce(() => openSqliteStore(join(dir, `s${r}.sqlite`)), "run-big", n);
      await s.store.close();
      lite.push(s);
    }
    const pgMs = median(pg.map((a) => a.ms));
    const liteMs = median(lite.map((a) => a.ms));
    console.log(
      `${label}: append ${fmt((n / pgMs) * 1000)} attempts/s in batches of ${BATCH} (${(pgMs / 1000).toFixed(2)} s, client CPU ${(median(pg.map((a) => a.cpuMs)) / 1000).toFixed(2)} s); SQLite on the same workload ${(liteMs / 1000).toFixed(2)} s: PostgreSQL costs ${(((pgMs - liteMs) / liteMs) * 100).toFixed(0)}% more (target ≤ 50%; median of ${repeats})`,
    );

    // The figure: the 100,000-case CLI benchmark written to each store, end to end.
    const suite = writeSuite(n);
    const cli = (args) => {
      const started = performance.now();
      const child = spawnSync(
        process.execPath,
        [
          join(fileURLToPath(new URL("..", import.meta.url)), "dist/cli/bin.js"),
          "run",
          suite,
          "--quiet",
          ...args,
        ],
        {
          stdio: ["ignore", "ignore", "pipe"],
          encoding: "utf8",
          env: { ...process.env, CI: "true" },
        },
      );
      if (child.status !== 0)
        throw new Error(`niceeval run ${args.join(" ")}: ${child.stderr.slice(0, 1000)}`);
      return performance.now() - started;
    };
    const cliRuns = { postgres: [], sqlite: [], none: [] };
    for (let r = 0; r < repeats; r++) {
      cliRuns.postgres.push(cli(["--store", await server.createDatabase(`cli_${r}`)]));
      cliRuns.sqlite.push(cli(["--store", join(dir, `cli-${r}.sqlite`)]));
      cliRuns.none.push(cli(["--no-store"]));
    }
    const [pgRun, liteRun, noneRun] = [cliRuns.postgres, cliRuns.sqlite, cliRuns.none].map(median);
    console.log(
      `postgres store: the ${n.toLocaleString("en")}-case CLI run with --store postgres:// ${(pgRun / 1000).toFixed(2)} s, with SQLite ${(liteRun / 1000).toFixed(2)} s, --no-store ${(noneRun / 1000).toFixed(2)} s: the run takes ${(((pgRun - liteRun) / liteRun) * 100).toFixed(0)}% longer on PostgreSQL than on SQLite (target ≤ 50%; median of ${repeats})`,
    );

    const store = pg.store;
    for (const [name, query] of [
      ["verdict failed", { verdict: "failed" }],
      ["judgment exact mismatched", { judgmentLabel: "exact", judgmentState: "mismatched" }],
      ["all, by score asc", { sort: "score" }],
      ["text 'case-9999'", { text: "case-9999" }],
      [
        `all, by elapsed desc, offset ${fmt(n / 2)}`,
        { sort: "elapsed", order: "desc", offset: n / 2 },
      ],
    ]) {
      const samples = [];
      let total = 0;
      for (let r = 0; r < 5; r++) {
        const { ms, value } = await timed(() => store.queryAttempts("run-big", query));
        samples.push(ms);
        total = value.total;
      }
      console.log(
        `postgres store: queryAttempts page of 100 at ${fmt(n)} attempts, ${name} (${fmt(total)} match): ${median(samples).toFixed(1)} ms (median of 5)`,
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
      `postgres store: streamAttempts of ${fmt(n)} attempts: ${(median(streams) / 1000).toFixed(2)} s (median of ${repeats}, pages of 1,000)`,
    );
    await store.close();

    // Four writers (each its own pool, as four processes would be) share one run.
    const writers = 4;
    const sharedUrl = await server.createDatabase("bench_shared");
    const stores = await Promise.all(
      Array.from({ length: writers }, () => openPostgresStore(sharedUrl)),
    );
    for (const s of stores) await s.beginRun(manifest("shared"), { join: true });
    const shared = await timed(() =>
      Promise.all(
        stores.map((s, w) => append(s, "shared", (w * n) / writers, ((w + 1) * n) / writers)),
      ),
    );
    const totals = (await stores[0].getRun("shared")).totals;
    if (totals.attempts !== n) throw new Error(`shared run holds ${totals.attempts} of ${n}`);
    console.log(
      `postgres store: ${writers} writers appending ${fmt(n / writers)} attempts each to one run: ${fmt((n / shared.ms) * 1000)} attempts/s (${(shared.ms / 1000).toFixed(2)} s, one run)`,
    );
    await Promise.all(stores.map((s) => s.close()));

    const runsUrl = await server.createDatabase("bench_runs");
    const runs = await openPostgresStore(runsUrl);
    for (let r = 0; r < 1000; r += 50)
      await Promise.all(
        Array.from({ length: 50 }, async (_, k) => {
          const id = `run-${String(r + k).padStart(4, "0")}`;
          const m = manifest(id, {
            startedAt: new Date(Date.UTC(2026, 0, 1) + (r + k) * 60_000).toISOString(),
            branch: (r + k) % 2 ? "feature" : "main",
          });
          await runs.beginRun(m);
          await runs.appendAttempts(
            id,
            Array.from({ length: 20 }, (_, i) => attempt("alpha", i)),
          );
        }),
      );
    for (const [name, query] of [
      ["all 1,000", undefined],
      ["limit 20", { limit: 20 }],
      ["branch main, limit 20", { branch: "main", limit: 20 }],
    ]) {
      const samples = [];
      for (let r = 0; r < 5; r++) samples.push((await timed(() => runs.listRuns(query))).ms);
      console.log(
        `postgres store: listRuns with 1,000 runs stored, ${name}: ${median(samples).toFixed(1)} ms (median of 5; target < 200 ms)`,
      );
    }
    await runs.close();
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(
    `machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  );
  await run({ quick: process.argv.includes("--quick") });
}
