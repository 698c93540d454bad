// Benchmark of --resume (issue 10): a 100,000-case run SIGKILLed (the whole process group) once
// half its attempts are stored, then `niceeval run --resume`, timed from its spawn to the first
// attempt that runs (the suite's target writes the time of its first call to a file), and to its
// end. Each sample resumes a copy of the same killed store. Target: first new attempt < 3 s.
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "./stats.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const bin = join(root, "dist/cli/bin.js");
const work = join(here, ".tmp", "resume");
const Database = createRequire(import.meta.url)("better-sqlite3");

function writeSuite(n) {
  mkdirSync(work, { recursive: true });
  const file = join(work, `resume-${n}.eval.js`);
  writeFileSync(
    file,
    `import { writeFileSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });
let first = true;
export const resumed = defineSuite({
  id: "resume-${n}",
  cases: function* () { for (let i = 0; i < ${n}; i++) yield { id: "case-" + i, input: i, expected: i % 10 === 0 ? -1 : i }; },
  target: (i) => {
    if (first && process.env.BENCH_FIRST_ATTEMPT) { first = false; writeFileSync(process.env.BENCH_FIRST_ATTEMPT, String(Date.now())); }
    return i;
  },
  scorers: [same],
});
`,
  );
  return file;
}

const stored = (path) => {
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      return db.prepare("SELECT count(*) AS n FROM attempts").get().n;
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
};

function start(args, env = {}) {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: root,
    detached: true,
    env: { ...process.env, CI: "true", ...env },
    stdio: "ignore",
  });
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited };
}

/** A store holding a run of `file` SIGKILLed once `half` attempts were stored. */
async function killedStore(file, store, half) {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(store + suffix, { force: true });
  const { child, exited } = start(["run", file, "--quiet", "--store", store]);
  while (stored(store) < half) await new Promise((r) => setTimeout(r, 20));
  process.kill(-child.pid, "SIGKILL");
  await exited;
  // One file to copy per sample: the WAL folded in.
  const db = new Database(store);
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  return stored(store);
}

async function resumeOnce(killed, n) {
  const store = join(work, "sample.sqlite");
  const mark = join(work, "first-attempt");
  for (const path of [store, `${store}-wal`, `${store}-shm`, mark]) rmSync(path, { force: true });
  copyFileSync(killed, store);
  const spawned = Date.now();
  const { exited } = start(["run", "--resume", "--quiet", "--store", store], {
    BENCH_FIRST_ATTEMPT: mark,
  });
  const code = await exited;
  const endMs = Date.now() - spawned;
  if (code !== 0 && code !== 1) throw new Error(`niceeval run --resume exited ${code}`);
  if (!existsSync(mark)) throw new Error("the resumed run ran no attempt");
  const attempts = stored(store);
  if (attempts !== n) throw new Error(`the resumed run holds ${attempts} attempts, not ${n}`);
  return { firstMs: Number(readFileSync(mark, "utf8")) - spawned, endMs };
}

export async function run({ quick = false } = {}) {
  const n = quick ? 20_000 : 100_000;
  const runs = 3;
  const file = writeSuite(n);
  const killed = join(work, "killed.sqlite");
  const kept = await killedStore(file, killed, n / 2);
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push(await resumeOnce(killed, n));
  const first = median(samples.map((s) => s.firstMs)) / 1000;
  const end = median(samples.map((s) => s.endMs)) / 1000;
  console.log(
    `resume: ${n.toLocaleString("en")}-case run SIGKILLed with ${kept.toLocaleString("en")} attempts stored, then --resume: first new attempt after ${first.toFixed(2)} s (target < 3 s), run finished after ${end.toFixed(2)} s (median of ${runs}; each sample ${samples.map((s) => (s.firstMs / 1000).toFixed(2)).join(" / ")} s)`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`)
  await run({ quick: process.argv.includes("--quick") });
