import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { cleanEnv, json, manyEval } from "./store-fixture.js";

// A shard's reports say it is one shard: in a CI matrix each job's step summary, JSON and JUnit
// report would otherwise read as the whole run's.

describe("the reports of a shard name it", { timeout: 120_000 }, () => {
  let project: FixtureProject;
  let run: Awaited<ReturnType<typeof runCli>>;
  const read = (file: string) => readFile(join(project.dir, file), "utf8");

  beforeAll(async () => {
    project = await makeProject({ "evals/many.eval.ts": manyEval });
    run = await runCli(
      [
        "run",
        "--shard",
        "2/3",
        "--name",
        "s2",
        "--store",
        "s.sqlite",
        "--reporter",
        "markdown=out/s2.md",
        "--reporter",
        "json=out/s2.json",
        "--reporter",
        "junit=out/s2.xml",
        "--reporter",
        "ndjson=out/s2.ndjson",
      ],
      project.dir,
      { ...cleanEnv, MANY_BREAK: "one" },
    );
  }, 60_000);
  afterAll(() => project.cleanup());

  it("in the JSON and NDJSON summaries, as { index, count }", async () => {
    expect(run.stderr).toBe("");
    const report = json<{ summary: { shard?: unknown } }>(await read("out/s2.json"));
    expect(report.summary.shard).toEqual({ index: 2, count: 3 });
    const lines = (await read("out/s2.ndjson")).trim().split("\n");
    const end = json<{ type: string; summary: { shard?: unknown } }>(lines.at(-1)!);
    expect(end.type).toBe("run.finished");
    expect(end.summary.shard).toEqual({ index: 2, count: 3 });
  });

  it("in the Markdown heading, which says the figures are of the shard's cases", async () => {
    const markdown = await read("out/s2.md");
    expect(markdown).toMatch(/^## niceeval shard 2\/3 (✅ passed|❌ failed)\n/);
    expect(markdown).toContain(
      "One shard of a sharded run: the figures below are of its cases only",
    );
  });

  it("in the JUnit report's name and a property of each testsuite", async () => {
    const xml = await read("out/s2.xml");
    expect(xml).toMatch(/<testsuites name="niceeval shard 2\/3" /);
    expect(xml).toContain('<property name="niceeval.shard" value="2/3"/>');
  });

  it("in the console's summary, live and in show", async () => {
    expect(run.stdout).toContain("\nSummary of shard 2/3\n");
    const shown = await runCli(["show", "s2", "--store", "s.sqlite"], project.dir, cleanEnv);
    expect(shown.stdout).toContain("\nSummary of shard 2/3\n");
  });

  it("and a whole run's reports name no shard", async () => {
    const whole = await runCli(
      ["run", "--store", "w.sqlite", "--reporter", "markdown=w.md", "--reporter", "junit=w.xml"],
      project.dir,
      cleanEnv,
    );
    expect(whole.code).toBe(0);
    expect(whole.stdout).toContain("\nSummary\n");
    expect(await read("w.md")).toMatch(/^## niceeval ✅ passed\n/);
    expect(await read("w.xml")).toMatch(/<testsuites name="niceeval" /);
    expect(await read("w.xml")).not.toContain("niceeval.shard");
  });
});

describe("merge and the gates of a merged run", { timeout: 60_000 }, () => {
  it.each(["--min-pass-rate", "--min-score=0.5", "--strict", "--reporter"])(
    "merge %s is a usage error that says how to gate the merged run",
    async (flag) => {
      const project = await makeProject({ "evals/many.eval.ts": manyEval });
      try {
        const merged = await runCli(
          [
            "merge",
            "s-1",
            "s-2",
            flag,
            ...(flag.includes("=") || flag === "--strict" ? [] : ["0.8"]),
          ],
          project.dir,
          cleanEnv,
        );
        expect(merged.code).toBe(2);
        expect(merged.stderr).toContain(
          `niceeval merge has no ${flag.split("=")[0]}: gates and reports apply to the run they are given to`,
        );
        expect(merged.stderr).toContain("niceeval show <merged run> --json");
      } finally {
        await project.cleanup();
      }
    },
  );
});
