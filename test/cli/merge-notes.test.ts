import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
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
});
