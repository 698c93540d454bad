import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Comparison } from "../../src/compare/types.js";
import type { RunRow } from "../../src/viewer/api.js";
import { type FixtureProject, makeProject, runAndSignal, runCli } from "../support/project.js";
import { cleanEnv, json } from "./store-fixture.js";

// A new user's finding: a run stopped with SIGTERM, resumed with --force after beta's eval file
// gained `threshold: 0.8`, holds attempts of both versions of beta; its manifest says so
// (`resumedWithChanges`), but its configuration hash stays the one it started with, and compare,
// show and runs said nothing.

/** 30 cases whose target takes a while (so a run can be stopped), `extra` added to the suite. */
const suite = (id: string, extra = "") => `import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});
export const ${id} = defineSuite({
  id: "${id}",
  concurrency: 2,
  cases: Array.from({ length: 30 }, (_, i) => ({ id: "c" + i, input: i, expected: i % 4 === 0 ? -1 : i })),
  target: async (i) => {
    console.error("TARGET-STARTED ${id} " + i);
    await new Promise((r) => setTimeout(r, 40));
    return i;
  },
  scorers: [same],${extra}
});
`;

describe("a run resumed with --force after its evals changed, through the real CLI", {
  timeout: 120_000,
}, () => {
  let project: FixtureProject;
  const cli = (args: string[]) => runCli(args, project.dir, cleanEnv);

  beforeAll(async () => {
    project = await makeProject({
      "evals/alpha.eval.js": suite("alpha"),
      "evals/beta.eval.js": suite("beta"),
    });
    await cli(["run", "evals", "--name", "o-base", "--quiet"]);
    const stopped = await runAndSignal(["run", "evals", "--name", "ch1", "--quiet"], project.dir, [
      "SIGTERM",
    ]);
    expect(stopped.code).toBe(143);
    await writeFile(join(project.dir, "evals/beta.eval.js"), suite("beta", "\n  threshold: 0.8,"));
    const refused = await cli(["run", "--resume", "ch1"]);
    expect(refused.code).toBe(2);
    const forced = await cli(["run", "--resume", "ch1", "--force", "--quiet"]);
    expect(forced.stderr).toContain("--force: continuing although its evals changed");
  }, 120_000);
  afterAll(() => project.cleanup());

  it("compare warns of it on either side, naming the run, the eval, what changed and what to do", async () => {
    const compared = await cli(["compare", "o-base", "ch1"]);
    expect(compared.code).toBe(0);
    expect(compared.stdout).toMatch(
      /warning: the head run [0-9a-f]{8} \("ch1"\) was resumed with --force after its evals changed \(file evals\/beta\.eval\.js \(eval beta\); eval beta's configuration\), so eval "beta" holds attempts of both versions: a difference from the other run, or the lack of one, may come from that change; run the evals again as they are now \(a new niceeval run, not --resume --force\) and compare that run, to compare like with like/,
    );
    const data = json<Comparison>((await cli(["compare", "o-base", "ch1", "--json"])).stdout);
    expect(data.warnings.filter((w) => w.kind === "resumed-with-changes")).toEqual([
      expect.objectContaining({
        evals: ["beta"],
        base: "none",
        head: "file evals/beta.eval.js (eval beta); eval beta's configuration",
      }),
    ]);
    const reversed = await cli(["compare", "ch1", "o-base"]);
    expect(reversed.stdout).toMatch(/warning: the base run [0-9a-f]{8} \("ch1"\) was resumed/);
  });

  it("show and runs mark the run", async () => {
    const shown = await cli(["show", "ch1"]);
    const [heading] = shown.stdout.split("\n");
    expect(heading).toContain(" · resumed with changes (see below)");
    expect(shown.stdout).toContain(
      `this run was resumed with --force after its evals changed (file evals/beta.eval.js (eval beta); eval beta's configuration), so eval "beta" holds attempts of both versions: its figures mix the two; run the evals again as they are now (a new niceeval run, not --resume --force) for figures of one version`,
    );
    // The run it was compared with is not marked.
    expect((await cli(["show", "o-base"])).stdout).not.toContain("resumed with");

    const listed = (await cli(["runs"])).stdout.split("\n");
    expect(listed.find((line) => line.includes(" ch1 "))).toMatch(
      /resumed with changes \(1 eval: beta\)$/,
    );
    expect(listed.find((line) => line.includes(" o-base "))).not.toContain("resumed");
    const rows = json<RunRow[]>((await cli(["runs", "--json"])).stdout);
    expect(rows.find((r) => r.name === "ch1")!.resumedWithChanges).toEqual([
      "file evals/beta.eval.js (eval beta)",
      "eval beta's configuration",
    ]);
    expect(rows.find((r) => r.name === "o-base")!.resumedWithChanges).toBeNull();
  });
});
