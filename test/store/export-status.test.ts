import { closeSync, openSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { showCommand } from "../../src/cli/commands/history.js";
import { exportNdjson } from "../../src/cli/commands/merge.js";
import { exportRunFile } from "../../src/merge/run-file.js";
import { openSqliteStore } from "../../src/store/index.js";
import { resolveRunRef } from "../../src/store/resolve.js";
import { attempt, manifest } from "./fixtures.js";

// A pid no process has: Linux pids stay below 2^22.
const GONE = 2 ** 22 + 7;

describe("a run left running by a writer that is gone", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "niceeval-export-status-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("is exported, and listed when a reference is ambiguous, as crashed", async () => {
    const store = await openSqliteStore(join(dir, "s.sqlite"));
    try {
      for (const id of ["left-1", "left-2"]) {
        const m = manifest(id);
        m.name = "left";
        m.writer = { pid: GONE, host: hostname() };
        await store.beginRun(m);
        await store.appendAttempts(id, [attempt("alpha", 0)]);
      }
      const run = (await store.getRun("left-1"))!;
      expect(run.status).toBe("running");
      const file = join(dir, "left.ndjson");
      await exportRunFile(store, run, file);
      const lines = (await readFile(file, "utf8")).trim().split("\n");
      expect(JSON.parse(lines.at(-1)!)).toMatchObject({ type: "run.end", status: "crashed" });
      // The CLI's note says so too (it said "running").
      const out = openSync(join(dir, "out.txt"), "w");
      await exportNdjson("left-1", "again.ndjson", store, {
        cwd: dir,
        env: {},
        stdoutFd: out,
        stderr: () => {},
        isTTY: false,
      });
      closeSync(out);
      expect(await readFile(join(dir, "out.txt"), "utf8")).toMatch(/, 1 attempt, crashed\n$/);
      // show: how long it ran is unknown, not 0 ms.
      const shown = openSync(join(dir, "show.txt"), "w");
      await showCommand(
        { command: "show", run: "left-1", json: false, failuresOnly: false },
        store,
        { cwd: dir, env: {}, stdoutFd: shown, stderr: () => {}, isTTY: false },
      );
      closeSync(shown);
      const text = await readFile(join(dir, "show.txt"), "utf8");
      expect(text).toContain("  time: unknown");
      expect(text).toContain("mean score 1 (n=1) · unknown\n");
      const ambiguous = await resolveRunRef(store, "left").then(
        () => "",
        (e: Error) => e.message,
      );
      expect(ambiguous).toMatch(/left-1 +left +\S+ +crashed/);
      expect(ambiguous).not.toContain("running");
    } finally {
      await store.close();
    }
  });
});
