import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlmServer, fake, startFakeLlmServer } from "../support/fake-llm-server.js";
import { type FixtureProject, makeProject, runCli, startCli } from "../support/project.js";
import { disagreements, type Reading } from "./surface-figures.js";
import { liveSurfaces, readPageText, storedSurfaces } from "./surfaces.js";

// Every surface that reports a run gives the same figures for it: the live console, JSON, NDJSON,
// JUnit and Markdown reports, `show`, `runs --json`, the viewer's API and pages, the HTML export.
// The run holds what makes the arithmetic awkward: passed, failed, errored and skipped cases,
// gates and weighted points, judges that cannot answer (a server answering 503, a missing key),
// an eval whose every case errored, one whose every case was skipped.

const evalSource = `import { bindScorer, configureJudges, defineAdapter, defineSuite, judgeFromModel } from "niceeval";
import { atLeast, countWhere, equals } from "niceeval/expect";
import { createScorer, llmJudge } from "niceeval/scorers";
configureJudges({ maxRetries: 0 });
const same = createScorer<string, string>({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});
const third = createScorer<string, string>({
  name: "third",
  score: ({ output }) => ({ score: output.length % 3 === 0 ? 1 : 0.25 }),
});
const judged = (id: string, model: string) =>
  bindScorer(llmJudge({ id, judge: judgeFromModel(model), criteria: "Is it helpful?", mapOutput: ({ output }) => output }));
const flaky = process.env.FLAKY === "1";
export const qa = defineSuite<string, string>({
  id: "qa",
  cases: [
    { id: "a", input: "aaa", expected: "aaa" },
    { id: "b", input: "b", expected: "B" },
    { id: "c", input: "crash", expected: "crash" },
    { id: "d", input: "dd", expected: "dd" },
    { id: "e", input: "eeee", expected: "eeee" },
    { id: "f", input: "f", expected: "F" },
  ],
  target: async (input, { trial }) => {
    if (input === "crash") throw new Error("target broke on c");
    if (flaky && input === "dd" && trial === 1) return "nope";
    if (flaky && input === "eeee" && trial !== 0) return "nope";
    return input;
  },
  scorers: [same, third, judged("helpful", "openai/judge")],
  gates: ["same"],
});
export const strict = defineSuite<string, string>({
  id: "strict",
  cases: [
    { id: "s1", input: "x", expected: "x" },
    { id: "s2", input: "yyy", expected: "yyy" },
    { id: "s3", input: "z", expected: "q" },
  ],
  target: async (input) => input,
  scorers: [same, third, judged("keyless", "anthropic/judge")],
  gates: ["same"],
});
export const broken = defineSuite<string, string>({
  id: "broken",
  cases: [{ id: "k1", input: "x", expected: "x" }, { id: "k2", input: "y", expected: "y" }],
  target: async () => { throw new Error("no app"); },
  scorers: [same],
});
const app = defineAdapter({
  name: "app",
  create: async (ctx) => ({
    n: ctx.trial + 3,
    items: { state: "complete", items: [1, 2, 3] },
    lost: { state: "unavailable", reason: "recorder was off" },
  }),
  assertions: () => ({}),
});
export const review = app.defineScoreEval({
  id: "review",
  description: "weighted points, one check without evidence",
  test(t) {
    t.check(t.n, atLeast(1)).gate().label("n>=1");
    t.score(0.8, { weight: 10 }).label("Resolution");
    t.check(t.items, countWhere(equals(2), atLeast(1))).score(5).label("has 2");
    t.check(t.lost, countWhere(equals(2), atLeast(1))).score(3).label("lost");
  },
});
export const reviewFail = app.defineScoreEval({
  id: "review-fail",
  description: "a gate fails, points kept",
  test(t) {
    t.check(t.n, atLeast(100)).gate().label("n>=100");
    t.score(0.5, { weight: 4 }).label("half");
  },
});
export const noEvidence = app.defineScoreEval({
  id: "gate-without-evidence",
  description: "a gate without evidence",
  test(t) {
    t.check(t.lost, countWhere(equals(2), atLeast(1))).gate().label("lost gate");
    t.score(1, { weight: 2 }).label("full");
  },
});
export const later = app.defineScoreEval({
  id: "later",
  description: "every case skipped",
  test(t) {
    t.skip("not built");
  },
});
`;

let server: FakeLlmServer;
beforeAll(async () => {
  server = await startFakeLlmServer({ respond: () => fake.overloaded() });
});
afterAll(() => server.close());

