// A child process for the concurrent-writers test: joins one run and writes every key of it
// (evals alpha and beta, N/4 cases, trials 0 and 1) in the same order, in batches of 50, from the
// same moment on: writer "a" with passed attempts, writer "b" with failed ones.
// node --import tsx test/store/postgres-writer.ts <url> <run id> <a|b> <attempts> <start ms>
import { openPostgresStore } from "../../src/store/index.js";
import { attempt, manifest } from "./fixtures.js";

const [url, runId, who, count, start] = process.argv.slice(2);
const cases = Number(count) / 4;
const store = await openPostgresStore(url!);
await store.beginRun(manifest(runId!, { evals: ["alpha", "beta"] }), { join: true });
const keys = [];
for (let i = 0; i < cases; i++)
  for (const evalId of ["alpha", "beta"])
    for (const trial of [0, 1]) keys.push({ evalId, i, trial });
await new Promise((resolve) => setTimeout(resolve, Number(start) - Date.now()));
const verdict = who === "a" ? "passed" : "failed";
for (let k = 0; k < keys.length; k += 50)
  await store.appendAttempts(
    runId!,
    keys.slice(k, k + 50).map(({ evalId, i, trial }) => attempt(evalId, i, { trial, verdict })),
  );
await store.close();
