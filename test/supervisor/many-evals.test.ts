import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, readJsonRecords, runCli } from "../support/project.js";

// Many small evals: the CLI asks for the first cases of the next evals ahead, several reads to a
// message each way. With CRASH set, one eval's case ends the eval process in the middle of that.
const manySuite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export const small = Array.from({ length: 300 }, (_, i) =>
  defineSuite({
    id: "s" + String(i).padStart(3, "0"),
    // One dataset among those read ahead answers a little later than the others.
    cases:
      i === 10
        ? async function* () {
            await sleep(20);
            yield { id: "only", input: i, expected: i };
          }
        : [{ id: "only", input: i, expected: i }],
    target: (input) => {
      if (input === 150 && process.env.CRASH) process.exit(3);
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

const waitingSuite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

// A dataset among those read ahead that never gives its case.
export const waiting = Array.from({ length: 50 }, (_, i) =>
  defineSuite({
    id: "w" + String(i).padStart(2, "0"),
    cases:
      i === 20
        ? async function* () {
            await new Promise(() => {});
          }
        : [{ id: "only", input: i, expected: i }],
    target: (input) => input,
    scorers: [same],
  }),
);
`;

describe("a run of many small evals (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/many.eval.ts": manySuite,
      "evals/waiting.eval.ts": waitingSuite,
    });
  });
  afterAll(() => project.cleanup());

  it("runs every case once, the dataset that answers later than the others included", async () => {
    const run = await runCli(
      ["run", "evals/many.eval.ts", "--no-store", "--json", "calm.json"],
      project.dir,
    );
    expect(run.code).toBe(0);
    const records = await readJsonRecords(project.dir, "calm.json");
    expect(records).toHaveLength(400);
    expect(new Set(records.map((r) => `${r.evalId}/${r.caseId}`)).size).toBe(400);
    expect(records.every((r) => r.verdict === "passed")).toBe(true);
  });

  it("runs every case once, and errors only the one that ended the eval process", async () => {
    const run = await runCli(
      ["run", "evals/many.eval.ts", "--no-store", "--json", "many.json"],
      project.dir,
      { CRASH: "1" },
    );
    expect(run.code).toBe(1);
    const records = await readJsonRecords(project.dir, "many.json");
    expect(records).toHaveLength(400);
    const keys = new Set(records.map((r) => `${r.evalId}/${r.caseId}`));
    expect(keys.size).toBe(400);
    const errored = records.filter((r) => r.verdict !== "passed");
    expect(errored.map((r) => r.evalId)).toEqual(["s150"]);
    expect(errored[0]?.error?.message).toMatch(/exited with code 3/);
  });

  it("ends the eval whose dataset never gives its case, and runs the others", async () => {
    const run = await runCli(
      [
        "run",
        "evals/waiting.eval.ts",
        "--no-store",
        "--json",
        "waiting.json",
        "--hang-timeout",
        "1000",
      ],
      project.dir,
    );
    expect(run.code).toBe(1);
    const records = await readJsonRecords(project.dir, "waiting.json");
    const passed = records.filter((r) => r.verdict === "passed").map((r) => r.evalId);
    expect(passed).toHaveLength(49);
    expect(passed).not.toContain("w20");
    const w20 = records.find((r) => r.evalId === "w20");
    expect(w20?.verdict).toBe("errored");
    expect(w20?.error?.message).toMatch(/did not come within/);
  });
});