const judgeEnv = () => ({
  NICEEVAL_JUDGE_BASE_URL: "",
  NICEEVAL_JUDGE_API_KEY: "",
  OPENAI_BASE_URL: server.openaiBaseURL,
  OPENAI_API_KEY: "test-key",
  ANTHROPIC_API_KEY: "",
});

/**
 * A run named `name` (a continuation keeps its run's name: `name` then names only its report
 * files) with every reporter: its live surfaces, by name.
 */
async function reportedRun(
  dir: string,
  name: string,
  args: readonly string[] = [],
  env: Record<string, string> = {},
): Promise<{ code: number | null; console: string; surfaces: Record<string, Reading> }> {
  const files = { json: `${name}.json`, junit: `${name}.xml`, markdown: `${name}.md` };
  const run = await runCli(
    [
      "run",
      ...(args.includes("--resume") || args.includes("--retry-errors") ? [] : ["--name", name]),
      "--reporter",
      "console",
      "--reporter",
      `json=${files.json}`,
      "--reporter",
      `junit=${files.junit}`,
      "--reporter",
      `markdown=${files.markdown}`,
      "--reporter",
      "ndjson=-",
      ...args,
    ],
    dir,
    { ...judgeEnv(), ...env },
  );
  return {
    code: run.code,
    console: run.stderr,
    surfaces: await liveSurfaces(dir, files, run.stderr, run.stdout),
  };
}

/** `show`'s report without the line naming the run, which the live report does not have. */
const shownReport = async (dir: string, run: string) =>
  (await runCli(["show", run], dir)).stdout.replace(/^niceeval show: run .*\n/, "");

describe("one run, every surface (real CLI, store, viewer and Chromium)", {
  timeout: 120_000,
}, () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/mixed.eval.ts": evalSource });
  });
  afterAll(() => project.cleanup());

  it("gives the same counts, rates, intervals and means everywhere", async () => {
    const live = await reportedRun(project.dir, "mixed");
    expect(live.code, live.console).toBe(1);
    // What the run is: unavailable points stay in max (a lower bound), never a zero.
    expect(live.surfaces.json!.evals.qa).toMatchObject({ mean: "0.333", lowerBound: "true" });
    expect(live.surfaces.json!.evals.strict).toMatchObject({ meanN: "3", lowerBound: "true" });
    expect(live.surfaces.json!.evals.broken).toMatchObject({ meanN: "0", errored: "2" });
    expect(live.surfaces.json!.evals.later).toMatchObject({ rateN: "0", skipped: "1" });
    expect(live.surfaces.json!.totals).toMatchObject({ rate: "42.9", rateN: "14" });
    // Both ways a judge is unavailable: a server that answers 503, a key that is not set.
    expect(live.console).toContain("answered HTTP 503");
    expect(live.console).toContain("ANTHROPIC_API_KEY");
    const stored = await storedSurfaces(project.dir, "mixed", { browser: true });
    expect(Object.keys(stored)).toHaveLength(6);
    expect(disagreements({ ...live.surfaces, ...stored })).toEqual([]);
  });

  it("shows a stored run as the live report showed it, its time included", async () => {
    const again = await reportedRun(project.dir, "again");
    const live = await readFile(join(project.dir, "again.json"), "utf8");
    expect(JSON.parse(live).summary.elapsedMs).toBeGreaterThan(0);
    expect(again.console).toMatch(/\n {2}time: [\d.]+ m?s\n/);
    expect(await shownReport(project.dir, "again")).toBe(again.console);
    // Exported and imported into another store, the run still says the time it took.
    expect((await runCli(["export", "again", "--ndjson", "again.ndjson"], project.dir)).code).toBe(
      0,
    );
    const copy = ["--store", "copy.sqlite"];
    expect((await runCli(["import", "again.ndjson", ...copy], project.dir)).code).toBe(0);
    const imported = await runCli(["show", "again", ...copy], project.dir);
    expect(imported.stdout.replace(/^niceeval show: run .*\n/, "")).toBe(again.console);
    // A time no run has, edited into the export, is refused before anything is stored.
    const lines = (await readFile(join(project.dir, "again.ndjson"), "utf8")).trimEnd().split("\n");
    const end = JSON.parse(lines.at(-1)!);
    await writeFile(
      join(project.dir, "edited.ndjson"),
      `${[...lines.slice(0, -1), JSON.stringify({ ...end, elapsedMs: -5 })].join("\n")}\n`,
    );
    const refused = await runCli(
      ["import", "edited.ndjson", "--store", "other.sqlite"],
      project.dir,
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `edited.ndjson: line ${lines.length} has elapsedMs -5; a run's time is a finite number of milliseconds from 0`,
    );
    const none = await runCli(["runs", "--json", "--store", "other.sqlite"], project.dir);
    expect(JSON.parse(none.stdout)).toEqual([]);
  });
});

