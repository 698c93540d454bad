// Benchmark of shards and merge (issue 12): four shard runs of a 100,000-case suite exported as
// NDJSON, then, timed, what the last CI job does, through the real CLI: import the four files
// into a fresh store and merge the stored shards, or merge the four files directly. CPU time is
// printed beside wall time: on a shared machine it is the figure that does not depend on load.
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeSuite } from "./cli-suite.mjs";
import { median } from "./stats.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const bin = join(root, "dist/cli/bin.js");
const work = join(here, ".tmp", "merge");

// Reports the child's CPU time (user + system) on exit.
const cpuHook = `data:text/javascript,${encodeURIComponent(
  "process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('\\nBENCH_CPU_US='+(u.userCPUTime+u.systemCPUTime)+'\\n')})",
)}`;

function cli(args) {
  const started = performance.now();
  const child = spawnSync(process.execPath, ["--import", cpuHook, bin, ...args], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, CI: "true" },
    maxBuffer: 64 * 1024 * 1024,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const wallMs = performance.now() - started;
  if (child.status !== 0) {
    throw new Error(
      `niceeval ${args.join(" ")} exited ${child.status}: ${child.stderr.slice(0, 2000)}`,
    );
  }
  const cpu = /BENCH_CPU_US=(\d+)/.exec(child.stderr)?.[1];
  return { wallMs, cpuMs: cpu ? Number(cpu) / 1000 : Number.NaN, stdout: child.stdout };
}

/** Prints the merge figure of issue 12 (median of 3): import + merge of four shard exports. */
export async function run({ quick = false } = {}) {
  const shards = 4;
  const perShard = quick ? 2_500 : 25_000;
  const runs = 3;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const suite = writeSuite(perShard * shards);
  const source = join(work, "shards.sqlite");
  const files = [];
  for (let i = 1; i <= shards; i++) {
    cli([
      "run",
      suite,
      "--quiet",
      "--shard",
      `${i}/${shards}`,
      "--name",
      `shard-${i}`,
      "--store",
      source,
    ]);
    const file = join(work, `shard-${i}.ndjson`);
    cli(["export", `shard-${i}`, "--ndjson", file, "--store", source]);
    files.push(file);
  }
  const bytes = files.reduce((sum, file) => sum + statSync(file).size, 0);

  const pipeline = [];
  const direct = [];
  let attempts = 0;
  for (let i = 0; i < runs; i++) {
    const store = join(work, `merged-${i}.sqlite`);
    const imported = cli(["import", ...files, "--store", store]);
    const names = files.map((_, s) => `shard-${s + 1}`);
    const merged = cli(["merge", ...names, "--name", "all", "--json", "--store", store]);
    pipeline.push({
      wallMs: imported.wallMs + merged.wallMs,
      cpuMs: imported.cpuMs + merged.cpuMs,
    });
    attempts = JSON.parse(merged.stdout).attempts;
    const fresh = join(work, `direct-${i}.sqlite`);
    direct.push(cli(["merge", ...files, "--name", "all", "--store", fresh]));
  }
  const figure = (rows) =>
    `${(median(rows.map((r) => r.wallMs)) / 1000).toFixed(2)} s (CPU ${(median(rows.map((r) => r.cpuMs)) / 1000).toFixed(2)} s)`;
  console.log(
    `merge: ${shards} shard exports of ~${perShard.toLocaleString("en")} cases (${attempts.toLocaleString("en")} attempts, ${(bytes / 2 ** 20).toFixed(0)} MiB of NDJSON): import + merge ${figure(pipeline)}, merge of the files directly ${figure(direct)} (target < 5 s) (median of ${runs})`,
  );
  rmSync(work, { recursive: true, force: true });
}
