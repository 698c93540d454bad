import { describe, expect, it } from "vitest";
import type { RunManifest } from "../store/types.js";
import { checkMergeable, checkSameCommit, coverageOf } from "./check.js";

const manifest = (over: Partial<RunManifest> = {}): RunManifest => ({
  runId: "aaaaaaaa-1",
  tags: {},
  niceevalVersion: "0.1.0",
  nodeVersion: "v20",
  command: [],
  files: [{ path: "evals/qa.eval.ts", hash: "f1" }],
  evals: [
    {
      evalId: "qa",
      style: "suite",
      configHash: "c1",
      datasetHash: "d1",
      judgeModels: [],
      trials: 1,
    },
  ],
  trials: 1,
  concurrency: 8,
  startedAt: "2025-01-01T00:00:00.000Z",
  ...over,
});
const other = (over: Partial<RunManifest>) => manifest({ runId: "bbbbbbbb-2", ...over });
const evalWith = (over: Partial<RunManifest["evals"][number]>) => [
  { ...manifest().evals[0]!, ...over },
];

describe("checkMergeable", () => {
  it("accepts runs of the same files and configurations", () => {
    expect(() => checkMergeable([manifest(), other({})])).not.toThrow();
    // Shards of one command: the same --filter, another --shard and --name.
    expect(() =>
      checkMergeable([
        manifest({ command: ["run", "--shard", "1/2", "--filter", "qa", "--name", "a"] }),
        other({ command: ["run", "--filter", "qa", "--shard", "2/2", "--name", "b"] }),
      ]),
    ).not.toThrow();
  });

  it.each([
    [
      { files: [{ path: "evals/qa.eval.ts", hash: "f2" }] },
      "eval file evals/qa.eval.ts differs (hash f1 in aaaaaaaa, f2 in bbbbbbbb)",
    ],
    [{ files: [] }, "eval file evals/qa.eval.ts is in run aaaaaaaa only"],
    [
      // The same file, the shard started one folder down (`cd sh && niceeval run ../evals`).
      { files: [{ path: "../evals/qa.eval.ts", hash: "f1" }] },
      "eval file evals/qa.eval.ts of run aaaaaaaa is ../evals/qa.eval.ts in run bbbbbbbb: the same file, named from another folder (paths are kept relative to the folder a run starts in), so run every shard from the same folder",
    ],
    [
      { evals: evalWith({ configHash: "c2" }) },
      'eval "qa" is configured differently (configuration hash c1 in aaaaaaaa, c2 in bbbbbbbb)',
    ],
    [
      { evals: evalWith({ datasetHash: "d2" }) },
      'eval "qa" read other cases (dataset hash d1 in aaaaaaaa, d2 in bbbbbbbb)',
    ],
    [
      { evals: evalWith({ trials: 3 }) },
      'eval "qa" ran 1 trial per case in aaaaaaaa and 3 in bbbbbbbb',
    ],
    [{ evals: [] }, 'eval "qa" is in run aaaaaaaa only'],
    [
      { evals: [], loadErrors: [{ file: "evals/qa.eval.ts", message: "SyntaxError: x" }] },
      'eval "qa" is in run aaaaaaaa only (run bbbbbbbb could not load evals/qa.eval.ts: SyntaxError: x; fix it and run that shard again)',
    ],
    [
      { command: ["run", "evals", "--shard", "1/3", "--filter", "qa"] },
      'they ran other cases (no --filter in aaaaaaaa, --filter "qa" in bbbbbbbb)',
    ],
    [
      { command: ["run", "--filter=qa/c1"] },
      'they ran other cases (no --filter in aaaaaaaa, --filter "qa/c1" in bbbbbbbb)',
    ],
    [
      // The manifest's own --filter (a merged run keeps its shards' there, not in its command).
      { command: ["merge", "a", "b"], filter: "qa" },
      'they ran other cases (no --filter in aaaaaaaa, --filter "qa" in bbbbbbbb)',
    ],
  ])("refuses %j with RUN_MERGE_MISMATCH", (over, why) => {
    expect(() => checkMergeable([manifest(), other(over)])).toThrow(why);
    expect(() => checkMergeable([manifest(), other(over)])).toThrow(
      expect.objectContaining({ code: "RUN_MERGE_MISMATCH" }),
    );
  });

  it("refuses shards of different counts, even after a whole run", () => {
    const runs = [
      manifest(),
      other({ shard: { index: 1, count: 2 } }),
      other({ runId: "c", shard: { index: 1, count: 3 } }),
    ];
    expect(() => checkMergeable(runs)).toThrow("they are shards of different counts");
  });

  it("refuses a whole run among shards, naming which is whole and which are shards", () => {
    const runs = [
      other({ shard: { index: 1, count: 3 } }),
      manifest({ name: "full" }),
      other({ runId: "cccccccc-3", shard: { index: 2, count: 3 } }),
    ];
    expect(() => checkMergeable(runs)).toThrow(
      "cannot merge whole runs with shards: run aaaaaaaa (full) is a whole run, runs bbbbbbbb (shard 1/3), cccccccc (shard 2/3) are shards. A whole run is not a shard of another run (it holds every case); merge the 3 shards of one `niceeval run --shard i/3`, or whole runs only.",
    );
    expect(() => checkMergeable(runs)).toThrow(
      expect.objectContaining({ code: "RUN_MERGE_MISMATCH" }),
    );
    // A merged run lacking a shard is no shard either: said so, not that it holds every case.
    const merged = manifest({ name: "miss", mergedFrom: ["dddddddd-1", "eeeeeeee-2"] });
    expect(() => checkMergeable([merged, runs[2]!])).toThrow(
      "Run aaaaaaaa (miss) is a merged run (of dddddddd, eeeeeeee), not a shard: merge the runs it was made from with the new shards instead.",
    );
    // Whole runs only, or shards only: merged.
    expect(() => checkMergeable([manifest(), other({})])).not.toThrow();
    expect(() => checkMergeable([runs[0]!, runs[2]!])).not.toThrow();
  });
});

