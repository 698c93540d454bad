import { readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Comparison } from "../../src/compare/types.js";
import { type EvalFigures, formatMeanScore } from "../../src/report/figures.js";
import type { EvalSummary } from "../../src/runner/events.js";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { evalFileHeader } from "./eval-source.js";
import {
  cleanEnv,
  gitBranch,
  gitInit,
  json,
  manyEval,
  qaEval,
  softEval,
  withoutTimings,
} from "./store-fixture.js";

// Issue 9 end to end: trials and reducers, compare, --baseline, CI reporters and gates.

describe("trials, comparison and baselines through the real CLI", { timeout: 120_000 }, () => {
  let project: FixtureProject;
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(args, project.dir, { ...cleanEnv, ...env });

  beforeAll(async () => {
    project = await makeProject({
      "evals/qa.eval.ts": qaEval,
      "many/many.eval.ts": manyEval,
      "soft/soft.eval.ts": softEval,
    });
    gitInit(project.dir);
  });
  afterAll(() => project.cleanup());

  it("show and compare name an attempt's trial only when its eval ran several, as the live report does", async () => {
    const own = await makeProject({
      "evals/partial.eval.ts": `
import { defineAdapter } from "niceeval";
const app = defineAdapter({ name: "app", create: () => ({}) });
export const partial = app.defineScoreEval({ id: "partial", description: "partial", test(t) {
  t.score(1, { weight: 1 }).label("Quality");
  t.score({ state: "unavailable", reason: "no clock" }, { weight: 1 }).label("Latency");
} });
`,
    });
    const run = (args: string[]) => runCli(args, own.dir, cleanEnv);
    const placeLine = (out: string) => out.split("\n").find((l) => l.includes("in eval partial"));
    try {
      for (const [name, trials] of [
        ["base", "1"],
        ["head", "1"],
        ["twice", "2"],
      ] as const) {
        const live = await run(["run", "--name", name, "--trials", trials]);
        expect(live.code).toBe(0);
        const shown = await run(["show", name]);
        expect(placeLine(shown.stdout), name).toBe(placeLine(live.stdout));
      }
      const once = await run(["show", "base"]);
      expect(placeLine(once.stdout)?.trim()).toBe(
        'in eval partial, case default, t.score "Latency"',
      );
      const twice = await run(["show", "twice"]);
      expect(placeLine(twice.stdout)?.trim()).toBe(
        'in eval partial, case default [trial 1], t.score "Latency"; eval partial, case default [trial 2], t.score "Latency"',
      );
      const compared = await run(["compare", "base", "head"]);
      expect(compared.stdout).toContain(
        "the attempts: base:partial/default (partial), head:partial/default (partial)",
      );
      const withTrials = await run(["compare", "base", "twice"]);
      expect(withTrials.stdout).toContain(
        "the attempts: base:partial/default (partial), head:partial/default [trial 1] (partial), head:partial/default [trial 2] (partial)",
      );
    } finally {
      await own.cleanup();
    }
  });

  it("--trials 3 reports reducers and the flaky case, in the console and in JSON", async () => {
    const run = await cli(
      [
        "run",
        "evals",
        "--trials",
        "3",
        "--name",
        "trials",
        "--json",
        "trials.json",
        "--reporter",
        "junit=trials.xml",
      ],
      { FLAKY: "1" },
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("qa suite · evals/qa.eval.ts · 3 trials");
    expect(run.stdout).toMatch(/✗ b \[trial 1\] failed/);
    expect(run.stdout).toMatch(/✓ b \[trial 2\] passed/);
    expect(run.stdout).toContain("9 attempts: 8 passed, 1 failed");
    expect(run.stdout).toContain(
      "trials: 3 cases × 3 · pass@1 88.9% · pass@2 100% · pass@3 100% · pass^2 77.8% · pass^3 66.7% · at-least-2 100% · at-least-3 66.7%",
    );
    expect(run.stdout).toContain("1 flaky case");
    expect(run.stdout).toContain("~ b flaky: 2/3 passed (✗✓✓)");

    const report = json<{ summary: { evals: EvalSummary[] } }>(
      await readFile(join(project.dir, "trials.json"), "utf8"),
    );
    const trials = report.summary.evals[0]!.trials!;
    expect(trials).toMatchObject({ cases: 3, attempts: 9, trials: { min: 3, max: 3 } });
    const k3 = trials.byK.find((r) => r.k === 3)!;
    expect(k3.passAtK.value).toBe(1);
    expect(k3.passHatK.value).toBeCloseTo(2 / 3, 10);
    expect(trials.byK[0]!.passAtK.value).toBeCloseTo(8 / 9, 10);
    // One interval per figure, over the 3 cases, in the console and the JSON: the pass rate's is
    // pass@1's, the mean score's the per-case mean's; `attempts` names what `cases` counts.
    const qa = report.summary.evals[0] as EvalSummary & { attempts: number; figures: EvalFigures };
    expect(qa).toMatchObject({ cases: 9, attempts: 9 });
    expect(qa.figures.passRate).toMatchObject({ n: 9, cases: 3 });
    expect(qa.figures.passRate.interval!.low).toBeCloseTo(trials.byK[0]!.passAtK.interval!.low, 12);
    expect(qa.figures.passRate.interval!.high).toBeCloseTo(
      trials.byK[0]!.passAtK.interval!.high,
      12,
    );
    expect(qa.figures.meanScore).toMatchObject({ n: 9, cases: 3 });
    expect(qa.figures.meanScore.interval!.low).toBeCloseTo(trials.score.mean.interval!.low, 12);
    expect(qa.figures.meanScore.interval!.high).toBeCloseTo(trials.score.mean.interval!.high, 12);
    expect(run.stdout).toContain(`mean score ${formatMeanScore(qa.figures.meanScore)}`);
    expect(trials.flaky).toEqual({
      count: 1,
      truncated: false,
      cases: [
        { caseId: "b", index: 1, verdicts: ["failed", "passed", "passed"], passed: 2, trials: 3 },
      ],
    });
    // Averages of figures in [0, 1] keep their interval in [0, 1].
    expect(k3.passHatK.interval!.high).toBeLessThanOrEqual(1);

    const junit = await readFile(join(project.dir, "trials.xml"), "utf8");
    expect(junit).toMatch(/<testcase name="b \[trial 1\]" classname="qa"[^>]*>\s*<failure/);
    expect(junit).toContain('<testcase name="b [trial 3]"');

    const shown = await cli(["show", "trials"]);
    expect(shown.stdout).toContain("~ b flaky: 2/3 passed (✗✓✓)");
    expect(shown.stdout).toContain("pass^3 66.7% · at-least-2 100% · at-least-3 66.7%");
  });

  it("compare of trial runs says a case's pass rate moved, keeping pass-to-fail for all trials to none", async () => {
    // After the test above: "trials" passed b in 2 of 3 trials.
    const broken = await cli(["run", "evals", "--trials", "3", "--name", "trials-b", "--quiet"], {
      BREAK: "b",
    });
    expect(broken.code).toBe(1);
    const down = await cli(["compare", "trials", "trials-b"]);
    expect(down.stdout).toContain(
      "pass-rate-down qa/b: 2/3 passed, score 0.833 → 0/3 passed, score 0.500",
    );
    expect(down.stdout).not.toContain("pass-to-fail");
    expect(down.stdout).toContain(
      "0 pass→fail, 0 became errored, 0 fail→pass, 1 pass rate down, 0 pass rate up, 0 added",
    );
    const up = json<Comparison>((await cli(["compare", "trials-b", "trials", "--json"])).stdout);
    expect(up.evals[0]!.changes.map((c) => [c.caseId, c.kind, c.regression])).toEqual([
      ["b", "pass-rate-up", false],
    ]);
    expect(up.overall.transitions).toMatchObject({ failToPass: 0, passRateUp: 1 });
    // All three trials to none is still pass-to-fail.
    const all = await cli(["run", "evals", "--trials", "3", "--name", "trials-ab", "--quiet"], {
      BREAK: "a,b",
    });
    expect(all.code).toBe(1);
    const fell = await cli(["compare", "trials", "trials-ab"]);
    expect(fell.stdout).toContain("pass-to-fail qa/a: 3/3 passed");
    expect(fell.stdout).toContain("pass-rate-down qa/b: 2/3 passed");
  });

  it("compare lists regressions first with the changed judgment, and McNemar p", async () => {
    expect((await cli(["run", "evals", "--name", "good", "--quiet"])).code).toBe(0);
    expect((await cli(["run", "evals", "--name", "bad", "--quiet"], { BREAK: "a,b" })).code).toBe(
      1,
    );
    const compared = await cli(["compare", "good", "bad"]);
    expect(compared.code).toBe(0);
    const out = compared.stdout;
    expect(out).toContain("no significant regression at alpha = 0.05");
    expect(out.indexOf("Regressions:")).toBeLessThan(out.indexOf("Overall:"));
    expect(out).toContain("pass-to-fail qa/a");
    expect(out).toContain(
      'gate same (scorer): matched 1/1 "1 >= threshold 0.5" → mismatched 0/1 "0 < threshold 0.5"',
    );
    expect(out).toContain("2 pass→fail");
    expect(out).toContain("McNemar p = 0.5");

    const data = json<Comparison>((await cli(["compare", "good", "bad", "--json"])).stdout);
    expect(data.overall.transitions).toMatchObject({ passToFail: 2, failToPass: 0, unchanged: 1 });
    expect(data.overall.passRate!.test).toMatchObject({ worse: 2, better: 0, pValue: 0.5 });
    expect(data.decision.regression).toBe(false);

    // Not significant: --fail-on-regression does not fail; --fail-on-new-failures does.
    expect((await cli(["compare", "good", "bad", "--fail-on-regression"])).code).toBe(0);
    const strict = await cli([
      "compare",
      "good",
      "bad",
      "--fail-on-regression",
      "--fail-on-new-failures",
    ]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain("niceeval: regression:");
  });

  it("--fail-on-regression exits 1 for 20 cases pass→fail, 0 for one", async () => {
    expect((await cli(["run", "many", "--name", "m-good", "--quiet"])).code).toBe(0);
    await cli(["run", "many", "--name", "m-one", "--quiet"], { MANY_BREAK: "one" });
    await cli(["run", "many", "--name", "m-all", "--quiet"], { MANY_BREAK: "all" });
    const one = await cli(["compare", "m-good", "m-one", "--fail-on-regression"]);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain("McNemar p = 1");
    const all = await cli(["compare", "m-good", "m-all", "--fail-on-regression"]);
    expect(all.code).toBe(1);
    expect(all.stderr).toMatch(/regression: .*pass rate/);
    const data = json<Comparison>((await cli(["compare", "m-good", "m-all", "--json"])).stdout);
    expect(data.overall.passRate!.test.pValue).toBeCloseTo(2 * 0.5 ** 20, 12);
    expect(data.decision).toMatchObject({ regression: true, passRate: true });
    expect(data.decision.checks).toEqual(["pass rate", "mean score"]);
    // In a run's JUnit report each regression is a gate testcase named by what regressed, the same
    // from run to run; the figures (p-values) are in its failure message.
    const againstGood = ["run", "many", "--quiet", "--baseline", "m-good", "--fail-on-regression"];
    const gated = await cli([...againstGood, "--reporter", "junit=regression.xml"], {
      MANY_BREAK: "all",
    });
    expect(gated.code).toBe(1);
    const junit = await readFile(join(project.dir, "regression.xml"), "utf8");
    const gates = [...junit.matchAll(/<testcase name="([^"]*)" classname="\(run gates\)"/g)];
    expect(gates.map((m) => m[1])).toEqual([
      "--fail-on-regression: pass rate",
      "--fail-on-regression: mean score",
      // The check that was met passes.
      "--fail-on-regression: errors",
    ]);
    expect(junit).toContain(
      '<testcase name="--fail-on-regression: errors" classname="(run gates)" time="0"/>',
    );
    expect(junit).toMatch(
      /<failure message="regression: pass rate fell from 100\.0% to 0\.0% \(n = 20, McNemar p &lt; 0\.0001 &lt; 0\.05\)" type="gate">/,
    );
    // Nothing regressed: every gate asked for is a passing testcase of the same name.
    const unchanged = await cli([
      ...againstGood,
      "--fail-on-new-failures",
      "--min-pass-rate",
      "0",
      "--reporter",
      "junit=unchanged.xml",
    ]);
    expect(unchanged.code).toBe(0);
    const met = await readFile(join(project.dir, "unchanged.xml"), "utf8");
    expect(met).toContain('<testsuite name="(run gates)" tests="5" failures="0"');
    expect(
      [...met.matchAll(/<testcase name="([^"]*)" classname="\(run gates\)" time="0"\/>/g)].map(
        (m) => m[1],
      ),
    ).toEqual([
      "--min-pass-rate: eval &quot;many&quot;",
      "--fail-on-regression: pass rate",
      "--fail-on-regression: errors",
      "--fail-on-regression: mean score",
      "--fail-on-new-failures",
    ]);
  });

  it("compare of a run with itself warns that base and head are the same run", async () => {
    const same = await cli(["compare", "latest", "latest"]);
    expect(same.code).toBe(0);
    expect(same.stdout).toMatch(
      /^warning: base and head are the same run \([0-9a-f]{8}(, [^)]+)?\): every case is compared with itself, so nothing can differ; compare two runs \(`niceeval compare latest~1 latest` compares the last two\)$/m,
    );
    const data = json<Comparison>((await cli(["compare", "good", "good", "--json"])).stdout);
    expect(data.warnings.map((w) => w.kind)).toEqual(["same-run"]);
  });

  it("compare of runs with no case in common exits 2 with a clear message", async () => {
    const result = await cli(["compare", "good", "m-good"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("have no case in common");
    // The runs by short id and name, as typed, not by their whole ids.
    expect(result.stderr).toMatch(
      /runs [0-9a-f]{8} \("good"\) \(.*\) and [0-9a-f]{8} \("m-good"\)/,
    );
    expect(result.stdout).toBe("");
  });

  it("run --baseline with a regression gate fails when the comparison cannot be made", async () => {
    // m-good ran other evals: no case in common with evals/.
    const gated = await cli([
      "run",
      "evals",
      "--quiet",
      "--baseline",
      "m-good",
      "--fail-on-regression",
      "--json",
      "gated.json",
    ]);
    expect(gated.code).toBe(1);
    expect(gated.stderr).toContain("comparing with baseline m-good failed");
    expect(gated.stderr).toContain("have no case in common");
    expect(gated.stderr).toContain(
      "--fail-on-regression is not met when the comparison cannot be made",
    );
    expect(gated.stdout.trimEnd()).toMatch(/FAIL$/m);
    const report = json(await readFile(join(project.dir, "gated.json"), "utf8")) as {
      summary: { ok: boolean; gates?: string[] };
    };
    expect(report.summary.ok).toBe(false);
    expect(report.summary.gates?.[0]).toMatch(/^--fail-on-regression: not checked, comparing/);
    // Without a gate, the comparison is only information: the run's own verdict stands.
    const plain = await cli(["run", "evals", "--quiet", "--baseline", "m-good"]);
    expect(plain.code).toBe(0);
    expect(plain.stderr).toContain("comparing with baseline m-good failed");
  });

  it("run --baseline prints the comparison after the report; branch:none has nothing to compare", async () => {
    expect((await cli(["run", "evals", "--quiet"])).code).toBe(0);
    const latest = await cli(["run", "evals", "--quiet", "--baseline", "latest"], { BREAK: "c" });
    expect(latest.code).toBe(1);
    const after = latest.stdout.slice(latest.stdout.lastIndexOf("FAIL"));
    expect(after).toContain("niceeval compare: base ");
    expect(after).toContain("pass-to-fail qa/c");

    const main = await cli(["run", "evals", "--quiet", "--baseline", "branch:main"]);
    expect(main.code).toBe(0);
    const tail = main.stdout.slice(main.stdout.lastIndexOf("PASS"));
    expect(tail).toContain("fail-to-pass qa/c");

    gitBranch(project.dir, "feature");
    const none = await cli(["run", "evals", "--quiet", "--baseline", "branch:none"]);
    expect(none.code).toBe(0);
    expect(none.stdout.trimEnd().split("\n").at(-1)).toBe(
      "baseline branch:none: no finished run with these evals yet; nothing to compare",
    );
    // A branch the store has never seen, beside ones it has: said before the run, with a guess.
    expect(none.stderr).toMatch(
      /--baseline branch:none: the store has no run on branch "none"; its runs are on main\. This run is compared with nothing/,
    );
    const misspelt = await cli(["run", "evals", "--quiet", "--baseline", "branch:mian"]);
    expect(misspelt.stderr).toContain("(did you mean branch:main?)");
    expect(misspelt.code).toBe(0);
    // With a regression gate, a misspelt branch leaves it unchecked: not passed.
    const gated = await cli([
      "run",
      "evals",
      "--quiet",
      "--baseline",
      "branch:mian",
      "--fail-on-regression",
      "--reporter",
      "ndjson=-",
    ]);
    expect(gated.code).toBe(1);
    expect(gated.stderr).toContain(
      '--fail-on-regression: not checked, the store has no run on branch "mian" (did you mean branch:main?)',
    );
    const end = JSON.parse(gated.stdout.trimEnd().split("\n").at(-1)!);
    expect(end.summary.ok).toBe(false);
    expect(end.summary.gates).toEqual([
      '--fail-on-regression: not checked, the store has no run on branch "mian" (did you mean branch:main?)',
    ]);
    // A branch named right that has no run yet is a first run, gate or not.
    const first = await cli([
      "run",
      "evals",
      "--quiet",
      "--baseline",
      "branch:none",
      "--fail-on-regression",
    ]);
    expect(first.code).toBe(0);
    // A branch with runs, but none comparable yet, is a first run: no such warning.
    expect(main.stderr).not.toContain("the store has no run on branch");

    const unknown = await cli([
      "run",
      "evals",
      "--quiet",
      "--name",
      "never",
      "--baseline",
      "nosuchrun",
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no run "nosuchrun"');
    expect(unknown.stdout).toBe("");
    expect((await cli(["runs"])).stdout).not.toContain("never");
  });

  it("run --baseline on a store it just created says so, where the store is, and how to name the right one", async () => {
    const own = await makeProject({ "evals/qa.eval.ts": qaEval });
    gitInit(own.dir);
    const evals = join(own.dir, "evals");
    try {
      expect((await runCli(["run", "--quiet"], own.dir, cleanEnv)).code).toBe(0);
      // From a subfolder (a `working-directory: evals` step), the default store is a new one.
      const sub = await runCli(
        [
          "run",
          ".",
          "--quiet",
          "--baseline",
          "branch:main",
          "--fail-on-regression",
          "--reporter",
          "console",
          "--reporter",
          "markdown=summary.md",
        ],
        evals,
        { ...cleanEnv, BREAK: "a,b,c" },
      );
      // A first run still: the exit code is the run's own (its cases fail), not a gate's.
      expect(sub.code).toBe(1);
      const what = `the store ${join(evals, ".niceeval", "niceeval.sqlite")} did not exist, so this run created it, empty: there is no run to compare with, and no regression gate was checked. A store path (here .niceeval/niceeval.sqlite) is relative to the working directory, ${evals}. A store exists at ${join(own.dir, ".niceeval", "niceeval.sqlite")}: pass --store ../.niceeval/niceeval.sqlite (or set NICEEVAL_STORE) to compare with its runs`;
      expect(sub.stderr).toContain(`niceeval: warning: --baseline branch:main: ${what}\n`);
      expect(sub.stdout.trimEnd().split("\n").at(-1)).toBe(
        `warning: baseline branch:main: nothing compared: ${what}`,
      );
      expect(await readFile(join(evals, "summary.md"), "utf8")).toContain(
        "> ⚠️ **No baseline**: --baseline branch:main: the store ",
      );
      // Run again there, the store is no longer new: it holds the run before, compared with.
      const again = await runCli(
        ["run", ".", "--quiet", "--baseline", "branch:main"],
        evals,
        cleanEnv,
      );
      expect(again.stderr).not.toContain("did not exist");
      expect(again.stdout).toContain("niceeval compare: base ");
      // Named by an absolute path, the store is not relative to anything.
      const elsewhere = join(own.dir, "new", "s.sqlite");
      const absolute = await runCli(
        ["run", "--quiet", "--store", elsewhere, "--baseline", "latest"],
        own.dir,
        cleanEnv,
      );
      expect(absolute.code).toBe(0);
      expect(absolute.stderr).toBe(
        `niceeval: warning: --baseline latest: the store ${elsewhere} did not exist, so this run created it, empty: there is no run to compare with, and no regression gate was checked. Pass --store <path> or set NICEEVAL_STORE to point at the store that holds the baseline\n`,
      );
    } finally {
      await own.cleanup();
    }
  });

  it("--reporter junit, markdown, ndjson=- and github write their outputs; the markdown has the comparison", async () => {
    const summary = join(project.dir, "step-summary.md");
    await writeFile(summary, "");
    const run = await cli(
      [
        "run",
        "evals",
        "--quiet",
        "--baseline",
        "latest",
        "--reporter",
        "junit=junit.xml",
        "--reporter",
        "markdown=summary.md",
        "--reporter",
        "ndjson=-",
        "--reporter",
        "github",
        "--reporter",
        "json=report.json",
      ],
      { BREAK: "a", GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: summary },
    );
    expect(run.code).toBe(1);
    const lines = run.stdout.split("\n").filter(Boolean);
    // The JSON report and the NDJSON stream carry the comparison the console and markdown give,
    // as compare --json gives it for the same two runs.
    const report = JSON.parse(await readFile(join(project.dir, "report.json"), "utf8")) as {
      runId: string;
      comparison: Comparison;
    };
    const again = json<Comparison>(
      (await cli(["compare", report.comparison.base.runId, report.runId, "--json"])).stdout,
    );
    expect(report.comparison.head.runId).toBe(report.runId);
    expect(report.comparison).toEqual(again);
    const streamed = lines.map((l) => JSON.parse(l) as { type: string; comparison?: unknown });
    expect(streamed.map((e) => e.type).slice(-2)).toEqual(["comparison", "run.finished"]);
    expect(streamed.at(-2)!.comparison).toEqual(again);
    // Standard output is the NDJSON stream alone; the report and GitHub's workflow commands (which
    // the runner reads there too) are on stderr.
    const events = lines.map((l) => JSON.parse(l));
    expect(events.length).toBeGreaterThan(3);
    const commands = run.stderr.split("\n").filter((l) => l.startsWith("::"));
    expect(commands.filter((l) => l.startsWith("::error"))).toEqual([
      expect.stringContaining(
        "file=evals/qa.eval.ts,title=qa › a failed::same (gate · 1 pt): mismatched",
      ),
    ]);
    expect(run.stderr).toContain("qa suite · evals/qa.eval.ts");
    expect(run.stderr).toContain("niceeval compare: base ");

    const junit = await readFile(join(project.dir, "junit.xml"), "utf8");
    expect(junit).toContain('<testsuite name="qa" tests="3" failures="1"');
    expect(junit).toMatch(/<testcase name="a" classname="qa"[^>]*>\s*<failure/);
    const markdown = await readFile(join(project.dir, "summary.md"), "utf8");
    expect(markdown).toContain("## niceeval ❌ failed");
    expect(markdown).toContain("| qa | a | failed |");
    expect(markdown).toContain("| eval | n | pass rate | McNemar p |");
    expect(await readFile(summary, "utf8")).toBe(`${markdown}\n`);
  });

  it("a bad --reporter value or an unwritable report file is exit 2 before anything runs", async () => {
    const before = (await cli(["runs", "--json"])).stdout;
    // A report's missing folder is made (test/cli/cli.test.ts); one that cannot be is refused.
    for (const reporter of [
      "nope",
      "junit",
      "junit=/proc/no-such/out.xml",
      "markdown=/proc/x.md",
    ]) {
      const result = await cli(["run", "evals", "--reporter", reporter]);
      expect(result.code, reporter).toBe(2);
      expect(result.stderr).toContain("--reporter");
      expect(result.stdout).toBe("");
    }
    // Two reports to one destination: one would overwrite or garble the other.
    for (const [flags, where] of [
      [["--reporter", "junit=same.xml", "--reporter", "markdown=same.xml"], "same.xml"],
      [["--json", "same.json", "--reporter", "ndjson=same.json"], "same.json"],
      [["--reporter", "ndjson=-", "--reporter", "ndjson=-"], "standard output"],
    ] as const) {
      const result = await cli(["run", "evals", ...flags]);
      expect(result.code, flags.join(" ")).toBe(2);
      expect(result.stderr).toMatch(new RegExp(`both write .*${where.replace(".", "\\.")}`));
    }
    // Each flag is named as it was given.
    const twice = await cli(["run", "evals", "--reporter", "json=one.json", "--json", "one.json"]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain("--json and --reporter json both write");
    expect((await cli(["runs", "--json"])).stdout).toBe(before);
  });

  it("a report is never written over the store, an eval file or another report under another name", async () => {
    await cli(["run", "soft", "--quiet"]);
    const before = (await cli(["runs", "--json"])).stdout;
    const source = await readFile(join(project.dir, "evals/qa.eval.ts"), "utf8");
    await symlink(project.dir, join(project.dir, "here"), "dir");
    // Before, --json over the store truncated it under SQLite's mapping: SIGBUS, history gone.
    for (const [flags, said] of [
      [
        ["--json", ".niceeval/niceeval.sqlite"],
        "which is the run store .niceeval/niceeval.sqlite (the default store)",
      ],
      [["--reporter", "markdown=.niceeval/niceeval.sqlite-wal"], "which is the run store"],
      [
        ["--store", "other.sqlite", "--reporter", "junit=other.sqlite"],
        "which is the run store other.sqlite (--store)",
      ],
      [["--json", "evals/qa.eval.ts"], "which is the eval file evals/qa.eval.ts"],
      [
        ["--json", "r.json", "--reporter", "ndjson=here/r.json"],
        "--json and --reporter ndjson both write here/r.json (r.json)",
      ],
      [
        ["--json", "/dev/stdout"],
        "--json and the console report both write standard output (/dev/stdout)",
      ],
      [
        ["--reporter", "ndjson=-", "--json", "/dev/stdout"],
        "--json and --reporter ndjson both write standard output",
      ],
    ] as const) {
      const result = await cli(["run", "evals", ...flags]);
      expect(result.code, flags.join(" ")).toBe(2);
      expect(result.stderr, flags.join(" ")).toContain(said);
      expect(result.stdout, flags.join(" ")).toBe("");
    }
    expect((await cli(["runs", "--json"])).stderr).toBe("");
    expect((await cli(["runs", "--json"])).stdout).toBe(before);
    expect(await readFile(join(project.dir, "evals/qa.eval.ts"), "utf8")).toBe(source);
    // The console report's standard output can be had for records: ndjson=- moves it to stderr.
    expect((await cli(["run", "evals", "--json", "/dev/stdout"])).stderr).toContain(
      "pass --reporter ndjson=-, which moves the console report to stderr",
    );
    // An export is read from the store it would overwrite.
    for (const flag of ["--ndjson", "--html"]) {
      const result = await cli(["export", "latest", flag, ".niceeval/niceeval.sqlite"]);
      expect(result.code, flag).toBe(2);
      expect(result.stderr).toContain(
        `${flag} would write .niceeval/niceeval.sqlite, which is the run store`,
      );
    }
    expect((await cli(["runs", "--json"])).stdout).toBe(before);
    // A file report's `-` is a file of that name, as it always was; only ndjson=- is stdout.
    const dash = await cli(["run", "soft", "--no-store", "--reporter", "markdown=-"]);
    expect(dash.stderr).not.toContain("both write");
    expect(dash.code).toBe(0);
    expect(await readFile(join(project.dir, "-"), "utf8")).toContain("## niceeval");
    // Reports thrown away share /dev/null.
    const discarded = await cli([
      "run",
      "soft",
      "--no-store",
      "--json",
      "/dev/null",
      "--reporter",
      "markdown=/dev/null",
    ]);
    expect(discarded.stderr).not.toContain("both write");
    expect(discarded.code).toBe(0);
  });

  it("says that --reporter github writes nothing outside GitHub Actions, and what shows the summary", async () => {
    const run = await cli(["run", "soft", "--quiet", "--reporter", "github"], {
      GITHUB_ACTIONS: "",
    });
    expect(run.stderr).toContain(
      "niceeval: --reporter github writes only inside GitHub Actions (GITHUB_ACTIONS is not set here), so it writes nothing in this run; --reporter markdown prints the same summary here\n",
    );
    expect(run.stdout).not.toContain("::error");
    expect(run.code).toBe(0);
    const inside = await cli(["run", "soft", "--quiet", "--reporter", "github"], {
      GITHUB_ACTIONS: "true",
      GITHUB_STEP_SUMMARY: join(project.dir, "summary.md"),
    });
    expect(inside.stderr).not.toContain("writes only inside GitHub Actions");
  });

  it("exits 2 before anything runs when the step summary cannot be written", async () => {
    const run = await cli(["run", "soft", "--quiet", "--reporter", "github"], {
      GITHUB_ACTIONS: "true",
      GITHUB_STEP_SUMMARY: join(project.dir, "missing", "summary.md"),
    });
    expect(run.stderr).toMatch(
      /--reporter github: cannot write .*missing\/summary\.md \(ENOENT\); \$GITHUB_STEP_SUMMARY names it/,
    );
    expect(run.stdout).not.toMatch(/passed/);
    expect(run.code).toBe(2);
  });

  it("--min-pass-rate and --min-score exit 1 with the reason when unmet, 0 when met", async () => {
    const score = await cli(["run", "soft", "--quiet", "--min-score", "0.6"]);
    expect(score.code).toBe(1);
    expect(score.stderr).toContain(
      'gate not met: eval "soft": mean score 0.500 (n=2) is below --min-score 0.6',
    );
    expect((await cli(["run", "soft", "--quiet", "--min-score", "0.5"])).code).toBe(0);
    // Every attempt passed, but the gate fails the run: the reports say what the exit code says.
    const reported = await cli([
      "run",
      "soft",
      "--quiet",
      "--min-score",
      "0.6",
      "--json",
      "gate.json",
      "--reporter",
      "markdown=gate.md",
    ]);
    expect(reported.code).toBe(1);
    expect(reported.stdout).toMatch(/gate not met: eval "soft".*\nFAIL\n?$/);
    const json = JSON.parse(await readFile(join(project.dir, "gate.json"), "utf8"));
    expect(json.summary.ok).toBe(false);
    expect(json.summary.gates).toEqual([
      'gate not met: eval "soft": mean score 0.500 (n=2) is below --min-score 0.6',
    ]);
    expect(await readFile(join(project.dir, "gate.md"), "utf8")).toContain("## niceeval ❌ failed");

    const rate = await cli(
      ["run", "evals", "--quiet", "--min-pass-rate", "0.9", "--reporter", "junit=gate.xml"],
      { BREAK: "a" },
    );
    expect(rate.code).toBe(1);
    expect(rate.stderr).toContain(
      'gate not met: eval "qa": pass rate 66.7% (2/3) is below --min-pass-rate 0.9',
    );
    // The JUnit report fails with the run: its gate is a failed testcase.
    const junit = await readFile(join(project.dir, "gate.xml"), "utf8");
    expect(junit).toContain('<testsuite name="(run gates)" tests="1" failures="1"');
    expect(junit).toContain(
      '<testcase name="--min-pass-rate: eval &quot;qa&quot;" classname="(run gates)"',
    );
    expect(junit).toMatch(/<failure message="gate not met: eval &quot;qa&quot;: pass rate 66\.7%/);
    const met = await cli(
      ["run", "evals", "--quiet", "--min-pass-rate", "0.6", "--reporter", "junit=met.xml"],
      { BREAK: "a" },
    );
    expect(met.code).toBe(0);
    // A gate met is a passing testcase of the same name, so CI's test history follows it.
    const passing = await readFile(join(project.dir, "met.xml"), "utf8");
    expect(passing).toContain('<testsuite name="(run gates)" tests="1" failures="0"');
    expect(passing).toContain(
      '<testcase name="--min-pass-rate: eval &quot;qa&quot;" classname="(run gates)" time="0"/>',
    );
    expect(met.stderr).toContain("1 failed and 0 errored attempts are within --min-pass-rate 0.6");
    // Failures within the rate pass the run: the report says PASS, as the exit code does.
    expect(met.stdout.trim().endsWith("PASS")).toBe(true);
  });
});

/** `alpha` and `beta`: ten cases each; BREAK=1 fails every case but c0 of each. */
const twoEvals = `${evalFileHeader}
const broken = process.env.BREAK === "1";
const ten = (id: string) =>
  defineSuite<string, string>({
    id,
    cases: Array.from({ length: 10 }, (_, i) => ({ id: "c" + i, input: "c" + i, expected: "c" + i })),
    target: async (input) => (broken && input !== "c0" ? "wrong" : input),
    scorers: [same],
  });
export const alpha = ten("alpha");
export const beta = ten("beta");
`;

describe("--baseline with a filtered debugging run on the branch", { timeout: 120_000 }, () => {
  let project: FixtureProject;
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(args, project.dir, { ...cleanEnv, ...env });

  beforeAll(async () => {
    project = await makeProject({ "evals/ab.eval.ts": twoEvals });
    gitInit(project.dir);
  });
  afterAll(() => project.cleanup());

  it("branch:main takes the latest whole run, not a newer --filter run; latest says what it lacks", async () => {
    expect((await cli(["run", "--name", "main-full", "--quiet"])).code).toBe(0);
    const debug = ["run", "--filter", "alpha/c0", "--name", "main-debug", "--quiet"];
    const live = await cli(debug);
    expect(live.code).toBe(0);
    // `show` names it with its filter, and prints it as it ran: beta, which it ran no case of, left out.
    const [heading, ...shown] = withoutTimings((await cli(["show", "main-debug"])).stdout).split(
      "\n",
    );
    expect(heading).toMatch(
      /^niceeval show: run [0-9a-f]{8} \(main-debug\) · --filter "alpha\/c0" · /,
    );
    expect(shown.join("\n")).toBe(withoutTimings(live.stdout));
    expect(live.stdout).not.toContain("beta suite");
    // The only run on main of another store is a debugging one.
    expect((await cli([...debug, "--store", "debug.sqlite"])).code).toBe(0);
    // `runs` marks the filtered run as it marks shards.
    const runs = (await cli(["runs"])).stdout.split("\n");
    expect(runs.find((l) => l.includes("main-debug"))).toContain("main-debug [filtered]");
    expect(runs.find((l) => l.includes("main-full"))).not.toContain("[filtered]");

    // `latest` keeps its meaning (the run before this one), and says that it was filtered.
    const latest = await cli(["run", "--name", "main-after", "--quiet", "--baseline", "latest"]);
    expect(latest.code).toBe(0);
    expect(latest.stderr).toMatch(
      /niceeval: warning: --baseline latest is run [0-9a-f]{8} \(main-debug\), which ran --filter "alpha\/c0": the cases of this run it did not run count as added, so a regression in them goes unseen/,
    );
    expect(latest.stdout).toContain("niceeval compare: base main-debug");

    gitBranch(project.dir, "pr");
    const gated = ["--baseline", "branch:main", "--fail-on-regression", "--min-pass-rate", "0"];
    const pr = await cli(["run", "--quiet", ...gated], { BREAK: "1" });
    expect(pr.stdout).toContain("niceeval compare: base main-after");
    expect(pr.stdout).toContain("REGRESSION: ");
    expect(pr.stdout).toContain("pass rate 100.0% → 10.0%");
    expect(pr.stderr).not.toContain("warning: --baseline");
    expect(pr.code).toBe(1);

    // With no whole run on main, the closest is compared with, and the warning says what it lacks.
    const partial = await cli(["run", "--quiet", ...gated, "--store", "debug.sqlite"], {
      BREAK: "1",
    });
    expect(partial.stderr).toMatch(
      /niceeval: warning: --baseline branch:main: no finished run on branch "main" holds every eval of this run with no --filter; comparing with the closest, run [0-9a-f]{8} \(main-debug\), which ran --filter "alpha\/c0": the cases of this run it did not run count as added, so a regression in them goes unseen\. Run every eval on main to have a whole baseline/,
    );
    expect(partial.stdout).toContain("niceeval compare: base main-debug");
  });

  it("compare takes branch:NAME as run --baseline does; a branch with no run yet is nothing to compare", async () => {
    // The PR run of the test above is latest; main's whole run is main-after.
    const gated = await cli(["compare", "branch:main", "latest", "--fail-on-regression"]);
    expect(gated.stdout).toContain("niceeval compare: base main-after");
    expect(gated.stdout).toContain("REGRESSION: ");
    expect(gated.stderr).toContain("niceeval: regression: ");
    expect(gated.code).toBe(1);
    // The head may be named by branch too; and a run is never compared with itself.
    const byBranch = await cli(["compare", "main-full", "branch:pr", "--json"]);
    expect(byBranch.code).toBe(0);
    const data = json<Comparison>(byBranch.stdout);
    expect([data.base.name, data.head.git?.branch]).toEqual(["main-full", "pr"]);
    const alone = await cli(["compare", "branch:pr", "latest"]);
    expect(alone.code).toBe(0);
    expect(alone.stderr).toMatch(
      /^niceeval: branch:pr: no finished run on branch "pr" besides run [0-9a-f]{8} holds any of its evals yet: nothing to compare\n$/,
    );
    expect(alone.stdout).toBe("");
    // A misspelt branch leaves the gate unchecked: not passed.
    const misspelt = await cli(["compare", "branch:mian", "latest", "--fail-on-regression"]);
    expect(misspelt.code).toBe(1);
    expect(misspelt.stderr).toContain("(did you mean branch:main?): nothing compared");
    // With only a debugging run on main, it is compared with, and said to lack cases.
    const partial = await cli(["compare", "branch:main", "latest", "--store", "debug.sqlite"]);
    expect(partial.stderr).toMatch(
      /^niceeval: warning: branch:main: no finished run on branch "main" holds every eval of run [0-9a-f]{8} with no --filter; comparing with the closest, run [0-9a-f]{8} \(main-debug\), which ran --filter "alpha\/c0": the cases of run [0-9a-f]{8} it did not run count as added/,
    );
    expect(partial.stdout).toContain("niceeval compare: base main-debug");
    // A reference that names no run says that compare takes branch:NAME.
    const unknown = await cli(["compare", "main", "latest"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("compare also takes branch:NAME");
    // On a line of its own, after the runs the message lists.
    expect(unknown.stderr).toMatch(/ {2}[0-9a-f]{8} .* finished\ncompare also takes branch:NAME: /);
    // branch: without a name is named as the user gave it, not as --baseline.
    const nameless = await cli(["compare", "branch:", "latest"]);
    expect(nameless.code).toBe(2);
    expect(nameless.stderr).toBe(
      `niceeval: compare's base (its first run) is "branch:", which names no branch: give the branch's name, as branch:main (niceeval compare branch:main latest)\n`,
    );
    // merge has no --baseline: it says to compare the merged run.
    const merge = await cli(["merge", "latest", "--name", "m", "--baseline", "branch:main"]);
    expect(merge.code).toBe(2);
    expect(merge.stderr).toContain(
      "niceeval compare branch:main <merged run> --fail-on-regression",
    );
  });
});
