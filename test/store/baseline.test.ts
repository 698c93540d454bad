import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findBaseline, unfinishedBaselineNote } from "../../src/cli/baseline.js";
import { openSqliteStore } from "../../src/store/index.js";
import { manifest } from "./fixtures.js";

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();

describe("--baseline", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "niceeval-baseline-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("is nothing yet on an empty store, but latest~N past the history names no run", async () => {
    const store = await openSqliteStore(join(dir, "s.sqlite"));
    try {
      expect(await findBaseline(store, "latest", ["alpha"])).toBeUndefined();
      expect(await findBaseline(store, "latest~3", ["alpha"])).toBeUndefined();
      await store.beginRun(manifest("only"));
      await store.finishRun("only", { status: "finished", endedAt: at(2), summaries: [] });
      expect((await findBaseline(store, "latest", ["alpha"]))?.runId).toBe("only");
      await expect(findBaseline(store, "latest~3", ["alpha"])).rejects.toMatchObject({
        code: "RUN_NOT_FOUND",
      });
    } finally {
      await store.close();
    }
  });

  it("is never another part of a sharded run: the merged run, or the same shard of an earlier one", async () => {
    const store = await openSqliteStore(join(dir, "s.sqlite"));
    try {
      const begin = async (
        id: string,
        minute: number,
        shard?: { index: number; count: number },
      ) => {
        const m = manifest(id, { startedAt: at(minute) });
        if (shard) m.shard = shard;
        await store.beginRun(m);
        await store.finishRun(id, { status: "finished", endedAt: at(minute + 1), summaries: [] });
      };
      // The merged run starts with its first shard, so the later shards are newer.
      await begin("nightly", 10);
      for (const index of [1, 2, 3]) await begin(`s${index}`, 10 + index, { index, count: 3 });
      expect((await findBaseline(store, "latest", ["alpha"]))?.runId).toBe("nightly");
      expect((await findBaseline(store, "latest", ["alpha"], { index: 2, count: 3 }))?.runId).toBe(
        "s2",
      );
      expect(
        (await findBaseline(store, "latest~1", ["alpha"], { index: 2, count: 3 }))?.runId,
      ).toBe("nightly");
      await expect(findBaseline(store, "latest~1", ["alpha"])).rejects.toMatchObject({
        code: "RUN_NOT_FOUND",
        message: expect.stringContaining("not a shard of another run"),
      });
      // Named explicitly, a shard is what the user asked for.
      expect((await findBaseline(store, "s3", ["alpha"]))?.runId).toBe("s3");
    } finally {
      await store.close();
    }
  });

  it("says when the run it names did not finish", async () => {
    const store = await openSqliteStore(join(dir, "s.sqlite"));
    try {
      await store.beginRun(manifest("cut"));
      await store.finishRun("cut", { status: "crashed", endedAt: at(2), summaries: [] });
      const run = (await findBaseline(store, "latest", ["alpha"]))!;
      expect(unfinishedBaselineNote("latest", run)).toBe(
        "niceeval: --baseline latest is run cut, which did not finish (crashed): the comparison covers only the attempts it stored\n",
      );
      await store.beginRun(manifest("whole"));
      await store.finishRun("whole", { status: "finished", endedAt: at(3), summaries: [] });
      expect(unfinishedBaselineNote("whole", (await store.getRun("whole"))!)).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});
