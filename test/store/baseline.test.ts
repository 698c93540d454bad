import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  findBaseline,
  partialBaselineNote,
  unfinishedBaselineNote,
} from "../../src/cli/baseline.js";
import { openSqliteStore } from "../../src/store/index.js";
import type { RunManifest } from "../../src/store/types.js";
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
      expect(
        (await findBaseline(store, "latest", ["alpha"], { shard: { index: 2, count: 3 } }))?.runId,
      ).toBe("s2");
      expect(
        (await findBaseline(store, "latest~1", ["alpha"], { shard: { index: 2, count: 3 } }))
          ?.runId,
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

  it("branch: takes the latest run whole for this run, not a newer one cut down by --filter or of fewer evals", async () => {
    const store = await openSqliteStore(join(dir, "s.sqlite"));
    try {
      const begin = async (id: string, minute: number, change: Partial<RunManifest> = {}) => {
        const m = {
          ...manifest(id, {
            name: id,
            startedAt: at(minute),
            branch: "main",
            evals: ["alpha", "beta"],
          }),
          ...change,
        };
        await store.beginRun(m);
        await store.finishRun(id, { status: "finished", endedAt: at(minute + 1), summaries: [] });
      };
      await begin("main-full", 1);
      // A debugging run: every eval in its manifest, one case run.
      await begin("main-debug", 2, { filter: "alpha/c0" });
      // Another, from before manifests kept the filter: only its command line has it.
      await begin("main-old-debug", 3, { command: ["niceeval", "run", "--filter=beta"] });
      // A run of one eval file.
      await begin("main-alpha", 4, { evals: manifest("x", { evals: ["alpha"] }).evals });
      const found = async (ids: string[], filter?: string) =>
        (await findBaseline(store, "branch:main", ids, filter !== undefined ? { filter } : {}))
          ?.runId;
      expect(await found(["alpha", "beta"])).toBe("main-full");
      // A run of fewer evals is whole for a run of those evals.
      expect(await found(["alpha"])).toBe("main-alpha");
      // A run with the same --filter holds the same cases.
      expect(await found(["alpha", "beta"], "alpha/c0")).toBe("main-debug");
      const latest = (await findBaseline(store, "latest", ["alpha", "beta"]))!;
      expect(latest.runId).toBe("main-alpha");
      expect(partialBaselineNote("latest", latest, ["alpha", "beta"])).toBe(
        "niceeval: warning: --baseline latest is run main-alp (main-alpha), which lacks eval beta: the cases of this run it did not run count as added, so a regression in them goes unseen. Name a whole run (by id or name) or branch:NAME to compare every case\n",
      );
      const debug = (await store.getRun("main-debug"))!;
      expect(partialBaselineNote("latest~2", debug, ["alpha", "beta"])).toContain(
        'which ran --filter "alpha/c0": the cases',
      );
      expect(partialBaselineNote("latest~2", debug, ["alpha", "beta"], "alpha/c0")).toBeUndefined();
      // Named by id or name, a run is taken as named.
      expect(partialBaselineNote("main-debug", debug, ["alpha", "beta"])).toBeUndefined();
      expect(
        partialBaselineNote("branch:main", (await store.getRun("main-full"))!, ["alpha", "beta"]),
      ).toBeUndefined();
      // An eval no run on main holds: the closest is the newest run of every case holding the most.
      expect(await found(["alpha", "beta", "gamma"])).toBe("main-full");
      const closest = (await store.getRun("main-full"))!;
      expect(partialBaselineNote("branch:main", closest, ["alpha", "beta", "gamma"])).toBe(
        'niceeval: warning: --baseline branch:main: no finished run on branch "main" holds every eval of this run with no --filter; comparing with the closest, run main-ful (main-full), which lacks eval gamma: the cases of this run it did not run count as added, so a regression in them goes unseen. Run every eval on main to have a whole baseline\n',
      );
    } finally {
      await store.close();
    }
  });

  it("branch: with only filtered runs falls back to the closest and says what it lacks", async () => {
    const store = await openSqliteStore(join(dir, "s.sqlite"));
    try {
      const begin = async (id: string, minute: number, change: Partial<RunManifest> = {}) => {
        const m = {
          ...manifest(id, {
            name: id,
            startedAt: at(minute),
            branch: "main",
            evals: ["alpha", "beta"],
          }),
          ...change,
        };
        await store.beginRun(m);
        await store.finishRun(id, { status: "finished", endedAt: at(minute + 1), summaries: [] });
      };
      await begin("debug-one", 1, { filter: "alpha" });
      await begin("debug-two", 2, { filter: "beta/c1" });
      const run = (await findBaseline(store, "branch:main", ["alpha", "beta"]))!;
      expect(run.runId).toBe("debug-two");
      expect(partialBaselineNote("branch:main", run, ["alpha", "beta", "gamma"], "c")).toBe(
        'niceeval: warning: --baseline branch:main: no finished run on branch "main" holds every eval of this run with no --filter but "c"; comparing with the closest, run debug-tw (debug-two), which ran --filter "beta/c1" (this run: --filter "c") and lacks eval gamma: the cases of this run it did not run count as added, so a regression in them goes unseen. Run every eval on main to have a whole baseline\n',
      );
      // The head of `compare branch:main <run>` is never its own baseline.
      expect(
        (await findBaseline(store, "branch:main", ["alpha"], { exclude: "debug-two" }))?.runId,
      ).toBe("debug-one");
    } finally {
      await store.close();
    }
  });
});
