import { mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/index.js";
import { attempt, manifest } from "./fixtures.js";

// A writer checks before each write that its path still names the file it opened (a store file
// deleted or replaced mid-run is STORE_MOVED, what it held saved to a copy). The path it checks
// is the one SQLite opened, resolved when it opened it: code that changes the working folder
// after opening a store by a relative path has moved nothing.

const batch = (from: number) => Array.from({ length: 10 }, (_, i) => attempt("alpha", from + i));

describe("the SQLite store's file under its writer", () => {
  let dir: string;
  let cwd: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "niceeval-moved-"));
    cwd = process.cwd();
  });
  afterEach(() => {
    process.chdir(cwd);
    rmSync(dir, { recursive: true, force: true });
  });

  it("opened by a relative path, keeps taking writes after the working folder changes", async () => {
    process.chdir(dir);
    const store = await openSqliteStore("runs.sqlite");
    try {
      await store.beginRun(manifest("run-1"));
      await store.appendAttempts("run-1", batch(0));
      mkdirSync(join(dir, "elsewhere"));
      process.chdir(join(dir, "elsewhere"));
      await store.appendAttempts("run-1", batch(10));
      await store.finishRun("run-1", { status: "finished", summaries: [] });
      expect((await store.getRun("run-1"))?.totals.attempts).toBe(20);
    } finally {
      await store.close();
    }
  });

  it("replaced by another file, refuses the write naming the copy that holds what it wrote", async () => {
    const path = join(dir, "runs.sqlite");
    const other = join(dir, "other.sqlite");
    const first = await openSqliteStore(other);
    await first.beginRun(manifest("theirs"));
    await first.close();
    const store = await openSqliteStore(path);
    try {
      await store.beginRun(manifest("mine"));
      await store.appendAttempts("mine", batch(0));
      renameSync(other, path);
      const refused = await store.appendAttempts("mine", batch(10)).catch((error) => error);
      expect(refused).toMatchObject({ code: "STORE_MOVED" });
      expect(refused.message).toContain(`the store file ${path} was deleted or replaced`);
      expect(refused.message).toMatch(/open \S+ \(openStore, openSqliteStore\) to read it/);
      const copy = (refused.message as string).match(/saved to (\S+\.sqlite)/)![1]!;
      const saved = await openSqliteStore(copy, { readOnly: true });
      expect((await saved.getRun("mine"))?.totals.attempts).toBe(10);
      await saved.close();
    } finally {
      await store.close();
    }
    const now = await openSqliteStore(path, { readOnly: true });
    expect((await now.listRuns()).map((r) => r.runId)).toEqual(["theirs"]);
    await now.close();
  });
});
