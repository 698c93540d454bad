// The GitHub reporter's workflow commands and the console report beside them, read back with the
// rules GitHub documents for workflow commands (./workflow-commands.ts): hostile ids, reasons and
// errors make exactly one annotation per failing case, with the title and file they name, and
// never a command of their own.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { githubReporter } from "../../src/report/github-reporter.js";
import { run, tempDir } from "../../src/report/test-support/runs.js";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { REPORT_TAGS, render, tables, tagsOf } from "./gfm.js";
import {
  BIDI,
  HOSTILE_BIDI_SHOWN,
  HOSTILE_EVAL_ID,
  HOSTILE_IDS,
  HOSTILE_SCORER,
  HOSTILE_TEXT,
  hostileSuite,
  THROWN_ID,
  THROWN_MESSAGE,
  UNICODE_ID_SHOWN,
} from "./hostile.js";
import { outputLines, workflowCommands } from "./workflow-commands.js";

/** An annotation's title: eval › case verdict, within 255 characters (a long case id is cut). */
const titled = (name: string, verdict: string) => {
  const title = `${HOSTILE_EVAL_ID} › ${name}`;
  const room = 255 - verdict.length - 1;
  return `${title.length > room ? `${title.slice(0, room - 1)}…` : title} ${verdict}`;
};

/** Each case as an annotation's title names it: a blank id quoted. */
const NAMED = [
  HOSTILE_IDS.punctuation,
  JSON.stringify(HOSTILE_IDS.blank),
  UNICODE_ID_SHOWN,
  HOSTILE_IDS.long,
  THROWN_ID,
];

describe("githubReporter's workflow commands, read as the runner reads them", () => {
  it("annotates each failing case once, on its file, with its eval and case as the title", async () => {
    const written: string[] = [];
    const summary = join(tempDir(), "summary.md");
    await run(
      [{ eval: hostileSuite(true), file: "/repo/evals/a, b:c 100%.eval.ts" }],
      [
        githubReporter({
          env: { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: summary, GITHUB_WORKSPACE: "/repo" },
          write: (text) => written.push(text),
        }),
      ],
    );
    const output = written.join("");
    const commands = workflowCommands(output);
    // One line a command: nothing a case holds starts a line of its own.
    expect(commands).toHaveLength(outputLines(output.trimEnd()).length);
    expect(commands.map((c) => c.command)).toEqual(NAMED.map(() => "error"));
    for (const c of commands) expect(c.properties.file).toBe("evals/a, b:c 100%.eval.ts");
    expect(commands.map((c) => c.properties.title)).toEqual(
      NAMED.map((name) => titled(name, "errored")),
    );
    // GitHub's annotations take a title of 255 characters at most: a long id is cut, the verdict kept.
    const long = commands[3]!.properties.title!;
    expect(long).toHaveLength(255);
    expect(long).toMatch(/^qa \| `evals` .* › long-x+… errored$/);
    const thrown = commands[4]!.message;
    expect(thrown).toContain(`target of case "thrown" in eval "${HOSTILE_EVAL_ID}": `);
    expect(thrown).toContain(
      "first line | with a pipe ⏎ ::error title=injected::from an error: 100% ⏎ a | b",
    );
    const judged = commands[0]!.message;
    expect(judged).toContain(
      "a | b `c` <script>window.__hostile=1</script> <!-- x ]]> &amp; 50% ::",
    );
    expect(output).not.toMatch(BIDI);
    expect(judged).toContain(HOSTILE_BIDI_SHOWN);
    expect(readFileSync(summary, "utf8")).not.toMatch(BIDI);
    expect(readFileSync(summary, "utf8")).toContain("## niceeval ❌ failed");
  });
});

