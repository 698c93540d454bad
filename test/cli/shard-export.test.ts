import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { cleanEnv, gitBranch, gitInit, manyEval } from "./store-fixture.js";

// `export --html` finds its runs as `show` and `compare` do in a store of sharded runs: a
// `--baseline branch:NAME`, the note when `latest` is one shard, and what to do when two shards
// have no case in common.

describe("export --html in a store of sharded runs", { timeout: 180_000 }, () => {
  let project: FixtureProject;
  const ids: Record<string, string> = {};
  const cli = (args: string[]) => runCli(args, project.dir, { ...cleanEnv, MANY_BREAK: "one" });
  const stored = async (args: string[], name: string) => {
    const run = await cli([...args, "--name", name, "--quiet"]);
    expect(run.stderr).toBe("");
    const shown = await cli(["show", name, "--json"]);
    ids[name] = (JSON.parse(shown.stdout) as { run: { runId: string } }).run.runId;
  };

  beforeAll(async () => {
    project = await makeProject({ "evals/many.eval.ts": manyEval });
    gitInit(project.dir);
    await stored(["run"], "main-1");
    gitBranch(project.dir, "feature");
    for (const i of [1, 2, 3]) await stored(["run", "--shard", `${i}/3`], `feat-${i}`);
    const merged = await cli(["merge", "feat-1", "feat-2", "feat-3", "--name", "feat"]);
    expect(merged.code, merged.stderr).toBe(0);
    ids.feat = (
      JSON.parse((await cli(["show", "feat", "--json"])).stdout) as {
        run: { runId: string };
      }
    ).run.runId;
  }, 150_000);
  afterAll(() => project.cleanup());

  it("takes --baseline branch:NAME as run --baseline and compare do", async () => {
    const exported = await cli(["export", "feat", "--html", "f.html", "--baseline", "branch:main"]);
    expect(exported.stderr).toBe("");
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain(
      `run ${ids.feat!.slice(0, 8)}, 20 attempts, compared with ${ids["main-1"]!.slice(0, 8)}`,
    );
  });

  it("gives the branch:NAME hint only for a baseline that names no run", async () => {
    const run = await cli(["export", "nosuch", "--html", "r.html", "--baseline", "feat-1"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('"nosuch"');
    expect(run.stderr).not.toContain("branch:");
    const base = await cli(["export", "feat", "--html", "b.html", "--baseline", "nosuch"]);
    expect(base.code).toBe(2);
    expect(base.stderr).toContain('"nosuch"');
    expect(base.stderr).toContain("export --baseline also takes branch:NAME");
    for (const file of ["r.html", "b.html"])
      expect(existsSync(join(project.dir, file))).toBe(false);
  });

  it("refuses branch:NAME for the exported run, with --baseline or without", async () => {
    const words =
      "niceeval: export takes the run to export by id, id prefix, name or latest~N, not branch:main: branch:NAME names only the run --baseline compares it with";
    for (const baseline of [[], ["--baseline", "feat-1"]]) {
      const exported = await cli(["export", "branch:main", "--html", "m.html", ...baseline]);
      expect(exported.code).toBe(2);
      expect(exported.stderr).toContain(words);
      expect(exported.stdout).toBe("");
      expect(existsSync(join(project.dir, "m.html"))).toBe(false);
    }
  });

  it("exports the run alone when the branch has no run yet, saying so", async () => {
    const exported = await cli(["export", "feat", "--html", "n.html", "--baseline", "branch:nope"]);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toContain('branch:nope: no finished run on branch "nope"');
    expect(exported.stderr).toContain("nothing to compare; the page holds run");
    expect(exported.stdout).not.toContain("compared with");
  });

  it("says when latest is one shard, naming the merged run", async () => {
    const exported = await cli(["export", "latest", "--html", "l.html"]);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toContain(
      `latest is run ${ids["feat-3"]!.slice(0, 8)} (feat-3), shard 3/3 of a sharded run, not the whole run`,
    );
    expect(exported.stderr).toContain(`The whole run is run ${ids.feat!.slice(0, 8)} (feat)`);
  });

  it("says two shards have no case in common because they are shards, and what to compare", async () => {
    const exported = await cli(["export", "latest", "--html", "s.html", "--baseline", "latest~1"]);
    expect(exported.code).toBe(2);
    expect(exported.stderr).toContain("have no case in common");
    expect(exported.stderr).toContain(
      "The base run is shard 2/3 and the head run shard 3/3 of a sharded run: each shard holds other cases. Compare whole runs: name the merged run of each",
    );
    expect(existsSync(join(project.dir, "s.html"))).toBe(false);
  });
});
