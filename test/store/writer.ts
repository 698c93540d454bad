// A child process for the two-writer test: writes one run of N attempts in batches, then finishes it.
// node --import tsx test/store/writer.ts <store path> <run id> <attempts>
import { openSqliteStore } from "../../src/store/index.js";
import { attempt, manifest } from "./fixtures.js";

const [path, runId, count] = process.argv.slice(2);
const n = Number(count);
const store = await openSqliteStore(path!);
await store.beginRun(manifest(runId!, { evals: ["alpha", "beta"] }));
for (let i = 0; i < n; i += 50) {
  const batch = Array.from({ length: Math.min(50, n - i) }, (_, k) =>
    attempt((i + k) % 2 ? "beta" : "alpha", i + k),
  );
  await store.appendAttempts(runId!, batch);
}
await store.finishRun(runId!, {
  status: "finished",
  endedAt: new Date().toISOString(),
  summaries: [],
});
await store.close();
