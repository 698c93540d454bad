// A worker on which one of the run's eval files fails to load (an environment variable or a
// dependency it lacks there) refuses that file's jobs saying so, not that it was given other
// files. A real redis-server and a real `niceeval worker` process.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { startRedis, type TestRedis } from "../support/redis.js";
import { type JsonReport, startWorker, stopAll } from "./fixture.js";

const suite = (id: string, header = "") => `${header}
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
export const ${id} = defineSuite({
  id: "${id}",
  cases: [{ id: "c0", input: 1, expected: 1 }, { id: "c1", input: 2, expected: 2 }],
  target: async (input) => input,
  scorers: [createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) })],
});
`;

let redis: TestRedis;
let project: FixtureProject;

beforeAll(async () => {
  redis = await startRedis();
  project = await makeProject({
    "evals/plain.eval.js": suite("plain"),
    "evals/keyed.eval.js": suite(
      "keyed",
      'if (!process.env.NEEDS_KEY) throw new Error("NEEDS_KEY is not set");',
    ),
  });
}, 120_000);

afterAll(async () => {
  await redis?.stop();
  await project?.cleanup();
});

it("a job of an eval whose file failed to load on the worker is refused with that file's error", async () => {
  const worker = await startWorker(project.dir, redis.url, "load-failed", join(project.dir, "m"));
  try {
    expect(worker.stderr()).toContain("evals/keyed.eval.js: NEEDS_KEY is not set");
    const args = ["run", "evals", "--queue", redis.url, "--queue-name", "load-failed"];
    const result = await runCli([...args, "--json", "r.json", "--no-store"], project.dir, {
      NEEDS_KEY: "1",
    });
    expect(result.code).toBe(1);
    const report = JSON.parse(readFileSync(join(project.dir, "r.json"), "utf8")) as JsonReport;
    const keyed = report.records.filter((r) => r.evalId === "keyed");
    expect(keyed).toHaveLength(2);
    for (const record of keyed) {
      expect(record.verdict).toBe("errored");
      expect(record.error?.message).toMatch(
        /^eval file evals\/keyed\.eval\.js failed to load on worker \S+ \(NEEDS_KEY is not set\b.*\), so it has no eval "keyed": give the worker what the file needs there \(its environment variables, its dependencies\) and restart it$/,
      );
    }
    const plain = report.records.filter((r) => r.evalId === "plain");
    expect(plain.map((r) => r.verdict)).toEqual(["passed", "passed"]);
  } finally {
    await stopAll([worker]);
  }
}, 60_000);
