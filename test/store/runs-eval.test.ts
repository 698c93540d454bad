// `niceeval runs --eval <id>`: the figures shown are that eval's, not the whole run's.
import { closeSync, openSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runsCommand } from "../../src/cli/commands/history.js";
import { EvalAccumulator } from "../../src/runner/stats.js";
import { openSqliteStore } from "../../src/store/index.js";
import { attempt, manifest } from "./fixtures.js";

describe("runs --eval", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "niceeval-runs-eval-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("shows the eval's pass rate and mean score, not the whole run's", async () => {
    const store = await openSqliteStore(join(dir, "s.sqlite"));
    try {
      await store.beginRun(manifest("two", { evals: ["alpha", "beta"] }));
      // alpha: 4 of 4 pass; beta: 1 of 4.
      const records = [
        ...[0, 1, 2, 3].map((i) => attempt("alpha", i)),
        ...[0, 1, 2, 3].map((i) => attempt("beta", i, { verdict: i === 0 ? "passed" : "failed" })),
      ];
      await store.appendAttempts("two", records);
      const summaries = ["alpha", "beta"].map((evalId) => {
        const fold = new EvalAccumulator(evalId, "suite");
        for (const r of records) if (r.evalId === evalId) fold.add(r);
        return fold.finish(10);
      });
      await store.finishRun("two", {
        status: "finished",
        endedAt: "2025-01-02T00:00:00.000Z",
        summaries,
      });
      const out = join(dir, "runs.txt");
      const fd = openSync(out, "w");
      await runsCommand({ command: "runs", limit: 20, json: false, evalId: "beta" }, store, {
        cwd: dir,
        env: {},
        stdoutFd: fd,
        stderr: () => {},
        isTTY: false,
      });
      closeSync(fd);
      const text = readFileSync(out, "utf8");
      expect(text).toContain('pass rate and mean score of eval "beta"');
      // beta: 1 of 4 passed, mean score (4 + 3 + 3 + 3) / 16 with its own n and interval: the
      // scores 1, 0.75, 0.75, 0.75 have sd 0.125, so 0.8125 ± t(0.975, 3) 3.182446 · 0.125 / 2
      // = [0.614, 1.011], within [0, 1].
      expect(text).toMatch(/ 25\.0% \[\d+\.\d%, \d+\.\d%\] n=4 +0\.813 \[0\.614, 1\.000\] n=4\n/);
      // Its cases too: 4 of the run's 8.
      expect(text).toMatch(/finished +4 +25\.0%/);
    } finally {
      await store.close();
    }
  });
});
