import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Comparison } from "../../src/compare/types.js";
import type { RunSummary } from "../../src/runner/summary.js";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { evalFileHeader } from "./eval-source.js";
import { cleanEnv, json } from "./store-fixture.js";

/** 50 good JSONL rows, with a malformed line after the first `broken` of them when asked. */
const rows = (broken?: number) =>
  Array.from({ length: 50 }, (_, i) => {
    const row = JSON.stringify({ id: `c${i}`, input: "x", expected: "x" });
    return i === broken ? `{"id":"c-broken",\n${row}` : row;
  }).join("\n");

// The streaming pattern the README recommends, over readline.
const streamedEval = `${evalFileHeader}import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
async function* stream() {
  const rl = createInterface({ input: createReadStream(new URL("./rows.jsonl", import.meta.url)) });
  for await (const line of rl) if (line.trim()) yield JSON.parse(line);
}
export const streamed = defineSuite({ id: "streamed", cases: () => stream(), target: (s: string) => s, scorers: [same] });
`;

// A dataset read partway must not pass a gate: 20 cases passed and the (cases) attempt errored
// make 95.2%, over --min-pass-rate 0.9, while 30 cases never ran.
describe("a dataset that could not be read whole (real CLI)", { timeout: 120_000 }, () => {
  let project: FixtureProject;
  const cli = (args: string[]) => runCli(args, project.dir, cleanEnv);
  const dataset = (broken?: number) =>
    writeFile(join(project.dir, "evals/rows.jsonl"), rows(broken));
  const read = (file: string) => readFile(join(project.dir, file), "utf8");

  beforeAll(async () => {
    project = await makeProject({ "evals/streamed.eval.ts": streamedEval });
  });
  afterAll(() => project.cleanup());

  it("fails --min-pass-rate and --min-score, saying which eval and after how many cases, in every report", async () => {
    await dataset(20);
    const reports = [
      "--json",
      "out.json",
      "--reporter",
      "junit=out.xml",
      "--reporter",
      "markdown=out.md",
    ];
    const run = await cli([
      "run",
      "--no-store",
      "--min-pass-rate",
      "0.9",
      "--min-score",
      "0.5",
      ...reports,
    ]);
    expect(run.code).toBe(1);
    const said =
      'gate not met: eval "streamed": its dataset was not read whole (reading stopped after 20 cases: reading the cases of eval "streamed" failed: SyntaxError: ';
    expect(run.stdout).toContain(said);
    expect(run.stdout).toMatch(/\nFAIL\n/);
    expect(run.stderr).toContain(`niceeval: ${said}`);
    expect(run.stderr).toMatch(
      /\), so the cases after them never ran and --min-pass-rate 0\.9 cannot be met; fix the dataset and run again/,
    );
    expect(run.stderr).not.toContain("are within --min-pass-rate");
    const report = json<{ summary: RunSummary }>(await read("out.json"));
    expect(report.summary.ok).toBe(false);
    expect(report.summary.gateNames).toEqual([
      '--min-pass-rate: eval "streamed"',
      '--min-score: eval "streamed"',
    ]);
    expect(report.summary.evals[0]?.unread).toMatchObject({ afterCases: 20 });
    const junit = await read("out.xml");
    expect(junit).toContain('<testsuite name="(run gates)" tests="2" failures="2"');
    expect(junit).toContain("reading stopped after 20 cases");
    const markdown = await read("out.md");
    expect(markdown).toContain("## niceeval ❌ failed");
    expect(markdown).toContain("reading stopped after 20 cases");

    // Read whole, the same gates pass.
    await dataset();
    const whole = await cli(["run", "--no-store", "--min-pass-rate", "0.9", "--min-score", "0.5"]);
    expect(whole.code).toBe(0);
  });

  it("fails --fail-on-regression and --fail-on-new-failures against a run that read it whole; --retry-errors reads it again", async () => {
    await dataset();
    expect((await cli(["run", "--quiet", "--name", "whole"])).code).toBe(0);
    await dataset(20);
    const gated = await cli([
      "run",
      "--quiet",
      "--name",
      "broken",
      "--baseline",
      "whole",
      "--fail-on-regression",
      "--fail-on-new-failures",
      "--min-pass-rate",
      "0",
      "--reporter",
      "junit=gated.xml",
    ]);
    expect(gated.code).toBe(1);
    const junit = await read("gated.xml");
    const failed = [
      ...junit.matchAll(/<testcase name="([^"]*)" classname="\(run gates\)" time="0">/g),
    ];
    expect(failed.map((m) => m[1])).toEqual([
      "--min-pass-rate: eval &quot;streamed&quot;",
      "--fail-on-regression: dataset",
      "--fail-on-new-failures",
    ]);

    const compared = await cli([
      "compare",
      "whole",
      "broken",
      "--fail-on-regression",
      "--fail-on-new-failures",
    ]);
    expect(compared.code).toBe(1);
    expect(compared.stderr).toContain(
      'niceeval: regression: eval "streamed": the head run did not read its dataset whole, reading stopped after 20 cases (reading the cases of eval "streamed" failed: SyntaxError: ',
    );
    expect(compared.stderr).toMatch(
      /; 30 cases of the base run were not compared, so a regression among the cases it never ran cannot be ruled out/,
    );
    const data = json<Comparison>((await cli(["compare", "whole", "broken", "--json"])).stdout);
    expect(data.decision.checks).toEqual(["dataset"]);
    expect(data.overall.transitions).toMatchObject({ added: 0, removed: 30, unchanged: 20 });
    // The other way round the base read less: its missing cases are added, which is no regression.
    const reverse = await cli(["compare", "broken", "whole", "--fail-on-regression", "--json"]);
    expect(reverse.code).toBe(0);
    const back = json<Comparison>(reverse.stdout);
    expect(back.warnings.map((w) => w.kind)).toContain("unread");
    expect(back.overall.transitions).toMatchObject({ added: 30, removed: 0 });
    // Both runs stopped reading it at the same place (a run compared with itself): no case of the
    // base is left uncompared, so none can have regressed among the cases the head never ran.
    const same = await cli(["compare", "broken", "broken", "--fail-on-regression", "--json"]);
    expect(same.code).toBe(0);
    const itself = json<Comparison>(same.stdout);
    expect(itself.decision.regression).toBe(false);
    expect(itself.decision.checks).not.toContain("dataset");
    expect(itself.warnings.map((w) => w.kind)).toContain("unread");

    // Still broken, a retry fails the stored gate again; fixed, it passes with every case.
    const again = await cli(["run", "--retry-errors", "broken", "--quiet"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("reading stopped after 20 cases");
    await dataset();
    const fixed = await cli(["run", "--retry-errors", "broken", "--json", "fixed.json"]);
    expect(fixed.code).toBe(0);
    const summary = json<{ summary: RunSummary }>(await read("fixed.json")).summary;
    expect(summary.ok).toBe(true);
    expect(summary.totals.cases).toBe(50);
    expect(summary.evals[0]?.unread).toBeUndefined();
  });
});

