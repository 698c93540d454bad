import { execFileSync, spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, ONE_CASE_EVAL, runCli } from "../support/project.js";

// A report sent to a named pipe (`mkfifo r; niceeval run --reporter junit=r & cat r`) reaches
// its reader whole. The check that a report can be written opened each file before the run: a
// FIFO's open waits for a reader, and its close then ended what the reader read, so the report
// itself later waited for a reader that had gone, and the run never ended.
describe("a report to a named pipe (real CLI)", { timeout: 60_000 }, () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/echo.eval.ts": ONE_CASE_EVAL });
  });
  afterAll(() => project.cleanup());

  it("is read whole by the pipe's reader, and the run ends", async () => {
    for (const [flag, value, whole] of [
      ["--reporter", "junit=", /^<\?xml[\s\S]*<\/testsuites>\n?$/],
      ["--json", "", /^\{[\s\S]*\}\n?$/],
    ] as const) {
      const fifo = join(project.dir, `report-${flag.slice(2)}.pipe`);
      execFileSync("mkfifo", [fifo]);
      const reader = spawn("cat", [fifo], { stdio: ["ignore", "pipe", "inherit"] });
      let read = "";
      reader.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        read += chunk;
      });
      const closed = new Promise((done) => reader.on("close", done));
      const run = await runCli(
        ["run", "evals", "--no-store", flag, `${value}${fifo}`],
        project.dir,
      );
      await closed;
      expect(run.code, run.stderr).toBe(0);
      expect(read, flag).toMatch(whole);
    }
  });
});
