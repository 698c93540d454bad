import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredRun } from "../../src/store/types.js";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { cleanEnv, gitInit } from "./store-fixture.js";

// Shards run at different git commits (one rerun after the application changed) are not merged:
// the eval files hash the same, what they import does not.

const suite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
import { answer } from "../src/app.js";

const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });

export const app = defineSuite({
  id: "app",
  cases: Array.from({ length: 12 }, (_, i) => ({ id: "c" + i, input: i, expected: i })),
  target: async (input) => answer(input),
  scorers: [same],
});
`;

describe("merge of shards from different commits (real CLI)", { timeout: 120_000 }, () => {
  let project: FixtureProject;
  let commitA: string;
  let commitB: string;
  const cli = (args: string[]) => runCli(args, project.dir, { ...cleanEnv, NICEEVAL_STORE: "" });
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: project.dir, encoding: "utf8" }).trim();

  beforeAll(async () => {
    project = await makeProject({
      "evals/app.eval.js": suite,
      "src/app.js": "export const answer = (i) => i;\n",
      ".gitignore": ".niceeval/\n",
    });
    commitA = gitInit(project.dir);
    for (const i of [1, 2])
      expect((await cli(["run", "--shard", `${i}/2`, "--name", `s${i}`, "--quiet"])).code).toBe(0);
    await writeFile(
      join(project.dir, "src/app.js"),
      "export const answer = (i) => i % 3 ? i : -1;\n",
    );
    git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qam", "app change");
    commitB = git("rev-parse", "HEAD");
    await cli(["run", "--shard", "2/2", "--name", "s2new", "--quiet"]);
  }, 90_000);
  afterAll(() => project?.cleanup());

  it("refuses (exit 2), naming each shard's commit and what to run again where", async () => {
    const refused = await cli(["merge", "s1", "s2new", "--name", "m"]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe("");
    const [a, b] = [commitA.slice(0, 12), commitB.slice(0, 12)];
    expect(refused.stderr).toMatch(
      new RegExp(
        `^niceeval: cannot merge runs made at different git commits: run [0-9a-f]{8} \\(shard 1/2\\) at ${a}; run [0-9a-f]{8} \\(shard 2/2\\) at ${b}\\. .*Run every shard at one commit, then merge the shards of that commit: check out ${a} and run [0-9a-f]{8} \\(shard 2/2\\) again there, or check out ${b} and run [0-9a-f]{8} \\(shard 1/2\\) again there, each with the same \`niceeval run --shard i/n\` as before\\.\\n$`,
      ),
    );
    const runs = JSON.parse((await cli(["runs", "--json"])).stdout) as { name?: string }[];
    expect(runs.map((r) => r.name)).not.toContain("m");

    // Shards of one commit merge, recorded at that commit.
    const merged = await cli(["merge", "s1", "s2", "--name", "ok"]);
    expect(merged.code, merged.stderr).toBe(0);
    const shown = JSON.parse((await cli(["show", "ok", "--json"])).stdout) as { run: StoredRun };
    expect(shown.run.git?.commit).toBe(commitA);
  });
});
