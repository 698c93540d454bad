import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import type { StoredRun } from "../../src/store/types.js";
import { cliPath, type FixtureProject, makeProject, runCli } from "../support/project.js";
import { evalFileHeader } from "./eval-source.js";
import { cleanEnv, gitInit, json, qaEval, softEval, withoutTimings } from "./store-fixture.js";

// Issue 9 end to end: `run` writes a real SQLite store; `runs` and `show` read it back.

interface RunRow {
  runId: string;
  name: string | null;
  branch: string | null;
  commit: string | null;
  status: string;
  cases: number;
  passRate: number | null;
  passRateInterval: { low: number; high: number; method: string } | null;
  meanScore: number | null;
  tags: Record<string, string>;
}
type Shown = { run: StoredRun; records: AttemptRecord[] };

describe("run, runs and show through the real CLI and a real SQLite store", {
  timeout: 120_000,
}, () => {
  let project: FixtureProject;
  let commit: string;
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(args, project.dir, { ...cleanEnv, ...env });

  beforeAll(async () => {
    project = await makeProject({ "evals/qa.eval.ts": qaEval });
    commit = gitInit(project.dir);
  });
  afterAll(() => project.cleanup());

  it("stores a run with its manifest, attempts and judgments, and lists it", async () => {
    const live = await cli(["run", "--name", "first", "--tag", "model=small", "--tag", "env=ci"]);
    expect(live.stderr).toBe("");
    expect(live.code).toBe(0);

    const listed = await cli(["runs"]);
    expect(listed.code).toBe(0);
    const line = listed.stdout.split("\n").find((l) => l.includes("first"));
    expect(line).toMatch(
      /first\s+main\s+[0-9a-f]{7}\s.*finished\s+3\s+100\.0% \[43\.9%, 100\.0%\] n=3\s+1\.000/,
    );

    const rows = json<RunRow[]>((await cli(["runs", "--json"])).stdout);
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row).toMatchObject({
      name: "first",
      branch: "main",
      commit,
      status: "finished",
      cases: 3,
      passRate: 1,
      meanScore: 1,
      tags: { model: "small", env: "ci" },
    });
    expect(row.passRateInterval).toMatchObject({ method: "wilson", high: 1 });
    expect(row.passRateInterval!.low).toBeCloseTo(0.4385, 4);

    const shown = json<Shown>((await cli(["show", "first", "--json"])).stdout);
    const { run, records } = shown;
    // The manifest of issue 9, point 2.
    expect(run).toMatchObject({
      runId: row.runId,
      name: "first",
      tags: { model: "small", env: "ci" },
      niceevalVersion: expect.stringMatching(/^\d+\.\d+\.\d+/),
      nodeVersion: process.version,
      git: { commit, branch: "main", dirty: false },
      trials: 1,
      concurrency: 8,
      status: "finished",
    });
    expect(run.command).toEqual([
      cliPath,
      "run",
      "--name",
      "first",
      "--tag",
      "model=small",
      "--tag",
      "env=ci",
    ]);
    expect(run.files).toEqual([
      { path: "evals/qa.eval.ts", hash: expect.stringMatching(/^[0-9a-f]{16}$/) },
    ]);
    expect(run.evals).toEqual([
      expect.objectContaining({
        evalId: "qa",
        style: "suite",
        file: "evals/qa.eval.ts",
        trials: 1,
        configHash: expect.stringMatching(/^[0-9a-f]{16}$/),
        datasetHash: expect.stringMatching(/^[0-9a-f]{16}$/),
      }),
    ]);
    expect(Date.parse(run.endedAt!)).toBeGreaterThanOrEqual(Date.parse(run.startedAt));
    // Per attempt: ids, trial, verdict, score, elapsed, input, expected, metadata, output, trace, usage.
    expect(records.map((r) => r.caseId)).toEqual(["a", "b", "c"]);
    const a = records[0]!;
    expect(a).toMatchObject({
      evalId: "qa",
      caseId: "a",
      trial: 0,
      verdict: "passed",
      score: { state: "complete", earned: 2, max: 2 },
      input: "a",
      expected: "A",
      metadata: { topic: "letters" },
      output: "A",
      trace: {
        steps: [
          { kind: "message", role: "user", content: "a" },
          { kind: "tool-call", name: "upper", input: { text: "a" }, output: "A" },
        ],
      },
      usage: {
        app: { inputTokens: { state: "unavailable" } },
        judge: { calls: 0 },
      },
    });
    expect(a.elapsedMs).toBeGreaterThan(0);
    expect(a.error).toBeUndefined();
    // Per judgment: what the report shows and its detail (the scorer's metadata).
    expect(a.judgments[1]).toMatchObject({
      label: "echo-detail",
      source: "scorer",
      state: "matched",
      gate: false,
      points: 1,
      earned: 1,
      detail: { seen: "A" },
    });
  });

  it("stores a failed attempt; an edited eval file makes the checkout dirty and its hash change", async () => {
    const before = json<Shown>((await cli(["show", "first", "--json"])).stdout).run;
    await writeFile(join(project.dir, "evals/qa.eval.ts"), `${qaEval}\n// edited\n`);
    const failing = await cli(["run", "--name", "broken", "--quiet"], { BREAK: "b" });
    expect(failing.code).toBe(1);
    const { run, records } = json<Shown>((await cli(["show", "broken", "--json"])).stdout);
    expect(run.git?.dirty).toBe(true);
    expect(run.files[0]!.hash).not.toBe(before.files[0]!.hash);
    expect(run.evals[0]!.configHash).toBe(before.evals[0]!.configHash);
    expect(run.evals[0]!.datasetHash).toBe(before.evals[0]!.datasetHash);
    const b = records.find((r) => r.caseId === "b")!;
    expect(b).toMatchObject({ verdict: "failed", output: "wrong" });
    expect(b.judgments[0]).toMatchObject({ label: "same", state: "mismatched", earned: 0 });
  });

  it("`show` prints a stored run like the live report; --failures-only and --json too", async () => {
    const live = await cli(["run", "--name", "replayed", "--quiet"], { BREAK: "a" });
    expect(live.code).toBe(1);
    const shown = await cli(["show", "replayed"]);
    expect(shown.stderr).toBe("");
    expect(shown.code).toBe(1);
    // The live report, under a line naming the run.
    const [heading, ...report] = withoutTimings(shown.stdout).split("\n");
    expect(heading).toMatch(
      /^niceeval show: run [0-9a-f]{8} \(replayed\) · started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC · branch main$/,
    );
    expect(report.join("\n")).toBe(withoutTimings(live.stdout));

    const failures = await cli(["show", "replayed", "--failures-only"]);
    expect(failures.stdout).toMatch(/✗ a failed/);
    expect(failures.stdout).not.toMatch(/✓ [bc] passed/);
    expect(failures.stdout).toContain("3 cases: 2 passed, 1 failed");

    const asJson = await cli(["show", "replayed", "--json"]);
    // It exits as the report does: 1 for a run with a failed attempt.
    expect(asJson.code).toBe(1);
    const { records } = json<Shown>(asJson.stdout);
    expect(records.map((r) => [r.caseId, r.verdict])).toEqual([
      ["a", "failed"],
      ["b", "passed"],
      ["c", "passed"],
    ]);
    // A record that did not pass says why, as in --json and the Markdown and JUnit reports.
    expect((records[0] as { reason?: string }).reason).toBe(
      "same (gate · 1 pt): mismatched — 0 < threshold 0.5",
    );
    const failing = json<Shown>(
      (await cli(["show", "replayed", "--json", "--failures-only"])).stdout,
    );
    expect(failing.records.map((r) => [r.caseId, r.verdict])).toEqual([["a", "failed"]]);
  });

  it("names a run by full id, 6+ character prefix, name, latest and latest~N", async () => {
    const rows = json<RunRow[]>((await cli(["runs", "--json"])).stdout);
    expect(rows.map((r) => r.name)).toEqual(["replayed", "broken", "first"]);
    const idOf = async (ref: string) => {
      const shown = await cli(["show", ref, "--json"]);
      expect(shown.stderr).toBe("");
      return json<Shown>(shown.stdout).run.runId;
    };
    const first = rows[2]!.runId;
    expect(await idOf(first)).toBe(first);
    expect(await idOf(first.slice(0, 6))).toBe(first);
    expect(await idOf("first")).toBe(first);
    expect(await idOf("latest")).toBe(rows[0]!.runId);
    expect(await idOf("latest~1")).toBe(rows[1]!.runId);
    expect(await idOf("latest~2")).toBe(first);
    const limited = json<RunRow[]>((await cli(["runs", "--json", "--limit", "1"])).stdout);
    expect(limited.map((r) => r.name)).toEqual(["replayed"]);
    expect(json<RunRow[]>((await cli(["runs", "--json", "--eval", "qa"])).stdout)).toHaveLength(3);
    expect((await cli(["runs", "--json", "--eval", "other"])).stdout).toBe("[]\n");
    expect((await cli(["runs", "--eval", "other"])).stdout).toMatch(
      /^no run in sqlite:.* holds eval "other"; its runs hold eval "qa"\n$/,
    );
    // A misspelt id: still an empty listing (exit 0), with the id the store holds that was meant.
    const typo = await cli(["runs", "--eval", "qb"]);
    expect(typo.code).toBe(0);
    expect(typo.stdout).toMatch(
      /^no run in sqlite:.* holds eval "qb"; did you mean "qa"\? \(niceeval runs --eval qa\)\n$/,
    );
  });

  it("exits 2 listing recent runs for a reference that names no run, or several", async () => {
    const missing = await cli(["show", "nosuchrun"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no run "nosuchrun"');
    expect(missing.stderr).toContain("Most recent runs:");
    expect(missing.stderr).toContain("replayed");
    const tooFar = await cli(["show", "latest~9"]);
    expect(tooFar.code).toBe(2);
    expect(tooFar.stderr).toContain("Most recent runs:");

    expect((await cli(["run", "--name", "twice", "--quiet"])).stderr).not.toContain("warning");
    // The second run with that name is stored, with a warning that the name no longer resolves.
    const second = await cli(["run", "--name", "twice", "--quiet"]);
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(
      /warning: the run name "twice" is already used in .* by:\n {2}[0-9a-f]{8} {2}twice .*\n"twice" will name 2 runs, so referring to it is ambiguous \(exit 2\): refer to this run by its id \([0-9a-f]{8}\)/,
    );
    const ambiguous = await cli(["show", "twice"]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain('"twice" names 2 runs');
    expect(ambiguous.stderr.match(/twice/g)!.length).toBeGreaterThanOrEqual(3);

    // A run named after another run's id prefix: the reference names both, never silently one.
    const rows = json<RunRow[]>((await cli(["runs", "--json"])).stdout);
    const prefix = rows.at(-1)!.runId.slice(0, 8);
    expect((await cli(["run", "--name", prefix, "--quiet"])).stderr).toContain(
      `the run name "${prefix}" is already used`,
    );
    const both = await cli(["show", prefix]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain(`"${prefix}" names 2 runs`);
    expect(both.stderr).toContain("use a longer id prefix or the full id");
  });

  it("export --html to a path it cannot write says so and exits 2, as --ndjson does", async () => {
    for (const [target, code] of [
      ["missing/dir/report.html", "ENOENT"],
      [".", "EISDIR"],
    ] as const) {
      const html = await cli(["export", "latest", "--html", target]);
      expect(html.code).toBe(2);
      expect(html.stderr).toBe(
        `niceeval: --html: cannot write ${target} (${code}); pass a file path in an existing, writable folder\n`,
      );
    }
  });
});

describe("where runs are stored", { timeout: 120_000 }, () => {
  let project: FixtureProject;
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(args, project.dir, { ...cleanEnv, ...env });
  const countRuns = (file: string) => {
    const db = new Database(join(project.dir, file), { readonly: true });
    try {
      return (db.prepare("SELECT count(*) AS n FROM runs").get() as { n: number }).n;
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    project = await makeProject({ "evals/qa.eval.ts": qaEval });
  });
  afterAll(() => project.cleanup());

  it("--no-store writes nothing; --store and NICEEVAL_STORE pick the file", async () => {
    const none = await cli(["run", "--no-store", "--quiet"]);
    expect(none.code).toBe(0);
    const listed = await cli(["runs"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("no runs stored in");
    expect((await cli(["runs", "--json"])).stdout).toBe("[]\n");
    // Reading a store that does not exist creates nothing: a mistyped --store is said.
    const typo = await cli(["show", "latest", "--store", "typo/runs.sqlite"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(`no store at ${join(project.dir, "typo/runs.sqlite")}`);
    expect(typo.stderr).toContain("--store");
    expect((await cli(["compare", "latest~1", "latest"])).code).toBe(2);
    expect(existsSync(join(project.dir, "typo"))).toBe(false);
    expect(existsSync(join(project.dir, ".niceeval"))).toBe(false);
    await cli(["run", "--quiet"]);
    expect(countRuns(".niceeval/niceeval.sqlite")).toBe(1);

    const picked = await cli(["run", "--quiet", "--store", "stores/picked.sqlite"]);
    expect(picked.code).toBe(0);
    expect(countRuns("stores/picked.sqlite")).toBe(1);
    const fromEnv = await cli(["run", "--quiet"], { NICEEVAL_STORE: "env.sqlite" });
    expect(fromEnv.code).toBe(0);
    expect(countRuns("env.sqlite")).toBe(1);
    expect(countRuns(".niceeval/niceeval.sqlite")).toBe(1);
    const runs = json<RunRow[]>(
      (await cli(["runs", "--json"], { NICEEVAL_STORE: "env.sqlite" })).stdout,
    );
    expect(runs).toHaveLength(1);
  });

  it("refuses a URL that is not PostgreSQL (a typo, another database), its password masked, creating nothing", async () => {
    const before = readdirSync(project.dir).sort();
    for (const [args, env] of [
      [["run", "--store", "postgress://evals:hunter2@db.internal:5432/evals"], {}],
      [["runs"], { NICEEVAL_STORE: "mysql://evals:hunter2@db.internal/evals" }],
    ] as const) {
      const result = await cli([...args], env);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /^niceeval: store (postgress|mysql):\/\/evals:\*\*\*@db\.internal.* \(--store or NICEEVAL_STORE\): niceeval keeps runs in PostgreSQL/,
      );
      expect(result.stderr + result.stdout).not.toContain("hunter2");
    }
    // A password with characters a URL wants encoded is masked whole.
    const hashed = await cli(["runs", "--store", "postgress://user:s3cr#t/x?y@db.internal/evals"]);
    expect(hashed.code).toBe(2);
    expect(hashed.stderr).toContain("store postgress://user:***@db.internal/evals");
    expect(hashed.stderr).not.toContain("s3cr");
    // A file URL of another host is a usage error, not a crash.
    const remote = await cli(["runs", "--store", "file://relative/x.sqlite"]);
    expect(remote.code).toBe(2);
    expect(remote.stderr).toMatch(
      /^niceeval: store file:\/\/relative\/x\.sqlite .* is not a file URL of this machine/,
    );
    expect(readdirSync(project.dir).sort()).toEqual(before);
    // A file:// URL is the file's path.
    const file = pathToFileURL(join(project.dir, "by-url.sqlite")).href;
    expect((await cli(["run", "--store", file, "--quiet"])).code).toBe(0);
    expect(countRuns("by-url.sqlite")).toBe(1);
  });

  it("refuses a text file or another application's database, naming it and --store, unchanged", async () => {
    await writeFile(join(project.dir, "notes.txt"), "not a database\n");
    const db = new Database(join(project.dir, "other.db"));
    db.exec("CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('ada');");
    db.close();
    for (const file of ["notes.txt", "other.db"]) {
      const before = await readFile(join(project.dir, file));
      for (const args of [
        ["run", "--store", file],
        ["runs", "--store", file],
        ["show", "latest", "--store", file],
      ]) {
        const result = await cli(args);
        expect(result.code, `${args.join(" ")}`).toBe(2);
        expect(result.stderr).toContain(join(project.dir, file));
        expect(result.stderr).toContain("is not a niceeval store");
        expect(result.stderr).toContain("--store");
        expect(result.stdout).toBe("");
      }
      expect(await readFile(join(project.dir, file))).toEqual(before);
    }
  });

  it("names the store, run, case and column of a row edited by hand, and exits 2 without a stack", async () => {
    for (const name of ["base", "head"])
      expect((await cli(["run", "--store", "edited.sqlite", "--name", name, "--quiet"])).code).toBe(
        0,
      );
    const db = new Database(join(project.dir, "edited.sqlite"));
    const { id } = db.prepare("SELECT id FROM runs WHERE name = 'base'").get() as { id: string };
    db.prepare(
      "UPDATE attempts SET judgments = '{not json' WHERE case_id = 'c' AND rid = (SELECT min(rid) FROM attempts)",
    ).run();
    db.close();
    for (const args of [
      ["compare", "base", "head", "--store", "edited.sqlite"],
      ["show", "base", "--store", "edited.sqlite"],
    ]) {
      const result = await cli(args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toBe(
        `niceeval: the store ${join(project.dir, "edited.sqlite")} holds an attempt that cannot be read, damaged or edited by hand: run ${id} (base), eval "qa", case "c", trial 1, column judgments: "{not json" is neither a JSON list nor the id of a shared text. Undo the edit or restore the store from a copy; its other runs still read, and running these evals again stores a run to use in place of this one.\n`,
      );
    }
  });

  it("keeps the files that failed to load with the run: show reports them and fails as the run did", async () => {
    const own = await makeProject({
      "evals/qa.eval.ts": qaEval,
      "evals/broken.eval.ts": 'throw new Error("broken <on purpose>");\n',
    });
    try {
      const run = await runCli(["run", "--store", "s.sqlite"], own.dir, cleanEnv);
      expect(run.code).toBe(1);
      const shown = await runCli(["show", "latest", "--store", "s.sqlite"], own.dir, cleanEnv);
      expect(shown.stdout).toContain("1 file failed to load:");
      expect(shown.stdout).toContain("evals/broken.eval.ts: broken <on purpose>");
      expect(shown.stdout.trim().endsWith("FAIL")).toBe(true);
      expect(shown.code).toBe(1);
    } finally {
      await own.cleanup();
    }
  });

  it("keeps the errors that belonged to no case with the run: show, runs and merge fail it as the run did", async () => {
    const own = await makeProject({
      // A timer the file starts when it loads throws while the cases run: no case's error.
      "evals/slow.eval.ts": `${evalFileHeader}
if (!process.env.QUIET_TIMER) setTimeout(() => { throw new Error("background refresher crashed"); }, 20);
export const slow = defineSuite<string, string>({
  id: "slow",
  cases: [{ id: "a", input: "a", expected: "a" }],
  target: async (input) => { await new Promise((r) => setTimeout(r, 200)); return input; },
  scorers: [same],
});
`,
    });
    try {
      const store = ["--store", "s.sqlite"];
      const run = await runCli(
        ["run", "--no-supervise", "--name", "outside", ...store],
        own.dir,
        cleanEnv,
      );
      expect(run.stdout).toContain("1 error in user code belonged to no case (the run fails):");
      expect(run.code).toBe(1);
      const shown = await runCli(["show", "outside", ...store], own.dir, cleanEnv);
      expect(shown.stdout).toContain("1 error in user code belonged to no case (the run fails):");
      expect(shown.stdout).toContain("background refresher crashed");
      expect(shown.stdout.trim().endsWith("FAIL")).toBe(true);
      expect(shown.code).toBe(1);
      const asJson = await runCli(["show", "outside", "--json", ...store], own.dir, cleanEnv);
      expect(asJson.code).toBe(1);
      expect(json<Shown>(asJson.stdout).run.runErrors).toEqual([
        expect.stringContaining("background refresher crashed"),
      ]);
      const runs = await runCli(["runs", ...store], own.dir, cleanEnv);
      expect(runs.stdout).toMatch(/outside .* 1 error outside any case\n/);
      const merged = await runCli(
        ["merge", "outside", "--name", "merged", ...store],
        own.dir,
        cleanEnv,
      );
      expect(merged.code).toBe(0);
      const again = await runCli(["show", "merged", ...store], own.dir, cleanEnv);
      expect(again.stdout).toContain("background refresher crashed");
      expect(again.code).toBe(1);
      // A continuation keeps the error even where it meets none: nothing it runs could show
      // that its cause is gone, so the run still fails, and stderr says why.
      const retried = await runCli(
        ["run", "--retry-errors", "outside", "--no-supervise", ...store],
        own.dir,
        { ...cleanEnv, QUIET_TIMER: "1" },
      );
      expect(retried.stderr).toContain(
        "the run's error in user code that belonged to no case stays with it and fails it",
      );
      expect(retried.code).toBe(1);
      const kept = await runCli(["show", "outside", ...store], own.dir, cleanEnv);
      expect(kept.stdout).toContain("background refresher crashed");
      expect(kept.code).toBe(1);
      // A new run that meets no such error has none.
      const fresh = await runCli(["run", "--no-supervise", "--name", "fresh", ...store], own.dir, {
        ...cleanEnv,
        QUIET_TIMER: "1",
      });
      expect(fresh.code).toBe(0);
    } finally {
      await own.cleanup();
    }
  });

  it("marks a mean score over partial scores as a lower bound in runs, as the run's report does", async () => {
    const own = await makeProject({
      "evals/partial.eval.ts": `import { defineSuite, JudgeUnavailableError } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer<string, string>({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });
// The second case's judge cannot answer: its point has no evidence, and its score is partial.
const judged = createScorer<string, string>({ name: "judged", score: ({ output }) => {
  if (output === "b") throw new JudgeUnavailableError("no-provider", "m", "no key");
  return { score: 1 };
} });
export const partial = defineSuite<string, string>({
  id: "partial",
  cases: [{ id: "a", input: "a", expected: "a" }, { id: "b", input: "b", expected: "b" }],
  target: async (input) => input,
  scorers: [same, judged],
  gates: ["same"],
});
`,
    });
    try {
      const store = ["--store", "s.sqlite"];
      const run = await runCli(["run", "--name", "lower", ...store], own.dir, cleanEnv);
      expect(run.stdout).toContain("mean score ≥ 0.75");
      const runs = await runCli(["runs", ...store], own.dir, cleanEnv);
      expect(runs.stdout).toMatch(/lower .* ≥ 0\.750/);
      const one = await runCli(["runs", "--eval", "partial", ...store], own.dir, cleanEnv);
      expect(one.stdout).toMatch(/lower .* ≥ 0\.750/);
    } finally {
      await own.cleanup();
    }
  });

  it("names the cases an interval of trials counts in runs, with --eval too", async () => {
    const own = await makeProject({ "evals/qa.eval.ts": qaEval });
    try {
      const store = ["--store", "s.sqlite"];
      const run = await runCli(["run", "--trials", "4", "--name", "tr", ...store], own.dir, {
        ...cleanEnv,
        FLAKY: "1",
      });
      expect(run.stdout).toMatch(/11 passed \(91\.7% of 12, 95% CI .* over 3 cases\)/);
      const runs = await runCli(["runs", ...store], own.dir, cleanEnv);
      expect(runs.stdout).toMatch(/tr .* 91\.7% \[.*\] n=12 \(3 cases\)/);
      // The wider rate cell widens its column: the mean still starts under its header.
      const [header = "", row = ""] = runs.stdout.split("\n");
      const meanAt = header.indexOf("mean score (95% CI)");
      expect(row.indexOf("(3 cases)") + "(3 cases)".length).toBeLessThan(meanAt);
      expect(row.slice(meanAt)).toMatch(/^0\.\d{3} /);
      const one = await runCli(["runs", "--eval", "qa", ...store], own.dir, cleanEnv);
      expect(one.stdout).toMatch(/tr .* 91\.7% \[.*\] n=12 \(3 cases\)/);
    } finally {
      await own.cleanup();
    }
  });

  it("gives a run's mean score in runs with its n and 95% interval, the evals' scores pooled", async () => {
    const own = await makeProject({
      "evals/qa.eval.ts": qaEval,
      "evals/soft.eval.ts": softEval,
    });
    try {
      const store = ["--store", "s.sqlite"];
      // qa fails a: its scores (same, echo-detail) are 0.5, 1, 1; soft's two are 0.5 each.
      const run = await runCli(["run", "--name", "pooled", ...store], own.dir, {
        ...cleanEnv,
        BREAK: "a",
      });
      expect(run.code).toBe(1);
      // The five scores 0.5, 1, 1, 0.5, 0.5: mean 0.7, sample variance 0.075 (4 df), and
      // t(0.975, 4) = 2.776445, so 0.7 ± 2.776445 · √(0.075 / 5) = [0.360, 1.040] (1 within [0, 1]).
      const half = 2.776445 * Math.sqrt(0.075 / 5);
      const runs = await runCli(["runs", ...store], own.dir, cleanEnv);
      expect(runs.stdout).toContain("mean score (95% CI)");
      expect(runs.stdout).toMatch(/pooled .* 0\.700 \[0\.360, 1\.000\] n=5/);
      const [row] = json<(RunRow & { meanScoreInterval: { low: number; high: number } })[]>(
        (await runCli(["runs", "--json", ...store], own.dir, cleanEnv)).stdout,
      );
      expect(row!.meanScore).toBeCloseTo(0.7, 9);
      expect(row!.meanScoreInterval.low).toBeCloseTo(0.7 - half, 5);
      expect(row!.meanScoreInterval.high).toBe(1);
      const one = await runCli(["runs", "--eval", "soft", ...store], own.dir, cleanEnv);
      expect(one.stdout).toMatch(/pooled .* 0\.500 n=2/);
      // Its JSON gives the same: the eval's own figures, not the whole run's.
      const [soft] = json<RunRow[]>(
        (await runCli(["runs", "--eval", "soft", "--json", ...store], own.dir, cleanEnv)).stdout,
      );
      expect(soft).toMatchObject({ meanScore: 0.5, scoredAttempts: 2, attempts: 2 });
    } finally {
      await own.cleanup();
    }
  });

  it("exits 2 when the run could not be stored whole (another writer held the store too long)", async () => {
    const own = await makeProject({
      "evals/slow.eval.ts": `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });
export const slow = defineSuite({
  id: "slow",
  concurrency: 1,
  cases: Array.from({ length: 6 }, (_, i) => ({ id: "c" + i, input: i, expected: i })),
  target: async (i) => {
    if (i === 0) console.error("TARGET-STARTED");
    await new Promise((r) => setTimeout(r, 400));
    return i;
  },
  scorers: [same],
});
`,
    });
    try {
      const run = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [cliPath, "run", "--store", "locked.sqlite"], {
          cwd: own.dir,
          env: { ...process.env, ...cleanEnv, CI: "true" },
          stdio: ["ignore", "ignore", "pipe"],
        });
        let stderr = "";
        let locked = false;
        child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
          stderr += chunk;
          if (locked || !stderr.includes("TARGET-STARTED")) return;
          locked = true;
          // Another writer holds the store for longer than a run waits for it (5 s).
          const other = new Database(join(own.dir, "locked.sqlite"));
          other.exec("BEGIN IMMEDIATE");
          setTimeout(() => {
            other.exec("ROLLBACK");
            other.close();
          }, 6500);
        });
        child.on("error", reject);
        child.on("close", (code) => resolve({ code, stderr }));
      });
      expect(run.stderr).toContain("stayed locked by another process");
      expect(run.stderr).toContain("is not stored whole");
      // The way on is to finish this run, not to start it over.
      expect(run.stderr).toMatch(
        /once the store answers again, `niceeval run --resume [0-9a-f]{8} --store locked\.sqlite` keeps the attempts it holds/,
      );
      expect(run.code).toBe(2);
    } finally {
      await own.cleanup();
    }
  });

  it("errors an attempt whose weights add up past the largest number; a write the store refuses is no outage to resume after, and never PASS", async () => {
    const own = await makeProject({
      "evals/huge.eval.ts": `
import { defineAdapter } from "niceeval";
const a = defineAdapter({ name: "huge", create: () => ({}) });
// Each weight is finite; with HUGE their sum is not.
const weight = process.env.HUGE ? 1e308 : 1;
export const huge = a.defineScoreEval({ id: "huge", description: "huge weights", test(t) {
  t.score(1, { weight }).label("a");
  t.score(0, { weight }).label("b");
} });
`,
    });
    try {
      const store = join(own.dir, "s.sqlite");
      const huge = await runCli(["run", "--store", "s.sqlite", "--json", "out.json"], own.dir, {
        ...cleanEnv,
        HUGE: "1",
      });
      expect(huge.stderr).toBe("");
      expect(huge.code).toBe(1);
      expect(huge.stdout).toContain(
        '! the points of eval "huge", case "default": its 2 weighted judgments add up past the largest number',
      );
      expect(huge.stdout).toContain(
        '"a" (t.score, 1e+308 points), "b" (t.score, 1e+308 points). Use smaller weights',
      );
      expect(huge.stdout).not.toContain("Infinity");
      expect(huge.stdout.trim().endsWith("FAIL")).toBe(true);
      const report = await readFile(join(own.dir, "out.json"), "utf8");
      expect(report).not.toContain('null,"max":null');
      expect(json<{ summary: { ok: boolean } }>(report).summary.ok).toBe(false);

      // A store that refuses what is written (here a trigger) will refuse it again: no --resume.
      const db = new Database(store);
      db.exec(
        "CREATE TRIGGER refuse BEFORE INSERT ON run_evals BEGIN SELECT RAISE(ABORT, 'run_evals refused'); END",
      );
      db.close();
      const refused = await runCli(["run", "--store", "s.sqlite"], own.dir, cleanEnv);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        `niceeval: the store sqlite:${store} refused a value this run wrote (run_evals refused): niceeval wrote something the store does not accept, a niceeval bug; please report it with this line.`,
      );
      expect(refused.stderr).toContain("--resume would write the same value and be refused again");
      expect(refused.stderr).not.toContain("once the store answers again");
      // The attempt passed, but a run that exits 2 is no pass.
      expect(refused.stdout).toContain("1 passed");
      expect(refused.stdout.trim().endsWith("FAIL")).toBe(true);
    } finally {
      await own.cleanup();
    }
  });

  it("heads a defineEval eval 'pass/fail', a defineScoreEval one 'score' and a suite 'suite', live and in show", async () => {
    const own = await makeProject({
      "evals/kinds.eval.ts": `${evalFileHeader}
import { defineAdapter } from "niceeval";
import { equals } from "niceeval/expect";
const app = defineAdapter({ name: "app", create: () => ({ status: "ok" }) });
export const gated = app.defineEval({ id: "gated", description: "gated", test(t) {
  t.check(t.status, equals("ok")).label("Status");
} });
export const pointed = app.defineScoreEval({ id: "pointed", description: "pointed", test(t) {
  t.score(1, { weight: 2 }).label("Quality");
} });
export const listed = defineSuite<string, string>({
  id: "listed",
  cases: [{ id: "a", input: "a", expected: "a" }],
  target: async (input) => input,
  scorers: [same],
});
`,
    });
    try {
      const headers = (out: string) =>
        out.split("\n").filter((line) => /^(gated|pointed|listed) /.test(line));
      const expected = [
        "gated pass/fail · evals/kinds.eval.ts",
        "pointed score · evals/kinds.eval.ts",
        "listed suite · evals/kinds.eval.ts",
      ];
      // Supervised (the eval process describes the evals) and in process.
      for (const mode of [[], ["--no-supervise"]]) {
        const live = await runCli(["run", "--store", "s.sqlite", ...mode], own.dir, cleanEnv);
        expect(live.code, mode.join(" ")).toBe(0);
        expect(headers(live.stdout), mode.join(" ")).toEqual(expected);
        const shown = await runCli(["show", "latest", "--store", "s.sqlite"], own.dir, cleanEnv);
        expect(headers(shown.stdout), mode.join(" ")).toEqual(expected);
      }
    } finally {
      await own.cleanup();
    }
  });

  it("two runs writing to one store at once both complete and are stored whole", async () => {
    const spawnRun = (name: string) =>
      new Promise<number | null>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          [cliPath, "run", "--quiet", "--name", name, "--trials", "20", "--store", "shared.sqlite"],
          {
            cwd: project.dir,
            env: { ...process.env, ...cleanEnv, CI: "true" },
            stdio: "ignore",
          },
        );
        child.on("error", reject);
        child.on("close", resolve);
      });
    const codes = await Promise.all([spawnRun("one"), spawnRun("two")]);
    expect(codes).toEqual([0, 0]);
    const rows = json<RunRow[]>((await cli(["runs", "--json", "--store", "shared.sqlite"])).stdout);
    expect(rows.map((r) => r.name).sort()).toEqual(["one", "two"]);
    for (const row of rows) {
      expect(row.status).toBe("finished");
      const { records } = json<Shown>(
        (await cli(["show", row.runId, "--json", "--store", "shared.sqlite"])).stdout,
      );
      expect(records).toHaveLength(60);
      expect(new Set(records.map((r) => `${r.caseId}#${r.trial}`)).size).toBe(60);
    }
  });
});
