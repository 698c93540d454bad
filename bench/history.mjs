// Benchmark of the run store through the real CLI: what storing costs a 100,000-case run, how
// much the store grows per attempt, and how fast `compare`, `show` and `runs` answer.
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeSuite } from "./cli-suite.mjs";
import { peakRss } from "./peak-rss.mjs";
import { median } from "./stats.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const bin = join(root, "dist/cli/bin.js");
const work = join(here, ".tmp", "history");

function cli(args, { rss = false } = {}) {
  const started = performance.now();
  const child = spawnSync(
    process.execPath,
    [...(rss ? ["--import", join(here, "rss-hook.mjs")] : []), bin, ...args],
    {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, CI: "true" },
      maxBuffer: 1024 * 1024 * 1024,
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  const wallMs = performance.now() - started;
  if (child.status !== 0 && child.status !== 1) {
    throw new Error(
      `niceeval ${args.join(" ")} exited ${child.status}: ${child.stderr.slice(0, 2000)}`,
    );
  }
  return { wallMs, rssMb: peakRss(child.stderr).total };
}

const fileSize = (path) => {
  let bytes = 0;
  for (const suffix of ["", "-wal"]) {
    try {
      bytes += statSync(path + suffix).size;
    } catch {}
  }
  return bytes;
};

/** Prints the store figures of issue 9 (medians of `runs` runs). */
export async function run({ quick = false } = {}) {
  const n = quick ? 10_000 : 100_000;
  const runs = 3;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const suite = writeSuite(n);
  const label = n.toLocaleString("en");

  const noStore = [];
  const stored = [];
  const sizes = [];
  for (let i = 0; i < runs; i++) {
    noStore.push(cli(["run", suite, "--quiet", "--no-store"], { rss: true }));
    const store = join(work, `size-${i}.sqlite`);
    stored.push(cli(["run", suite, "--quiet", "--store", store], { rss: true }));
    sizes.push(fileSize(store) / n);
  }
  const base = median(noStore.map((s) => s.wallMs));
  const withStore = median(stored.map((s) => s.wallMs));
  console.log(
    `store: ${label} cases, --no-store ${(base / 1000).toFixed(2)} s (peak RSS ${median(noStore.map((s) => s.rssMb)).toFixed(0)} MB), with the SQLite store ${(withStore / 1000).toFixed(2)} s (peak RSS ${median(stored.map((s) => s.rssMb)).toFixed(0)} MB): +${((100 * (withStore - base)) / base).toFixed(0)}% (target ≤ 30%), ${median(sizes).toFixed(0)} bytes per attempt (target ≤ 1,024) (median of ${runs})`,
  );

  // Two runs of the same suite in one store: compare and show read them back.
  const store = join(work, "pair.sqlite");
  cli(["run", suite, "--quiet", "--store", store, "--name", "base"]);
  cli(["run", suite, "--quiet", "--store", store, "--name", "head"]);
  const compare = Array.from({ length: runs }, () =>
    cli(["compare", "base", "head", "--store", store]),
  );
  const show = Array.from({ length: runs }, () => cli(["show", "head", "--store", store]));
  console.log(
    `store: compare of two ${label}-case runs ${(median(compare.map((s) => s.wallMs)) / 1000).toFixed(2)} s (target < 5 s), show of a ${label}-case run ${(median(show.map((s) => s.wallMs)) / 1000).toFixed(2)} s (target < 3 s) (median of ${runs})`,
  );

  // `runs` with 1,000 runs stored: tiny runs, so the list, not the runs, is what is measured.
  const tiny = writeSuite(2);
  const many = join(work, "many.sqlite");
  const { openSqliteStore } = await import(join(root, "dist/store/sqlite/index.js"));
  const { runEvals } = await import(join(root, "dist/runner/run.js"));
  const { storeSink } = await import(join(root, "dist/store/sink.js"));
  const { loadEvalFiles } = await import(join(root, "dist/cli/load.js"));
  const loaded = await loadEvalFiles([tiny], root);
  const db = await openSqliteStore(many);
  for (let i = 0; i < 1000; i++) {
    const runId = `bench-run-${String(i).padStart(4, "0")}`;
    const manifest = {
      runId,
      name: `run ${i}`,
      tags: {},
      niceevalVersion: "bench",
      nodeVersion: process.version,
      command: [],
      files: [],
      evals: loaded.entries.map((e) => ({
        evalId: e.eval.id,
        style: e.eval.style,
        configHash: "x",
        judgeModels: [],
        trials: 1,
      })),
      trials: 1,
      concurrency: 8,
      startedAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
    };
    await runEvals(loaded.entries, { runId, reporters: [storeSink(db, manifest)], keepCase: true });
  }
  await db.close();
  const list = Array.from({ length: 5 }, () => cli(["runs", "--store", many]));
  console.log(
    `store: runs with 1,000 runs stored ${median(list.map((s) => s.wallMs)).toFixed(0)} ms for the whole command (target < 200 ms) (median of 5)`,
  );
}
