import { existsSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredRun } from "../../src/store/types.js";
import { type FixtureProject, makeProject, runCli, startCli } from "../support/project.js";

// An export older than the run a store holds (a stale artifact of a retried or resumed CI job)
// is not imported over it: the newer results and the run's end stay, and stderr says why. On the
// way, merge calls a run killed with SIGKILL crashed, as `runs` does.

/**
 * Ten cases. While errors.flag exists, odd cases throw (errored); while hold.flag exists, case
 * c9 never answers (the run is killed while it waits), and the others answer at once.
 */
const suite = `
import { existsSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });

export const re = defineSuite({
  id: "re",
  concurrency: 10,
  cases: Array.from({ length: 10 }, (_, i) => ({ id: "c" + i, input: i, expected: i })),
  target: async (input) => {
    if (existsSync("errors.flag") && input % 2 === 1) throw new Error("flaky backend");
    if (existsSync("hold.flag") && input === 9) {
      console.error("TARGET-STARTED hold");
      return new Promise(() => {});
    }
    return input;
  },
  scorers: [same],
});
`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("import of an export older than the stored run (real CLI)", { timeout: 120_000 }, () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/re.eval.js": suite });
  });
  afterAll(() => project?.cleanup());

  const cli = (args: string[]) => runCli(args, project.dir, { NICEEVAL_STORE: "" });
  const runOf = async (store: string, ref: string) => {
    const shown = await cli(["show", ref, "--json", "--store", store]);
    expect(shown.code, shown.stderr).not.toBe(2);
    return (JSON.parse(shown.stdout) as { run: StoredRun }).run;
  };

  it("keeps a retried run's results when the export from before the retry is imported after it", async () => {
    await writeFile(join(project.dir, "errors.flag"), "");
    const first = await cli(["run", "--name", "re", "--store", "r.sqlite", "--quiet"]);
    expect(first.code).toBe(1);
    expect(
      (await cli(["export", "re", "--ndjson", "re-1.ndjson", "--store", "r.sqlite"])).code,
    ).toBe(0);
    await rm(join(project.dir, "errors.flag"));
    const retry = await cli(["run", "--retry-errors", "re", "--store", "r.sqlite", "--quiet"]);
    expect(retry.code, retry.stderr).toBe(0);
    expect(
      (await cli(["export", "re", "--ndjson", "re-2.ndjson", "--store", "r.sqlite"])).code,
    ).toBe(0);

    expect((await cli(["import", "re-2.ndjson", "--store", "i.sqlite"])).code).toBe(0);
    const stale = await cli(["import", "re-1.ndjson", "--store", "i.sqlite"]);
    expect(stale.code).toBe(0);
    expect(stale.stdout).toMatch(
      /^not imported re-1\.ndjson: run [0-9a-f]{8} \(re\), older than the stored run\n$/,
    );
    expect(stale.stderr).toMatch(
      /^niceeval: warning: re-1\.ndjson is an older export of run [0-9a-f]{8} than the store holds: the store's run was continued \(--resume, --retry-errors\) once, the exported one never\. Nothing of it was written; the stored run stays finished, with its 10 attempts and summaries\./,
    );
    const kept = await runOf("i.sqlite", "re");
    expect(kept.totals).toMatchObject({ attempts: 10, passed: 10, errored: 0 });
    expect(kept.summaries?.[0]).toMatchObject({ passed: 10, errored: 0 });

    // The other order: the newer export replaces the older one, and takes its continuations, so
    // the stale file imported once more is still recognised as older.
    expect((await cli(["import", "re-1.ndjson", "re-2.ndjson", "--store", "j.sqlite"])).code).toBe(
      0,
    );
    const again = await cli(["import", "re-1.ndjson", "--store", "j.sqlite"]);
    expect(again.stdout).toContain("not imported re-1.ndjson");
    const newer = await runOf("j.sqlite", "re");
    expect(newer.totals).toMatchObject({ attempts: 10, passed: 10, errored: 0 });
    expect(newer.resumes).toHaveLength(1);
    // The same export twice is not older: imported again, it changes nothing.
    const twice = await cli(["import", "re-2.ndjson", "--store", "j.sqlite"]);
    expect(twice.stdout).toContain("imported re-2.ndjson");
    expect(twice.stderr).toBe("");
  });

  it("keeps a resumed run finished when the export of its crash is imported after it", async () => {
    await writeFile(join(project.dir, "hold.flag"), "");
    const { child, ended } = startCli(
      ["run", "--name", "k", "--store", "k.sqlite", "--concurrency", "10"],
      project.dir,
    );
    // Killed once the nine cases that answer are stored, c9 still waiting.
    const deadline = Date.now() + 60_000;
    for (;;) {
      expect(Date.now(), "the nine attempts were not stored").toBeLessThan(deadline);
      await sleep(200);
      if (!existsSync(join(project.dir, "k.sqlite"))) continue;
      const listed = await cli(["runs", "--json", "--store", "k.sqlite"]);
      const rows = JSON.parse(listed.stdout || "[]") as { name?: string; attempts?: number }[];
      if (rows.find((r) => r.name === "k")?.attempts === 9) break;
    }
    child.kill("SIGKILL");
    await ended;
    await rm(join(project.dir, "hold.flag"));
    expect(
      (await cli(["export", "k", "--ndjson", "k-crashed.ndjson", "--store", "k.sqlite"])).stdout,
    ).toContain("crashed");
    // Merged as it is, the killed run is called crashed, as `runs` calls it, not running.
    expect((await cli(["runs", "--store", "k.sqlite"])).stdout).toMatch(/ k .* crashed /);
    const early = await cli(["merge", "k", "--name", "early", "--store", "k.sqlite"]);
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(
      /^niceeval: run ([0-9a-f]{8}) \(k\) crashed \(its writer stopped without ending it\): some of its cases may be missing; `niceeval run --resume \1 --store k\.sqlite` runs the rest, then merge again\n$/,
    );
    const resumed = await cli(["run", "--resume", "k", "--store", "k.sqlite", "--quiet"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(
      (await cli(["export", "k", "--ndjson", "k-done.ndjson", "--store", "k.sqlite"])).code,
    ).toBe(0);

    expect((await cli(["import", "k-done.ndjson", "--store", "ki.sqlite"])).code).toBe(0);
    const stale = await cli(["import", "k-crashed.ndjson", "--store", "ki.sqlite"]);
    expect(stale.code).toBe(0);
    expect(stale.stderr).toContain(
      "the stored run stays finished, with its 10 attempts and summaries",
    );
    const kept = await runOf("ki.sqlite", "k");
    expect(kept.status).toBe("finished");
    expect(kept.endedAt).toBeDefined();
    expect(kept.summaries?.[0]).toMatchObject({ passed: 10 });
    // So a merge of it does not call it crashed.
    const merged = await cli(["merge", "k", "--name", "mk", "--store", "ki.sqlite"]);
    expect(merged.stderr).toBe("");
    expect(merged.code).toBe(0);
  });
});
