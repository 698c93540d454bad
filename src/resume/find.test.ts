import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import type { RunManifest, StoredRun } from "../store/types.js";
import { writerGone } from "../store/writer.js";
import { changesSince } from "./check.js";
import { runState } from "./find.js";

const manifest = (over: Partial<RunManifest> = {}): RunManifest => ({
  runId: "r",
  tags: {},
  niceevalVersion: "0",
  nodeVersion: "v20",
  command: [],
  files: [{ path: "evals/a.eval.ts", hash: "h1" }],
  evals: [
    {
      evalId: "a",
      style: "suite",
      file: "evals/a.eval.ts",
      configHash: "c1",
      judgeModels: [],
      trials: 1,
    },
  ],
  trials: 1,
  concurrency: 1,
  startedAt: "2026-01-01T00:00:00.000Z",
  ...over,
});

const stored = (status: StoredRun["status"], writer?: RunManifest["writer"]): StoredRun => ({
  ...manifest(writer ? { writer } : {}),
  status,
  totals: {
    evals: 0,
    cases: 0,
    attempts: 0,
    passed: 0,
    failed: 0,
    errored: 0,
    skipped: 0,
    interrupted: 0,
    meanScore: null,
    scoredAttempts: 0,
  },
});

describe("a run's writer", () => {
  it("is alive while its pid answers on this host, gone once it exited, unknown elsewhere (alive)", () => {
    const exited = spawnSync(process.execPath, ["-e", "0"]).pid!;
    expect(writerGone(manifest({ writer: { pid: process.pid, host: hostname() } }))).toBe(false);
    expect(writerGone(manifest({ writer: { pid: exited, host: hostname() } }))).toBe(true);
    expect(writerGone(manifest({ writer: { pid: exited, host: "elsewhere" } }))).toBe(false);
    expect(writerGone(manifest())).toBe(true);
  });

  it("is gone once it exited even while its parent has not reaped it (a zombie)", async () => {
    // The shell starts a child that exits at once, then becomes \`sleep\`, which never reaps it.
    const shell = spawn("sh", ["-c", "sleep 0 & echo $!; exec sleep 5"]);
    const pid = Number(
      await new Promise<string>((resolve) =>
        shell.stdout.once("data", (out) => resolve(String(out))),
      ),
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(readFileSync(`/proc/${pid}/stat`, "latin1")).toMatch(/\) Z /);
      expect(writerGone(manifest({ writer: { pid, host: hostname() } }))).toBe(true);
      expect(writerGone(manifest({ writer: { pid: shell.pid!, host: hostname() } }))).toBe(false);
    } finally {
      shell.kill("SIGKILL");
    }
  });

  it("makes a running run live or stopped; interrupted and crashed are stopped", () => {
    const exited = spawnSync(process.execPath, ["-e", "0"]).pid!;
    expect(runState(stored("running", { pid: process.pid, host: hostname() }))).toBe("live");
    expect(runState(stored("running", { pid: exited, host: hostname() }))).toBe("stopped");
    expect(runState(stored("interrupted"))).toBe("stopped");
    expect(runState(stored("crashed"))).toBe("stopped");
    expect(runState(stored("finished"))).toBe("finished");
  });
});

describe("changesSince", () => {
  it("names changed files with their evals, changed configurations, new and missing evals", () => {
    expect(changesSince(manifest(), manifest())).toEqual([]);
    const now = manifest({
      files: [{ path: "evals/a.eval.ts", hash: "h2" }],
      evals: [
        {
          evalId: "a",
          style: "suite",
          file: "evals/a.eval.ts",
          configHash: "c2",
          judgeModels: [],
          trials: 1,
        },
        {
          evalId: "b",
          style: "suite",
          file: "evals/a.eval.ts",
          configHash: "c1",
          judgeModels: [],
          trials: 1,
        },
      ],
    });
    expect(changesSince(manifest(), now)).toEqual([
      "file evals/a.eval.ts (eval a, b)",
      "eval a's configuration",
      "eval b is new (evals/a.eval.ts)",
    ]);
    expect(changesSince(now, manifest())).toContain("eval b is no longer found");
    // A run stopped while its files loaded recorded no eval and ran nothing: nothing changed.
    expect(changesSince(manifest({ evals: [] }), now)).toEqual([]);
  });

  it("names the judge models of an eval whose configuration changed with them", () => {
    const judged = (configHash: string, judgeModels: string[]) =>
      manifest({
        evals: [
          {
            evalId: "a",
            style: "suite",
            file: "evals/a.eval.ts",
            configHash,
            judgeModels,
            trials: 1,
          },
        ],
      });
    expect(changesSince(judged("c1", ["fake/judge-1"]), judged("c2", ["fake/judge-2"]))).toEqual([
      "eval a's configuration (judge models fake/judge-1 → fake/judge-2)",
    ]);
    expect(changesSince(judged("c1", []), judged("c2", ["fake/judge-1"]))).toEqual([
      "eval a's configuration (judge models none → fake/judge-1)",
    ]);
    // The same models in another order are the same models.
    expect(changesSince(judged("c1", ["b", "a"]), judged("c2", ["a", "b"]))).toEqual([
      "eval a's configuration",
    ]);
  });
});
