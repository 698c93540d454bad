import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredRun } from "../../src/store/types.js";
import type { RunRow } from "../../src/viewer/api.js";
import { startPostgres, type TestPostgres } from "../support/postgres.js";
import { type FixtureProject, makeProject, runCli, startCli } from "../support/project.js";

// Four cases at once: "quick" passes, "cut-1" and "cut-2" wait until the run is stopped and then
// answer with what they have (cut off, errored, in no pass rate), and "hold" never answers, so
// the CLI is still waiting for it, with nothing to say the run ended, when it is killed. With
// FAST set every case answers at once (the finished run compared with the crashed one).
const suite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });

export const k = defineSuite({
  id: "k",
  concurrency: 4,
  cases: ["quick", "cut-1", "cut-2", "hold"].map((id) => ({ id, input: id, expected: id })),
  target: async (input, { signal }) => {
    if (input === "quick" || process.env.FAST) return input;
    if (input === "hold") { console.error("TARGET-STARTED hold"); return new Promise(() => {}); }
    return await new Promise((resolve) => signal.addEventListener("abort", () => resolve("partial"), { once: true }));
  },
  scorers: [same],
});
`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a run that crashed while stopping rates alike in runs, show, compare (real CLI)", () => {
  let project: FixtureProject;
  let postgres: TestPostgres | undefined;
  const stores: [string, () => Promise<string>][] = [
    ["SQLite", async () => "crashed.sqlite"],
    [
      "PostgreSQL",
      async () => {
        postgres ??= await startPostgres();
        return postgres.createDatabase("crashed_rate");
      },
    ],
  ];
  beforeAll(async () => {
    project = await makeProject({ "evals/k.eval.js": suite });
  });
  afterAll(async () => {
    await project?.cleanup();
    await postgres?.stop();
  });

  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(args, project.dir, { NICEEVAL_STORE: "", ...env });
  const rowOf = async (store: string, name: string) => {
    const listed = await cli(["runs", "--json", "--store", store]);
    return (JSON.parse(listed.stdout || "[]") as RunRow[]).find((row) => row.name === name);
  };

  for (const [engine, storeOf] of stores) {
    it(`${engine}: SIGINT then SIGKILL, and each view rates the one attempt judged`, async () => {
      const store = await storeOf();
      const base = await cli(["run", "--store", store, "--name", "base"], { FAST: "1" });
      expect(base.code, base.stderr).toBe(0);

      // SIGINT once every case started; SIGKILL once the three that ended are stored.
      let interrupted = false;
      const { child, ended } = startCli(
        ["run", "--store", store, "--name", "k1", "--concurrency", "4"],
        project.dir,
        (stderr, running) => {
          if (interrupted || !stderr.includes("TARGET-STARTED hold")) return;
          interrupted = true;
          setTimeout(() => running.kill("SIGINT"), 100);
        },
      );
      const deadline = Date.now() + 30_000;
      while ((await rowOf(store, "k1"))?.attempts !== 3) {
        expect(Date.now(), "the three attempts that ended were not stored").toBeLessThan(deadline);
        await sleep(100);
      }
      child.kill("SIGKILL");
      expect((await ended).signal).toBe("SIGKILL");

      // Not 33.3% of 3: the two attempts the stop cut off were not judged.
      const listed = await cli(["runs", "--store", store]);
      expect(listed.stdout).toMatch(/k1 .* crashed\s+3 +100\.0% \[20\.7%, 100\.0%\] n=1 /);
      const row = await rowOf(store, "k1");
      expect(row).toMatchObject({
        status: "crashed",
        attempts: 3,
        passed: 1,
        errored: 2,
        interrupted: 2,
        passRate: 1,
      });
      expect(row?.passRateInterval?.low).toBeCloseTo(0.207, 3);

      const shown = await cli(["show", "k1", "--store", store]);
      expect(shown.stdout).toContain(
        "1 eval · 3 cases · 1 passed (100% of 1, 95% CI 20.7–100%) · 0 failed · 2 errored",
      );
      const json = JSON.parse((await cli(["show", "k1", "--json", "--store", store])).stdout) as {
        run: StoredRun;
      };
      expect(json.run.totals).toMatchObject({ attempts: 3, errored: 2, interrupted: 2 });

      // The crashed run as head: its one judged attempt passed, as in base; the two cut off and
      // the one that never ended are cases it did not run.
      const compared = await cli(["compare", "base", "k1", "--store", store]);
      expect(compared.stdout).toContain("pass rate 100.0% → 100.0% (+0.0 pts, n = 1;");
      const comparison = JSON.parse(
        (await cli(["compare", "base", "k1", "--store", store, "--json"])).stdout,
      ) as { overall: { passRate: { n: number; head: number }; transitions: { removed: number } } };
      expect(comparison.overall.passRate).toMatchObject({ n: 1, head: 1 });
      expect(comparison.overall.transitions.removed).toBe(3);
    }, 120_000);
  }
});
