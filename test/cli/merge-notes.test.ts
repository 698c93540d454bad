import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import { shardOf } from "../../src/shard/shard.js";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { evalFileHeader } from "./eval-source.js";
import { cleanEnv, json } from "./store-fixture.js";

// What `niceeval merge` says of its inputs: an eval whose cases could not be read (every shard
// records that) is no duplicate, and an input that did not finish is named as it was given,
// with what to do.

const evalFile = `${evalFileHeader}
export const words = defineSuite<string, string>({
  id: "words",
  cases: Array.from({ length: 12 }, (_, i) => ({ id: "w" + i, input: "w" + i, expected: "w" + i })),
  target: async (input) => input,
  scorers: [same],
});
export const unread = defineSuite<string, string>({
  id: "unread",
  cases: [],
  target: async (input) => input,
  scorers: [same],
});
`;

describe("merge notes through the real CLI", { timeout: 120_000 }, () => {
  let project: FixtureProject;
  const cli = (args: string[]) => runCli(args, project.dir, cleanEnv);

  beforeAll(async () => {
    project = await makeProject({ "evals/words.eval.ts": evalFile });
    for (const i of [1, 2]) {
      const shard = await cli(["run", "--shard", `${i}/2`, "--name", `part-${i}`, "--quiet"]);
      expect(shard.code).toBe(1); // "unread" is errored in each shard
      const exported = await cli(["export", `part-${i}`, "--ndjson", `part-${i}.ndjson`]);
      expect(exported.code).toBe(0);
    }
  }, 60_000);
  afterAll(() => project.cleanup());

  it("keeps the errored reading of an eval's cases once, without calling it a duplicate", async () => {
    const merged = await cli(["merge", "part-1", "part-2", "--name", "whole", "--json"]);
    expect(merged.stderr).toBe("");
    expect(merged.code).toBe(0);
    expect(json<{ duplicates: number; attempts: number }>(merged.stdout)).toMatchObject({
      duplicates: 0,
      attempts: 13,
    });
    const shown = json<{ records: AttemptRecord[] }>(
      (await cli(["show", "whole", "--json"])).stdout,
    );
    expect(shown.records.filter((r) => r.evalId === "unread").map((r) => r.caseId)).toEqual([
      "(cases)",
    ]);
    // The same shard given twice is still said to be.
    const twice = await cli(["merge", "part-1", "part-2", "part-2.ndjson", "--name", "twice"]);
    expect(twice.stderr).toMatch(
      /^niceeval: run [0-9a-f]{8} was named more than once; it is merged once\n$/,
    );
  });

  it("names an export cut short as it was given, and says to export it again", async () => {
    const lines = (await readFile(join(project.dir, "part-2.ndjson"), "utf8")).trim().split("\n");
    await writeFile(join(project.dir, "cut.ndjson"), `${lines.slice(0, -2).join("\n")}\n`);
    const merged = await cli(["merge", "part-1", "cut.ndjson", "--name", "from-cut"]);
    expect(merged.code).toBe(1);
    expect(merged.stderr).toMatch(
      /cut\.ndjson ends before its run\.end line \(cut short\?\): run [0-9a-f]{8} \(shard 2\/2\) may lack some of its cases; export it again where it ran \(`niceeval export [0-9a-f]{8} --ndjson <file>`\), then merge again/,
    );
  });

  it("says an export that was compressed or zipped is to be unpacked first, for import and merge", async () => {
    const text = await readFile(join(project.dir, "part-1.ndjson"));
    await writeFile(join(project.dir, "part-1.ndjson.gz"), gzipSync(text));
    // What a CI artifact downloads as: a zip archive (its local file header, then data).
    await writeFile(
      join(project.dir, "artifact.zip"),
      Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0, 8, 0]), gzipSync(text)]),
    );
    for (const command of ["import", "merge"]) {
      const gz = await cli([command, "part-1.ndjson.gz"]);
      expect(gz.code).toBe(2);
      expect(gz.stderr).toMatch(
        /^niceeval: cannot read the run export \S*part-1\.ndjson\.gz: line 1 is gzip-compressed, not JSON: decompress it first \(`gunzip -k \S*part-1\.ndjson\.gz`\) and name the \.ndjson it gives\n$/,
      );
      const zip = await cli([command, "artifact.zip"]);
      expect(zip.code).toBe(2);
      expect(zip.stderr).toMatch(
        /^niceeval: cannot read the run export \S*artifact\.zip: line 1 is a zip archive, not JSON \(a CI artifact downloaded whole\?\): unzip it first \(`unzip \S*artifact\.zip`\) and name the \.ndjson inside\n$/,
      );
    }
    // Any other text that is not JSON is named as no export, its characters shown harmlessly.
    await writeFile(join(project.dir, "notes.txt"), "\u001b[31mhello\nworld\n");
    const other = await cli(["import", "notes.txt"]);
    expect(other.code).toBe(2);
    expect(other.stderr).not.toContain("\u001b");
    expect(other.stderr).toMatch(
      /line 1 is not JSON, so the file is no niceeval run export \(format niceeval\/run\/v1\); write one with `niceeval export <run> --ndjson <file>`\n$/,
    );
  });

  it("names the export a refused run was read from, beside its id", async () => {
    const other = await cli([
      "run",
      "--shard",
      "2/2",
      "--trials",
      "2",
      "--name",
      "other-2",
      "--quiet",
    ]);
    expect(other.code).toBe(1);
    expect((await cli(["export", "other-2", "--ndjson", "other-2.ndjson"])).code).toBe(0);
    for (const first of ["part-1", "part-1.ndjson"]) {
      const refused = await cli(["merge", first, "other-2.ndjson"]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(
        /^niceeval: cannot merge run [0-9a-f]{8} \(shard 1\/2\) with run ([0-9a-f]{8}) \(shard 2\/2\): eval "words" ran 1 trial per case in [0-9a-f]{8} and 2 in \1\. .*\. Read from files: ([0-9a-f]{8} from part-1\.ndjson, )?\1 from other-2\.ndjson\.\n$/,
      );
      expect(refused.stderr.includes("from part-1.ndjson")).toBe(first === "part-1.ndjson");
    }
  });
});

describe("--filter with --shard through the real CLI", { timeout: 60_000 }, () => {
  let project: FixtureProject;
  const cli = (args: string[]) => runCli(args, project.dir, cleanEnv);
  beforeAll(async () => {
    // The words eval alone: an eval whose cases cannot be read is recorded in every shard.
    project = await makeProject({
      "evals/words.eval.ts": evalFile.split("export const unread")[0]!,
    });
  });
  afterAll(() => project.cleanup());

  it("a shard holding none of the cases --filter selects is an empty shard (exit 0, stored), not a filter that selects nothing", async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `w${i}`);
    const shards = Array.from({ length: 40 }, (_, i) => i + 1);
    const empty = shards.find((i) => ids.every((id) => shardOf("words", id, 40) !== i))!;
    const run = await cli([
      "run",
      "--shard",
      `${empty}/40`,
      "--filter",
      "words/",
      "--name",
      "lone",
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      `niceeval: --filter "words/" selected no case of shard ${empty}/40: the cases it selects are in other shards\n`,
    );
    // Stored, as every shard is, for the merge that needs it.
    expect((await cli(["runs", "--json"])).stdout).toContain('"name":"lone"');
    // A filter that selects no case in any shard is still a usage error.
    const typo = await cli(["run", "--shard", `${empty}/40`, "--filter", "wrods/", "--no-store"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('niceeval: --filter "wrods/" selected no case. Evals found:');
  });
});
