import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import { type FixtureProject, makeProject, runAndSignal, runCli } from "../support/project.js";

// Every attempt that completes passes. Two at a time: "quick" answers at once, "wait-1" and
// "wait-2" wait until the run is stopped and then answer with what they have (which the scorer
// would fail), and the "after" cases are still waiting for a slot when the signal comes.
const suite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });

export const waits = defineSuite({
  id: "abortable",
  concurrency: 2,
  cases: ["quick", "wait-1", "wait-2", "after-1", "after-2", "after-3"].map((id) => ({ id, input: id, expected: id })),
  target: async (input, { signal }) => {
    if (input === "quick") return input;
    if (input === "wait-2") console.error("TARGET-STARTED wait-2");
    return await new Promise((resolve) => {
      const timer = setTimeout(() => resolve(input), 60_000);
      signal.addEventListener("abort", () => { clearTimeout(timer); resolve("partial"); }, { once: true });
    });
  },
  scorers: [same],
});
`;

interface JsonSummary {
  ok: boolean;
  gates?: string[];
  gateNames?: string[];
  gatesMet?: string[];
  totals: { interrupted?: number; figures: { passRate: Record<string, unknown> } };
  evals: { interrupted?: number; figures: { passRate: Record<string, unknown> } }[];
  stopped?: { notStarted: number; unread: string[] };
}

const readJson = async <T>(dir: string, file: string): Promise<T> =>
  JSON.parse(await readFile(join(dir, file), "utf8")) as T;

const modes = [
  ["supervised", []],
  ["in process", ["--no-supervise"]],
] as const;

describe("an interrupted run's pass rate leaves out the attempts the stop cut off (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/abortable.eval.js": suite });
  });
  afterAll(() => project.cleanup());

  for (const [label, mode] of modes) {
    it(`${label}: 100% of the one attempt judged, in every report, runs, show and the gates`, async () => {
      const store = `stopped-${label}.sqlite`;
      const stopped = await runAndSignal(
        [
          "run",
          ...mode,
          "--store",
          store,
          "--name",
          `stopped-${label}`,
          "--min-pass-rate",
          "0.9",
          "--reporter",
          "console",
          "--reporter",
          `json=${label}.json`,
          "--reporter",
          `markdown=${label}.md`,
          "--reporter",
          `junit=${label}.xml`,
        ],
        project.dir,
        ["SIGINT"],
      );
      expect(stopped.code).toBe(130);
      // Not 33.3% of 3: the two attempts the signal cut off were not judged.
      const line =
        "1 eval · 3 cases · 1 passed (100% of 1, 95% CI 20.7–100%) · 0 failed · 2 errored";
      expect(stopped.stdout).toContain(line);
      expect(stopped.stdout).toContain(
        "cancelled: 2 attempts cut off by the stop (errored, left out of the pass rate) · ",
      );
      // A stored run can be resumed, and its cut-off attempts say so.
      expect(stopped.stdout).toMatch(
        /its failed verdict is not kept, and a resumed run runs it again/,
      );

      const json = (await readJson<{ summary: JsonSummary }>(project.dir, `${label}.json`)).summary;
      expect(json.totals.interrupted).toBe(2);
      expect(json.totals.figures.passRate).toMatchObject({ rate: 1, n: 1, interrupted: 2 });
      expect(json.evals[0]?.interrupted).toBe(2);
      expect(json.evals[0]?.figures.passRate).toMatchObject({ rate: 1, n: 1, interrupted: 2 });
      // What did not start: the three "after" attempts, exactly when every case had been read.
      const { notStarted, unread } = json.stopped!;
      if (unread.length === 0) expect(notStarted).toBe(3);
      else expect(unread).toEqual(["abortable"]);
      expect(stopped.stdout).toContain(
        unread.length === 0
          ? "· 3 attempts did not start"
          : 'cases of eval "abortable" not yet read',
      );
      // The gate is not met on the one attempt judged before the stop: it is not checked.
      expect(json.ok).toBe(false);
      expect(json.gates).toEqual([
        'gate not met: eval "abortable": --min-pass-rate 0.9 not checked: the run was stopped, and its pass rate 100.0% (1/1; 2 attempts cut off by the stop left out) is of the attempts judged before the stop, not of its cases; run it again to its end to check it',
      ]);

      const markdown = await readFile(join(project.dir, `${label}.md`), "utf8");
      expect(markdown).toContain("· pass rate 100% ");
      expect(markdown).toContain("**cancelled**: 2 attempts cut off by the stop");
      const junit = await readFile(join(project.dir, `${label}.xml`), "utf8");
      expect(junit).toContain('name="niceeval.pass-rate" value="100% of 1, 95% CI 20.7–100%"');

      const runs = await runCli(["runs", "--store", store], project.dir);
      expect(runs.stdout).toMatch(/interrupted\s+3 +100\.0% \[20\.7%, 100\.0%\] n=1 /);
      const rows = JSON.parse(
        (await runCli(["runs", "--json", "--store", store], project.dir)).stdout,
      );
      expect(rows[0]).toMatchObject({ passRate: 1, interrupted: 2, errored: 2 });
      expect(rows[0].perEval[0]).toMatchObject({ passRate: 1, n: 1 });

      const show = await runCli(["show", "latest", "--store", store], project.dir);
      expect(show.stdout).toContain(line);
      expect(show.stdout).toContain(
        "cancelled: 2 attempts cut off by the stop (errored, left out of the pass rate)",
      );
    });
  }
});

describe("--no-store: an attempt a signal cut off promises no resume (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/abortable.eval.js": suite });
  });
  afterAll(() => project.cleanup());

  for (const [label, mode] of modes) {
    it(`${label}: SIGTERM, and the reason is true without a store`, async () => {
      const stopped = await runAndSignal(
        ["run", ...mode, "--no-store", "--reporter", "console", "--reporter", `json=${label}.json`],
        project.dir,
        ["SIGTERM"],
      );
      expect(stopped.code).toBe(143);
      expect(stopped.stdout).toMatch(
        /the run was stopped \(interrupted by SIGTERM\) while this attempt ran; its failed verdict is not kept\n/,
      );
      expect(stopped.stdout).not.toMatch(/resume/);
      expect(stopped.stderr).toMatch(/interrupted by SIGTERM; the report holds every attempt/);
      const { records } = await readJson<{ records: AttemptRecord[] }>(
        project.dir,
        `${label}.json`,
      );
      const cut = records.filter((r) => r.error?.interrupted);
      expect(cut.map((r) => r.caseId).sort()).toEqual(["wait-1", "wait-2"]);
      for (const record of cut) expect(JSON.stringify(record)).not.toMatch(/resume/);
    });
  }
});

// Both attempts wait until the run is stopped, so the stop cuts off every attempt: the eval has
// no pass rate and no mean score. The second to start says so, once both have.
const allCut = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });
let started = 0;

export const allCut = defineSuite({
  id: "allcut",
  cases: ["a", "b"].map((id) => ({ id, input: id, expected: id })),
  target: async (input, { signal }) => {
    if (++started === 2) console.error("TARGET-STARTED both");
    return await new Promise((resolve) => signal.addEventListener("abort", () => resolve("partial"), { once: true }));
  },
  scorers: [same],
});
`;