describe("trials with flaky cases, every surface (real CLI)", { timeout: 120_000 }, () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/mixed.eval.ts": evalSource });
  });
  afterAll(() => project.cleanup());

  it("gives the same figures, counting cases where an interval counts them", async () => {
    const live = await reportedRun(project.dir, "trials", ["--trials", "3"], { FLAKY: "1" });
    expect(live.code, live.console).toBe(1);
    expect(live.console).toContain("~ d flaky: 2/3 passed");
    expect(live.surfaces.json!.evals.qa).toMatchObject({ attempts: "18", rateCases: "6" });
    const stored = await storedSurfaces(project.dir, "trials", { browser: true });
    expect(disagreements({ ...live.surfaces, ...stored })).toEqual([]);
    expect(await shownReport(project.dir, "trials")).toBe(live.console);
  });

  it("counts an eval's cases in runs --eval as runs and the reports count them", async () => {
    await reportedRun(project.dir, "trials-eval", ["--trials", "3"], { FLAKY: "1" });
    // The run's line: its 14 cases (the skipped one counted), of 45 attempts.
    const whole = await runCli(["runs", "--limit", "1"], project.dir);
    expect(whole.stdout).toMatch(/ finished +15 +35\.7% \[[\d.]+%, [\d.]+%\] n=42 \(14 cases\)/);
    // qa: 18 attempts of 6 cases, as the console's trials line and the interval's "6 cases" say.
    const qa = await runCli(["runs", "--limit", "1", "--eval", "qa"], project.dir);
    expect(qa.stdout).toMatch(/ finished +6 +33\.3% \[[\d.]+%, [\d.]+%\] n=18 \(6 cases\)/);
  });
});

describe("two runs of flaky trials compared (real CLI, Chromium)", { timeout: 120_000 }, () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/mixed.eval.ts": evalSource });
  });
  afterAll(() => project.cleanup());

  it("does not say cases changed where none did, on the comparison page", async () => {
    for (const name of ["base", "head"])
      await runCli(["run", "--name", name, "--trials", "3"], project.dir, {
        ...judgeEnv(),
        FLAKY: "1",
      });
    const compared = await runCli(["compare", "base", "head", "--json"], project.dir);
    const json = JSON.parse(compared.stdout);
    // Nothing changed: every case as it was, the flaky ones flaky alike.
    expect(json.overall.transitions).toMatchObject({ unchanged: 14, passToFail: 0 });
    expect(json.overall.passRate.permutationTest).toMatchObject({ mixed: 2 });
    const file = join(project.dir, "compared.html");
    const exported = await runCli(
      ["export", "head", "--html", file, "--baseline", "base"],
      project.dir,
    );
    expect(exported.code, exported.stderr).toBe(0);
    const page = await readPageText(`file://${file}`, "paired cases");
    expect(page).toContain("14 paired cases · 0 pass→fail");
    // The permutation test can move only the cases whose trials disagree: that is what it counts.
    expect(page).not.toMatch(/only \d+ paired cases? changed/);
    expect(page).toContain(
      "only 2 paired cases have trials that disagree, too few to show a regression",
    );
  });
});

/** Ten cases, slow when SLOW_MS says so; s5 errors while S5_ERRORS is set, s6 fails its trial 2. */
const slowSource = `import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer<string, string>({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});
const half = createScorer<string, string>({
  name: "half",
  score: ({ output }) => ({ score: output.endsWith("1") ? 0.5 : 1 }),
});
export const slow = defineSuite<string, string>({
  id: "slow",
  cases: Array.from({ length: 10 }, (_, i) => ({
    id: "s" + i,
    input: "s" + i,
    expected: i % 4 === 3 ? "x" : "s" + i,
  })),
  target: async (input, { trial }) => {
    const ms = Number(process.env.SLOW_MS ?? 0);
    if (ms) await new Promise((r) => setTimeout(r, ms));
    if (process.env.MARK) process.stderr.write("DONE " + input + "\\n");
    if (input === "s5" && process.env.S5_ERRORS) throw new Error("s5 flaked");
    if (input === "s6" && trial === 1) return "flaky";
    return input;
  },
  scorers: [same, half],
  gates: ["same"],
});
`;

