import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, repoRoot } from "../vitest/run-fixture.js";

/** How each script's attempt never settles, its signal ignored: a suite's target, an adapter's create. */
const head = (entry: string) => `
import { defineAdapter, defineSuite, runEvals } from ${JSON.stringify(entry)};
import { createScorer } from ${JSON.stringify(entry.replace(/index\.js$/, "scorers/index.js"))};
const never = () => new Promise(() => {});
const ok = createScorer({ name: "ok", score: () => ({ score: 1 }) });
const suite = defineSuite({ id: "hang", cases: [{ id: "h", input: 1 }], target: never, scorers: [ok] });
const review = defineAdapter({ name: "stuck", create: never }).defineScoreEval({ description: "stuck", test() {} });
const controller = new AbortController();
setTimeout(() => controller.abort(new Error("shutting down")), 50);
const options = { signal: controller.signal, timeoutMs: 60_000, abortGraceMs: 100 };
`;

/** The call each script makes, its time limit a minute away when its grace ends. */
const calls = {
  "runEvals of a suite": "await runEvals([{ eval: suite }], options);",
  "runEvals of a score eval": "await runEvals([{ eval: review }], options);",
  "review.run": "await review.run(options);",
};

let dir: string;
beforeAll(async () => {
  assertBuilt();
  dir = await mkdtemp(join(tmpdir(), "niceeval-abandoned-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Run `source` with plain node: ms from its "returned" line to its exit (killed after 20 s). */
function exitAfterReturn(file: string): Promise<{ code: number | null; ms: number | undefined }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [file], { stdio: ["ignore", "pipe", "inherit"] });
    const killer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    let returnedAt: number | undefined;
    child.stdout.on("data", (chunk: Buffer) => {
      if (returnedAt === undefined && chunk.toString().includes("returned"))
        returnedAt = performance.now();
    });
    child.on("exit", (code) => {
      clearTimeout(killer);
      done({ code, ms: returnedAt === undefined ? undefined : performance.now() - returnedAt });
    });
  });
}

// An attempt abandoned after the abort grace goes on in the background, nothing can stop it in
// process; but nothing of niceeval's (its time limit's timer, a listener) may keep the process
// alive for it: a service that ran the evals exits once they returned.
describe("an attempt abandoned after the abort grace", () => {
  for (const [name, call] of Object.entries(calls)) {
    it.concurrent(`lets the process exit once ${name} returned`, async () => {
      const file = join(dir, `${name.replace(/\W+/g, "-")}.mjs`);
      const entry = pathToFileURL(join(repoRoot, "dist/index.js")).href;
      await writeFile(file, `${head(entry)}\n${call}\nconsole.log("returned");\n`);
      const { code, ms } = await exitAfterReturn(file);
      expect(ms).toBeDefined();
      expect(code).toBe(0);
      expect(ms).toBeLessThan(5000);
    }, 30_000);
  }
});
