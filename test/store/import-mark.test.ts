import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { exportRunFile, importRunFile } from "../../src/merge/run-file.js";
import { importedRunAdvice } from "../../src/store/imported.js";
import { openSqliteStore } from "../../src/store/index.js";
import { attempt, manifest } from "./fixtures.js";

// An import of an export newer than the run the store holds replaces the run's status and end:
// how it came (an export cut short, or whole) is the newer export's too, which is what `show` and
// `compare` advise from (export it again where it ran, or finish it there).

describe("the imported mark of a run an import replaced", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "niceeval-import-mark-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Whole and cut-short exports of a run stopped where it ran (interrupted, with an end time). */
  async function exports(): Promise<{ whole: string; cut: string }> {
    const source = await openSqliteStore(join(dir, "source.sqlite"));
    try {
      await source.beginRun(manifest("r1", { name: "stopped" }));
      await source.appendAttempts("r1", [attempt("alpha", 0), attempt("alpha", 1)]);
      await source.finishRun("r1", {
        status: "interrupted",
        endedAt: new Date().toISOString(),
        summaries: [],
      });
      const whole = join(dir, "whole.ndjson");
      await exportRunFile(source, (await source.getRun("r1"))!, whole);
      // Cut before its run.end line, as a download that stopped.
      const lines = (await readFile(whole, "utf8")).split("\n").filter(Boolean);
      const cut = join(dir, "cut.ndjson");
      await writeFile(cut, `${lines.slice(0, -1).join("\n")}\n`);
      return { whole, cut };
    } finally {
      await source.close();
    }
  }

  it("no longer says the export was cut short once the whole export is imported over it", async () => {
    const { whole, cut } = await exports();
    const store = await openSqliteStore(join(dir, "copy.sqlite"));
    try {
      expect((await importRunFile(store, cut)).truncated).toBe(true);
      expect(importedRunAdvice((await store.getRun("r1"))!)).toContain("cut short");
      const again = await importRunFile(store, whole);
      expect(again.older).toBeUndefined();
      const run = (await store.getRun("r1"))!;
      expect(run.status).toBe("interrupted");
      expect(run.endedAt).toBeDefined();
      expect(importedRunAdvice(run)).toContain("did not finish where it ran");
      expect(importedRunAdvice(run)).not.toContain("cut short");
    } finally {
      await store.close();
    }
  });
});