/** The hostile eval as a file of a project, its gate's name carrying a line break of its own. */
function hostileEvalFile(): string {
  const ids = [...Object.values(HOSTILE_IDS), THROWN_ID];
  return `import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const text = ${JSON.stringify(HOSTILE_TEXT)};
const exact = createScorer<string, string>({
  name: ${JSON.stringify(LABEL)},
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0, metadata: { text } }),
});
export const hostile = defineSuite<string, string>({
  id: ${JSON.stringify(HOSTILE_EVAL_ID)},
  cases: ${JSON.stringify(ids)}.map((id) => ({ id, input: id, expected: text })),
  target: (input) => {
    // The base run of a comparison: every case passes.
    if (process.env.HOSTILE_BASE === "1") return text;
    if (input === ${JSON.stringify(THROWN_ID)}) throw new Error(${JSON.stringify(THROWN_MESSAGE)});
    return "out: " + text;
  },
  scorers: [exact],
  gates: [${JSON.stringify(LABEL)}],
});
`;
}

/** A scorer name made from data can hold a line break, and what follows it a command. */
const LABEL = `${HOSTILE_SCORER}\n::warning title=injected::from a label`;

describe("niceeval run --reporter github in GitHub Actions (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/hostile, 1:2.eval.ts": hostileEvalFile() });
  });
  afterAll(() => project.cleanup());

  it("prints the annotations and nothing else GitHub would act on, on stdout and stderr", async () => {
    const summary = join(project.dir, "summary.md");
    const result = await runCli(
      ["run", "evals", "--no-store", "--reporter", "console", "--reporter", "github"],
      project.dir,
      { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: summary, GITHUB_WORKSPACE: project.dir },
    );
    expect(result.code).toBe(1);
    expect(workflowCommands(result.stderr)).toEqual([]);
    const commands = workflowCommands(result.stdout);
    expect(commands.map((c) => [c.command, c.properties.file, c.properties.title])).toEqual(
      NAMED.map((name) => [
        "error",
        "evals/hostile, 1:2.eval.ts",
        titled(name, name === THROWN_ID ? "errored" : "failed"),
      ]),
    );
    // The console's report is there too, naming the blank case.
    expect(result.stdout).toContain(`✗ ${JSON.stringify(HOSTILE_IDS.blank)} failed`);
    // Listed first, the GitHub reporter still writes after the console's case lines (held in
    // its buffer when stdout is a pipe), not before the report's header.
    const first = await runCli(
      ["run", "evals", "--no-store", "--reporter", "github", "--reporter", "console"],
      project.dir,
      { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: summary, GITHUB_WORKSPACE: project.dir },
    );
    const caseLine = first.stdout.indexOf(`✗ ${JSON.stringify(HOSTILE_IDS.blank)} failed`);
    expect(caseLine).toBeGreaterThan(0);
    expect(first.stdout.indexOf("::error")).toBeGreaterThan(caseLine);
  }, 60_000);
  it("with --baseline, as the README's workflow runs it, prints no command of the cases' either", async () => {
    const summary = join(project.dir, "summary.md");
    const github = { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: summary };
    const base = await runCli(["run", "evals", "--store", "s.sqlite"], project.dir, {
      HOSTILE_BASE: "1",
    });
    expect(base.code).toBe(0);
    const head = await runCli(
      ["run", "evals", "--store", "s.sqlite", "--baseline", "latest", "--reporter", "github"],
      project.dir,
      { ...github, GITHUB_WORKSPACE: project.dir },
    );
    expect(head.code).toBe(1);
    // The comparison is printed: each regression, with its error and judgments, on lines of its own.
    expect(head.stdout).toContain("Regressions:");
    expect(head.stdout).toContain(`/${THROWN_ID}: 1/1 passed`);
    expect(workflowCommands(head.stderr)).toEqual([]);
    expect(workflowCommands(head.stdout).map((c) => c.properties.title)).toEqual(
      NAMED.map((name) => titled(name, name === THROWN_ID ? "errored" : "failed")),
    );
    // The step summary, as GitHub renders it: no HTML of the cases', every table whole.
    const html = render(readFileSync(summary, "utf8"));
    expect(html).toContain("<summary>Regressions (5)</summary>");
    expect(tagsOf(html).filter((tag) => !REPORT_TAGS.has(tag))).toEqual([]);
    const found = tables(html);
    expect(found.length).toBeGreaterThanOrEqual(3);
    for (const table of found) for (const row of table) expect(row).toHaveLength(table[0]!.length);
  }, 60_000);
});
