import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";

// Node holds the messages sent to a process until something there listens for them. A module
// preloaded through NODE_OPTIONS that listens first (an agent, an instrumentation hook) took the
// supervisor's first messages, and the eval process waited for its files until --hang-timeout.
describe("a preloaded module that listens for process messages (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/echo.eval.ts": `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });
export const echo = defineSuite({ id: "echo", cases: [{ id: "a", input: "a", expected: "a" }, { id: "b", input: "b", expected: "b" }], target: (x) => x, scorers: [same] });
`,
      // In a process with an IPC channel, it listens, then waits up to a second for a message
      // before letting the process go on, and notes what came.
      "listener.mjs": `import { appendFileSync } from "node:fs";
if (process.send) {
  const first = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve("nothing"), 1000);
    process.on("message", (message) => {
      clearTimeout(timer);
      resolve(typeof message === "string" ? "a string" : message.t);
    });
  });
  appendFileSync(${JSON.stringify(join("PROJECT", "heard.txt"))}.replace("PROJECT", process.cwd()), first + "\\n");
}
`,
    });
  });
  afterAll(() => project.cleanup());

  it("runs every case: the supervisor sends nothing before the eval process listens", async () => {
    const run = await runCli(["run", "--no-store", "--hang-timeout", "5000"], project.dir, {
      NODE_OPTIONS: `--import ${join(project.dir, "listener.mjs")}`,
    });
    expect(run.stderr).not.toContain("did not finish loading");
    expect(run.stdout).toContain("2 passed");
    expect(run.code).toBe(0);
    // The preloaded listener waited its second and heard nothing: the first message came after.
    expect((await readFile(join(project.dir, "heard.txt"), "utf8")).trim()).toBe("nothing");
  }, 60_000);
});