describe("a case row with a key a case does not have (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    const lines = [
      { id: "ok", input: "Paris", expected: "Paris" },
      { id: "promptfoo-vars", vars: { prompt: "x" }, expected: "Paris" },
      { id: "typo-inputs", inputs: "Paris", expected: "Paris" },
      { id: "typo-expect", input: "Paris", expect: "Paris" },
      { input: "Paris", expected: "Paris", metadata: { topic: "geo" }, cluster: "capitals" },
    ];
    project = await makeProject({
      "evals/cases.jsonl": lines.map((l) => JSON.stringify(l)).join("\n"),
      "evals/rows.eval.ts": `${evalFileHeader}import { readFileSync } from "node:fs";
export const rows = defineSuite<string, string, string>({
  id: "rows",
  cases: () => readFileSync(new URL("./cases.jsonl", import.meta.url), "utf8").split("\\n").map((l) => JSON.parse(l)),
  target: (input) => input,
  scorers: [same],
});
`,
    });
  });
  afterAll(() => project.cleanup());

  it("errors that case, naming the eval, the case, its index, the key and the key it meant", async () => {
    const run = await runCli(["run", "--no-store"], project.dir);
    expect(run.code).toBe(1);
    const said = (id: string, index: number, key: string, meant: string) =>
      `! cases of eval "rows": case "${id}" (index ${index}) has unknown key "${key}" (did you mean "${meant}"?); known keys: id, input, expected, metadata, cluster; a field the scorers read goes in metadata`;
    expect(run.stdout).toContain(said("promptfoo-vars", 1, "vars", "input"));
    expect(run.stdout).toContain(said("typo-inputs", 2, "inputs", "input"));
    expect(run.stdout).toContain(said("typo-expect", 3, "expect", "expected"));
    // Every key a case may have still runs.
    expect(run.stdout).toContain("5 cases: 2 passed, 0 failed, 3 errored");
  });
});

describe("two scorers of one suite with one name (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/dup.eval.ts": `import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const contains = (needle: string) => createScorer<string, string>({ name: "contains", score: ({ output }) => ({ score: output.includes(needle) ? 1 : 0 }) });
export const dup = defineSuite({
  id: "dup",
  cases: [{ id: "a", input: "Paris is the capital", expected: "" }],
  target: (s: string) => s,
  scorers: [contains("Paris"), contains("Berlin")],
  gates: ["contains"],
});
`,
    });
  });
  afterAll(() => project.cleanup());

  it("fails that file's load, naming the eval, the name and how to rename", async () => {
    const run = await runCli(["run", "--no-store"], project.dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      'evals/dup.eval.ts: AuthoringError: defineSuite("dup"): scorers[0] and scorers[1] are both named "contains"; reports, `gates` and compare tell a case\'s judgments apart by name, so give each its own (createScorer({ name: "contains 2", … }), bindScorer({ id: … }), or a helper that puts what it checks in the name)',
    );
    expect(run.stdout).not.toContain("dup suite");
  });
});
