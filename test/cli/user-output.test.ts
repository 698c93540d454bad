import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";

// With `--reporter ndjson=-`, standard output is a stream of JSON lines that another program
// reads; whatever the code under test prints (when its file loads, while a case runs, through
// console.log or process.stdout.write) goes to stderr instead.

const SUITE = `import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
console.log("LOADED: printed as the eval file loads");
const same = createScorer({ name: "same", score: ({ output, expected }) => {
  console.log("SCORER: printed by a scorer");
  return { score: output === expected ? 1 : 0 };
} });
export const noisy = defineSuite({
  id: "noisy",
  cases: [{ id: "a", input: 1, expected: 1 }, { id: "b", input: 2, expected: 2 }],
  target: (i) => {
    console.log("TARGET: printed by the target for", i);
    process.stdout.write("TARGET-RAW: no newline");
    console.info("TARGET-INFO");
    return i;
  },
  scorers: [same],
});
`;

let project: FixtureProject;

beforeAll(async () => {
  project = await makeProject({ "evals/noisy.eval.js": SUITE });
});

afterAll(async () => {
  await project.cleanup();
});

describe("the code under test printing while stdout carries NDJSON", () => {
  for (const mode of [[], ["--no-supervise"]]) {
    it(`keeps every stdout line JSON and sends the prints to stderr${mode.length ? ` (${mode[0]})` : ""}`, async () => {
      const run = await runCli(
        ["run", "--no-store", "--reporter", "ndjson=-", ...mode],
        project.dir,
      );
      expect(run.code).toBe(0);
      const lines = run.stdout.trimEnd().split("\n");
      const events = lines.map((line) => JSON.parse(line) as { type: string });
      expect(events[0]?.type).toBe("run.started");
      expect(events.at(-1)?.type).toBe("run.finished");
      expect(events.filter((e) => e.type === "record")).toHaveLength(2);
      expect(run.stdout).not.toMatch(/LOADED|SCORER|TARGET/);
      for (const printed of [
        "LOADED:",
        "SCORER:",
        "TARGET: printed by the target for 2",
        "TARGET-RAW",
        "TARGET-INFO",
      ])
        expect(run.stderr).toContain(printed);
      // The human report goes to stderr as well.
      expect(run.stderr).toMatch(/Summary\n {2}1 eval · 2 cases · 2 passed/);
    }, 60_000);
  }
});

describe("the code under test printing a lot to stderr just before the run ends", () => {
  it("reaches the CLI's stderr whole, the last line included", async () => {
    const loud = await makeProject({
      "evals/loud.eval.js": `import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer({ name: "same", score: () => ({ score: 1 }) });
export const loud = defineSuite({
  id: "loud",
  cases: [1, 2, 3].map((n) => ({ id: "c" + n, input: n, expected: n })),
  target: (n) => {
    // About 200 KB: more than a pipe holds, still queued in the eval process as it is closed.
    if (n === 3) for (let i = 0; i < 3000; i++) console.error("line " + i + " " + "x".repeat(60));
    if (n === 3) console.error("LAST-LINE");
    return n;
  },
  scorers: [same],
});
`,
    });
    try {
      const run = await runCli(["run", "--no-store"], loud.dir);
      expect(run.code).toBe(0);
      expect(run.stderr.match(/^line \d+ x+$/gm)?.length).toBe(3000);
      expect(run.stderr).toContain("LAST-LINE");
    } finally {
      await loud.cleanup();
    }
  });
});

describe("the code under test writing as the eval process exits", () => {
  // The CLI waits for the eval process's exit: what an exit listener writes reaches its stderr.
  it("reaches the CLI's stderr whole", async () => {
    const late = await makeProject({
      "evals/late.eval.js": `import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
process.on("exit", () => {
  for (let i = 0; i < 200; i++) console.error("exit line " + i + " " + "y".repeat(60));
  console.error("EXIT-LAST-LINE");
});
const same = createScorer({ name: "same", score: () => ({ score: 1 }) });
export const late = defineSuite({
  id: "late",
  cases: [{ id: "c1", input: 1, expected: 1 }],
  target: (n) => n,
  scorers: [same],
});
`,
    });
    try {
      const run = await runCli(["run", "--no-store"], late.dir);
      expect(run.code).toBe(0);
      expect(run.stderr.match(/^exit line \d+ y+$/gm)?.length).toBe(200);
      expect(run.stderr).toContain("EXIT-LAST-LINE");
    } finally {
      await late.cleanup();
    }
  });
});
