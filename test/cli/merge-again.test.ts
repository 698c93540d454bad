import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { cleanEnv } from "./store-fixture.js";

// After a merge that lacks a shard, what it advises, run word for word, makes the whole run; and
// merging the incomplete merged run with the new shard is refused for what it is (a merged run is
// no shard), with the merge to run instead.

const suite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });

export const app = defineSuite({
  id: "app",
  cases: Array.from({ length: 30 }, (_, i) => ({ id: "c" + i, input: i, expected: i })),
  target: async (input) => input,
  scorers: [same],
});
`;

/** The commands quoted in backticks in a message, as argv after `niceeval`. */
const quoted = (text: string) =>
  [...text.matchAll(/`niceeval ([^`]+)`/g)].map((m) => m[1]!.split(" "));

describe("merge again after a missing shard (real CLI)", { timeout: 120_000 }, () => {
  let project: FixtureProject;
  const cli = (args: string[]) => runCli(args, project.dir, { ...cleanEnv, NICEEVAL_STORE: "" });
  beforeAll(async () => {
    project = await makeProject({ "evals/app.eval.js": suite });
    for (const i of [1, 3])
      expect(
        (
          await cli([
            "run",
            "--shard",
            `${i}/3`,
            "--name",
            `ci-7-${i}`,
            "--store",
            "m.sqlite",
            "--quiet",
          ])
        ).code,
      ).toBe(0);
  }, 60_000);
  afterAll(() => project?.cleanup());

  it("names the run of the missing shard and the merge to run next, and refuses the merged run as a shard", async () => {
    const partial = await cli([
      "merge",
      "ci-7-1",
      "ci-7-3",
      "--name",
      "miss",
      "--store",
      "m.sqlite",
    ]);
    expect(partial.code).toBe(1);
    expect(partial.stderr).toBe(
      "niceeval: missing shard 2/3: the merged run lacks its cases; run `niceeval run --shard 2/3 --store m.sqlite --name ci-7-2` (or import its export, and name that run or export below), then merge this merge's inputs with it into a new run, not this merged run, which is no shard: `niceeval merge ci-7-1 ci-7-3 ci-7-2 --store m.sqlite` (with a --name other than miss, which names this merged run)\n",
    );
    const [run, merge] = quoted(partial.stderr);
    const ran = await cli([...run!, "--quiet"]);
    expect(ran.code, ran.stderr).toBe(0);

    // The merged run with the new shard: refused, saying it is a merged run, not that it is whole.
    const refused = await cli([
      "merge",
      "miss",
      "ci-7-2",
      "--name",
      "again",
      "--store",
      "m.sqlite",
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^niceeval: cannot merge run [0-9a-f]{8} \(miss\) with shard [0-9a-f]{8} \(shard 2\/3\): run [0-9a-f]{8} is a merged run \(of 2 runs, [0-9a-f]{8}, [0-9a-f]{8}\), not a shard, so its cases cannot be told apart by shard\. Merge the runs it was made from, as its merge named them, with the new shard: `niceeval merge ci-7-1 ci-7-3 ci-7-2 --store m\.sqlite`\n$/,
    );
    expect(refused.stderr).not.toContain("whole run");
    expect(quoted(refused.stderr)).toEqual([merge]);

    // The advised merge, word for word: the whole run.
    const whole = await cli([...merge!, "--name", "all"]);
    expect(whole.stderr).toBe("");
    expect(whole.code).toBe(0);
    expect(whole.stdout).toMatch(/: 30 attempts, finished\n$/);
  });

  it("refuses a merged run with a shard it already holds, saying so, not advising a merge that names it twice", async () => {
    expect(
      (await cli(["merge", "ci-7-1", "ci-7-3", "--name", "held", "--store", "m.sqlite"])).code,
    ).toBe(1);
    const refused = await cli(["merge", "held", "ci-7-1", "--store", "m.sqlite"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^niceeval: cannot merge run [0-9a-f]{8} \(held\) with shard [0-9a-f]{8} \(shard 1\/3\): run [0-9a-f]{8} is a merged run \(of 2 runs, [0-9a-f]{8}, [0-9a-f]{8}\) made from that shard already, so merging it again adds nothing\. To add another shard, merge the runs it was made from, as its merge named them, with it: `niceeval merge ci-7-1 ci-7-3 <the new shard> --store m\.sqlite`\n$/,
    );
  });
});