/** A continuation's console report without the notes on stderr that say what it continues. */
const reportOnly = (stderr: string) => stderr.replace(/^niceeval: .*\n/gm, "");

/** Surfaces by name, those named only. */
const only = (readings: Record<string, Reading>, names: readonly string[]) =>
  Object.fromEntries(names.map((name) => [name, readings[name]!]));

describe("a run killed halfway, resumed, retried (real CLI)", { timeout: 120_000 }, () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/mixed.eval.ts": evalSource,
      "evals/slow.eval.ts": slowSource,
    });
  });
  afterAll(() => project.cleanup());

  it("agrees while crashed, and after --resume and --retry-errors", async () => {
    const env = { ...judgeEnv(), SLOW_MS: "60", S5_ERRORS: "1", MARK: "1" };
    const args = ["run", "--name", "killed", "--trials", "3", "--concurrency", "1"];
    const killed = await startCli(
      args,
      project.dir,
      (stderr, child) => {
        if (stderr.includes("DONE s3")) child.kill("SIGKILL");
      },
      env,
    ).ended;
    expect(killed.signal).toBe("SIGKILL");
    // Crashed: no summaries. Its page, as `show`, folds its attempts (every skipped trial of
    // "later" is no case of the interval); the list gives what its stored counts allow.
    const crashed = await storedSurfaces(project.dir, "killed", { browser: true });
    const folded = only(crashed, ["show", "view /api/runs/:run", "view page"]);
    expect(folded.show!.evals.later).toMatchObject({ skipped: "3", passed: "0" });
    expect(folded.show!.evals.slow).toBeDefined();
    expect(disagreements(folded)).toEqual([]);
    expect(disagreements(only(crashed, ["runs", "view /api/runs"]))).toEqual([]);

    const resumed = await reportedRun(project.dir, "resumed", ["--resume", "killed"], {
      S5_ERRORS: "1",
    });
    expect(resumed.console).toContain("resuming run");
    expect(resumed.surfaces.json!.evals.slow).toMatchObject({ attempts: "30", errored: "3" });
    const afterResume = await storedSurfaces(project.dir, "killed");
    expect(disagreements({ ...resumed.surfaces, ...afterResume })).toEqual([]);
    expect(await shownReport(project.dir, "killed")).toBe(reportOnly(resumed.console));

    const retried = await reportedRun(project.dir, "retried", ["--retry-errors", "killed"]);
    expect(retried.surfaces.json!.evals.slow).toMatchObject({ attempts: "30", errored: "0" });
    const afterRetry = await storedSurfaces(project.dir, "killed");
    expect(disagreements({ ...retried.surfaces, ...afterRetry })).toEqual([]);
    expect(await shownReport(project.dir, "killed")).toBe(reportOnly(retried.console));
  });
});

describe("shards merged (real CLI)", { timeout: 120_000 }, () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/mixed.eval.ts": evalSource,
      "evals/slow.eval.ts": slowSource,
    });
  });
  afterAll(() => project.cleanup());

  it("gives the merged run the figures of the same run unsharded", async () => {
    const env = { FLAKY: "1" };
    const whole = await reportedRun(project.dir, "whole", ["--trials", "3"], env);
    for (const shard of ["1/2", "2/2"]) {
      const name = `part-${shard[0]}`;
      const run = await runCli(
        ["run", "--name", name, "--trials", "3", "--shard", shard],
        project.dir,
        {
          ...judgeEnv(),
          ...env,
        },
      );
      expect(run.stdout).toContain(`Summary of shard ${shard}`);
    }
    const merged = await runCli(["merge", "part-1", "part-2", "--name", "merged"], project.dir);
    expect(merged.code, merged.stderr).toBe(0);
    const stored = await storedSurfaces(project.dir, "merged", { browser: true });
    expect(disagreements({ ...whole.surfaces, ...stored })).toEqual([]);
    const compared = JSON.parse(
      (await runCli(["compare", "whole", "merged", "--json"], project.dir)).stdout,
    );
    expect(compared.overall.transitions).toMatchObject({ unchanged: 6 + 3 + 2 + 1 + 1 + 1 + 10 });
  });
});