describe("a stopped run whose every attempt was cut off lists both gates as not checked (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/allcut.eval.js": allCut });
  });
  afterAll(() => project.cleanup());

  const notChecked = (flag: string, figure: string) =>
    `gate not met: eval "allcut": ${flag} not checked: the run was stopped, and no attempt of it was judged before the stop (2 attempts cut off by the stop), so it has no ${figure}; run it again to its end to check it`;

  for (const [label, mode] of modes) {
    it(`${label}: console, JSON, JUnit and Markdown each list --min-pass-rate and --min-score`, async () => {
      const stopped = await runAndSignal(
        [
          "run",
          ...mode,
          "--no-store",
          "--min-pass-rate",
          "0.9",
          "--min-score",
          "0.5",
          "--reporter",
          "console",
          "--reporter",
          `json=${label}.json`,
          "--reporter",
          `junit=${label}.xml`,
          "--reporter",
          `markdown=${label}.md`,
        ],
        project.dir,
        ["SIGINT"],
      );
      expect(stopped.code).toBe(130);
      expect(stopped.stdout).toContain(
        "cancelled: 2 attempts cut off by the stop (errored, left out of the pass rate)",
      );
      const gates = [
        notChecked("--min-pass-rate 0.9", "pass rate"),
        notChecked("--min-score 0.5", "mean score"),
      ];
      for (const gate of gates) expect(stopped.stdout).toContain(gate);
      expect(stopped.stdout).not.toMatch(/no attempt has a score/);

      const json = (await readJson<{ summary: JsonSummary }>(project.dir, `${label}.json`)).summary;
      expect(json.ok).toBe(false);
      expect(json.gates).toEqual(gates);
      expect(json.gateNames).toEqual([
        '--min-pass-rate: eval "allcut"',
        '--min-score: eval "allcut"',
      ]);

      const junit = await readFile(join(project.dir, `${label}.xml`), "utf8");
      expect(junit).toMatch(/<testsuite name="\(run gates\)" tests="2" failures="2"/);
      expect(junit).toContain('<testcase name="--min-pass-rate: eval &quot;allcut&quot;"');
      expect(junit).toContain('<testcase name="--min-score: eval &quot;allcut&quot;"');

      const markdown = await readFile(join(project.dir, `${label}.md`), "utf8");
      expect(markdown).toContain("--min-pass-rate 0.9 not checked: the run was stopped");
      expect(markdown).toContain("--min-score 0.5 not checked: the run was stopped");
    });
  }
});

