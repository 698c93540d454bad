import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";

// Many small evals: the CLI asks for the first cases of the next evals ahead, several reads to a
// message each way. One eval's case ends the eval process in the middle of that.
const manySuite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

export const small = Array.from({ length: 300 }, (_, i) =>
  defineSuite({
    id: "s" + String(i).padStart(3, "0"),
    cases: [{ id: "only", input: i, expected: i }],
    target: (input) => {
      if (input === 150) process.exit(3);
      return input;
    },
    scorers: [same],
  }),
);

export const large = defineSuite({
  id: "large",
  cases: Array.from({ length: 100 }, (_, i) => ({ id: "l" + i, input: i, expected: i })),
  target: (input) => input,
  scorers: [same],
});
`;

describe("a run of many small evals (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/many.eval.ts": manySuite });
  });
  afterAll(() => project.cleanup());

  it("runs every case once, and errors only the one that ended the eval process", async () => {
    const run = await runCli(["run", "--no-store", "--json", "many.json"], project.dir);
    expect(run.code).toBe(1);
    const { records } = JSON.parse(await readFile(join(project.dir, "many.json"), "utf8")) as {
      records: AttemptRecord[];
    };
    expect(records).toHaveLength(400);
    const keys = new Set(records.map((r) => `${r.evalId}/${r.caseId}`));
    expect(keys.size).toBe(400);
    const errored = records.filter((r) => r.verdict !== "passed");
    expect(errored.map((r) => r.evalId)).toEqual(["s150"]);
    expect(errored[0]?.error?.message).toMatch(/exited with code 3/);
  });
});
