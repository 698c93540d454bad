import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, readJsonRecords, runCli } from "../support/project.js";

// A target that throws an error without a message (`throw new Error()`, a rejected promise of
// one, a thrown ""): the report says it had none, by its kind, rather than a reason that is blank
// ("target of case …: " on the console, " (at …)" in the JSON report).
const files = {
  "evals/targets.eval.ts": `import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const throwers: Record<string, () => never> = {
  plain: () => { throw new Error(); },
  typed: () => { throw new TypeError(""); },
  text: () => { throw ""; },
};

export const targets = defineSuite<string, string>({
  id: "targets",
  cases: Object.keys(throwers).map((id) => ({ id, input: id })),
  target: (id) => throwers[id]!(),
  scorers: [createScorer<string, string>({ name: "any", score: () => ({ score: 1 }) })],
});
`,
};

describe("an error thrown without a message (real CLI)", { timeout: 60_000 }, () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject(files);
  });
  afterAll(() => project.cleanup());

  it("is said to have none, by its kind, on the console and in the JSON report", async () => {
    const run = await runCli(["run", "--no-store", "--json", "r.json"], project.dir);
    expect(run.code, run.stderr).toBe(1);
    const messages = new Map(
      (await readJsonRecords(project.dir, "r.json")).map((r) => [r.caseId, r.error?.message]),
    );
    expect(messages.get("plain")).toMatch(
      /^Error \(no message\) \(at .*targets\.eval\.ts:5:\d+\)\)$/,
    );
    expect(messages.get("typed")).toMatch(
      /^TypeError \(no message\) \(at .*targets\.eval\.ts:6:\d+\)\)$/,
    );
    // A thrown string has no stack: nothing says where.
    expect(messages.get("text")).toBe("an empty string (no message)");
    expect(run.stdout).toMatch(
      /target of case "plain" in eval "targets": Error \(no message\) \(at /,
    );
    expect(run.stdout).toMatch(
      /target of case "typed" in eval "targets": TypeError \(no message\)/,
    );
    expect(run.stdout).toMatch(
      /target of case "text" in eval "targets": an empty string \(no message\)/,
    );
  });
});