// Case c2 holds the eval process's thread for good, so the stop comes before the engine read any
// case of the second eval: that eval's cases are unread, which the summary must say.
const holdsTheThread = `
import { writeSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });
export const loops = defineSuite({
  id: "loops",
  cases: [1, 2].map((i) => ({ id: "c" + i, input: i, expected: i })),
  target: async (x) => {
    if (x === 2) {
      writeSync(2, "TARGET-STARTED\\n");
      for (;;) {}
    }
    return x;
  },
  scorers: [same],
});
export const after = defineSuite({
  id: "after",
  cases: [{ id: "d1", input: 1, expected: 1 }],
  target: async (x) => x,
  scorers: [same],
});
`;

describe("a stop while an attempt holds the eval process's thread (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/loops.eval.js": holdsTheThread });
  });
  afterAll(() => project.cleanup());

  it("names the eval whose cases were not read yet, not 'every attempt had started'", async () => {
    const stopped = await runAndSignal(
      ["run", "--no-store", "--grace", "500", "--json", "held.json"],
      project.dir,
      ["SIGINT"],
    );
    expect(stopped.code).toBe(130);
    const json = (await readJson<{ summary: JsonSummary }>(project.dir, "held.json")).summary;
    expect(json.stopped).toEqual({ notStarted: 0, unread: ["after"] });
    expect(stopped.stdout).toContain('the cases of eval "after" not yet read did not run');
    expect(stopped.stdout).not.toContain("every attempt had started");
  }, 60_000);
});

// Waits until the run is stopped unless the "baseline" file is there (the run compared with).
const comparable = `
import { existsSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });

export const comparable = defineSuite({
  id: "comparable",
  cases: ["a", "b", "c"].map((id) => ({ id, input: id, expected: id })),
  target: async (input, { signal }) => {
    if (existsSync("baseline") || input === "a") return input;
    console.error("TARGET-STARTED " + input);
    return await new Promise((resolve) => signal.addEventListener("abort", () => resolve("partial"), { once: true }));
  },
  scorers: [same],
});
`;

describe("a stopped run with --baseline shows its comparison and checks no regression gate (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/comparable.eval.js": comparable, baseline: "" });
  });
  afterAll(() => project.cleanup());

  it("the console shows the comparison the JSON holds; each regression gate is not checked", async () => {
    const store = ["--store", "compared.sqlite"];
    expect((await runCli(["run", ...store], project.dir)).code).toBe(0);
    await rm(join(project.dir, "baseline"));
    const stopped = await runAndSignal(
      [
        "run",
        ...store,
        "--baseline",
        "latest",
        "--fail-on-regression",
        "--fail-on-new-failures",
        "--reporter",
        "console",
        "--reporter",
        "json=stopped.json",
      ],
      project.dir,
      ["SIGINT"],
    );
    expect(stopped.code).toBe(130);
    const { summary, comparison } = await readJson<{
      summary: JsonSummary;
      comparison?: unknown;
    }>(project.dir, "stopped.json");
    expect(comparison).toBeDefined();
    expect(stopped.stdout).toContain("niceeval compare: base ");
    const notChecked = (flag: string) =>
      `${flag}: not checked: the run was stopped, and its comparison with the baseline is of the attempts judged before the stop; run it again to its end to check it`;
    expect(summary.gates).toEqual(
      expect.arrayContaining([
        notChecked("--fail-on-regression"),
        notChecked("--fail-on-new-failures"),
      ]),
    );
    expect(summary.gateNames).toEqual(
      expect.arrayContaining([
        "--fail-on-regression: not checked",
        "--fail-on-new-failures: not checked",
      ]),
    );
    expect(stopped.stdout).toContain(notChecked("--fail-on-regression"));
    // Not checked is not met: neither flag is listed among the gates met (JUnit writes those).
    expect(summary.gatesMet ?? []).not.toContain("--fail-on-regression");
    expect(summary.gatesMet ?? []).not.toContain("--fail-on-new-failures");
  });
});
