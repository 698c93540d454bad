import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, readJsonRecords, runCli } from "../support/project.js";

// c3's target returns, then ends the eval process at once (before its record can leave): each
// of its runs appends a line to a file named after the eval.
const suite = (id: string, output: string) => `
import { appendFileSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const ok = createScorer({ name: "ok", score: ({ output }) => ({ score: output === undefined ? 0 : 1 }) });
export const s = defineSuite({
  id: "${id}",
  cases: [1, 2, 3, 4, 5].map((i) => ({ id: "c" + i, input: i })),
  target: async (i) => {
    await new Promise((r) => setTimeout(r, 20));
    if (i === 3) {
      appendFileSync("${id}.runs", "x\\n");
      setImmediate(() => process.exit(0));
    }
    return ${output};
  },
  scorers: [ok],
});
`;

const runsOf = async (dir: string, id: string) =>
  (await readFile(join(dir, `${id}.runs`), "utf8")).trim().split("\n").length;
const crashLines = (stderr: string) =>
  stderr.split("\n").filter((line) => line.includes("starting a new eval process"));

describe("an attempt that ends the eval process right after it returns (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/exitafter.eval.ts": suite("exitafter", "i"),
      // Its record holds a value JSON cannot carry, so it cannot be written on the way out.
      "evals/mapafter.eval.ts": suite("mapafter", "new Map([[i, i]])"),
    });
  });
  afterAll(() => project.cleanup());

  // One eval file at --concurrency 1, with its JSON report's verdicts as "case:verdict".
  const run = async (id: string, ...flags: string[]) => {
    const args = ["run", `evals/${id}.eval.ts`, "--concurrency", "1", "--no-store"];
    const cli = await runCli([...args, "--json", `${id}.json`, ...flags], project.dir);
    const records = await readJsonRecords(project.dir, `${id}.json`);
    return { cli, records, verdicts: records.map((r) => `${r.caseId}:${r.verdict}`) };
  };

  it("keeps the record it finished, runs it once, and names it in the crash notice", async () => {
    const { cli, verdicts } = await run("exitafter");
    expect(verdicts).toEqual(["c1", "c2", "c3", "c4", "c5"].map((id) => `${id}:passed`));
    expect(await runsOf(project.dir, "exitafter")).toBe(1);
    expect(crashLines(cli.stderr)).toEqual([
      expect.stringMatching(
        /exited with code 0(?: \(process\.exit called at .*?\)\))? just after exitafter\/c3 ended/,
      ),
    ]);
    expect(cli.code).toBe(0);
  }, 60_000);

  it("names each trial in the crash notices when the eval runs several", async () => {
    const { cli } = await run("exitafter", "--trials", "2");
    const lines = crashLines(cli.stderr);
    expect(lines).toHaveLength(2);
    expect(lines.join("\n")).toMatch(/just after exitafter\/c3 \[trial 1\] ended/);
    expect(lines.join("\n")).toMatch(/just after exitafter\/c3 \[trial 2\] ended/);
    expect(cli.code).toBe(0);
  }, 60_000);

  it("errors it at the second such exit when its record cannot be kept, instead of running it again and again", async () => {
    const { cli, records, verdicts } = await run("mapafter");
    expect(verdicts).toEqual(["c1:passed", "c2:passed", "c3:errored", "c4:passed", "c5:passed"]);
    expect(await runsOf(project.dir, "mapafter")).toBe(2);
    expect(records[2]?.error?.message).toMatch(
      /the eval process exited with code 0(?: \(process\.exit called at .*?\)\))? just after this case ended, before its record left/,
    );
    expect(crashLines(cli.stderr)).toHaveLength(2);
  }, 60_000);
});