describe("checkSameCommit", () => {
  const at = (commit: string, dirty = false) => ({ git: { commit, dirty } });
  it("refuses runs of different commits, naming each commit and uncommitted changes", () => {
    const runs = [
      other({ shard: { index: 1, count: 2 }, ...at("a".repeat(40)) }),
      other({ runId: "cccccccc-3", shard: { index: 2, count: 2 }, ...at("b".repeat(40), true) }),
    ];
    expect(() => checkSameCommit(runs)).toThrow(
      `cannot merge runs made at different git commits: run bbbbbbbb (shard 1/2) at aaaaaaaaaaaa; run cccccccc (shard 2/2) with uncommitted changes at bbbbbbbbbbbb.`,
    );
    expect(() => checkSameCommit(runs)).toThrow(
      expect.objectContaining({ code: "RUN_MERGE_MISMATCH" }),
    );
  });
  it("takes one commit, dirty or not, and runs that recorded none", () => {
    expect(() =>
      checkSameCommit([manifest(at("a")), other(at("a", true)), other({ runId: "c" })]),
    ).not.toThrow();
  });
});

describe("coverageOf", () => {
  const shard = (index: number, count = 4) =>
    other({ runId: `s${index}`, shard: { index, count } });
  it("names the missing and repeated shards", () => {
    expect(coverageOf([shard(1), shard(3), shard(3)])).toEqual({
      missingShards: [2, 4],
      shardCount: 4,
      repeatedShards: ["3/4"],
    });
  });
  it("misses nothing when a whole run is among the inputs, or no input is a shard", () => {
    expect(coverageOf([shard(1), manifest()]).missingShards).toEqual([]);
    expect(coverageOf([manifest()])).toEqual({ missingShards: [], repeatedShards: [] });
  });
});
