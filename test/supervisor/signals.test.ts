import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shellWord } from "../../src/cli/command-words.js";
import type { AttemptRecord } from "../../src/eval/record.js";
import { openSqliteStore } from "../../src/store/index.js";
import { type FixtureProject, makeProject, runAndSignal, runCli } from "../support/project.js";

// Two quick cases, then one that never settles and says on stderr when it has started.
const hangingSuite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });

export const waits = defineSuite({
  id: "waits",
  concurrency: 1,
  cases: [
    { id: "quick-1", input: "a", expected: "a" },
    { id: "quick-2", input: "b", expected: "b" },
    { id: "never", input: "never", expected: "never" },
    { id: "not-reached", input: "c", expected: "c" },
  ],
  target: async (input) => {
    if (input === "never") {
      console.error("TARGET-STARTED never");
      await new Promise(() => {});
    }
    return input;
  },
  scorers: [same],
});
`;

async function storedStatus(
  dir: string,
  file: string,
): Promise<{ status: string; attempts: string[]; runId: string }> {
  const store = await openSqliteStore(join(dir, file));
  try {
    const [run] = await store.listRuns();
    const attempts: string[] = [];
    for await (const record of store.streamAttempts(run!.runId))
      attempts.push(`${record.caseId}:${record.verdict}`);
    return { status: run!.status, attempts, runId: run!.runId };
  } finally {
    await store.close();
  }
}

describe("signals stop a run and still write the report and the store (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/waits.eval.ts": hangingSuite });
  });
  afterAll(() => project.cleanup());

  for (const mode of [[], ["--no-supervise"]] as const) {
    const label = mode.length ? "in process" : "supervised";

    it(`${label}: SIGTERM waits the grace period, then exits 143 with the report`, async () => {
      const run = await runAndSignal(
        ["run", ...mode, "--grace", "300", "--store", `term-${label}.sqlite`],
        project.dir,
        ["SIGTERM"],
      );
      expect(run.code).toBe(143);
      expect(run.stdout).toMatch(/✓ quick-1 passed/);
      expect(run.stdout).toMatch(/✓ quick-2 passed/);
      expect(run.stdout).toMatch(/! never errored/);
      expect(run.stdout).toMatch(
        /interrupted by SIGTERM: the attempt did not finish within the 0\.3 s grace period/,
      );
      expect(run.stdout).toMatch(/cancelled/);
      expect(run.stderr).toMatch(/interrupted by SIGTERM/);
      // A case still waiting for its eval's concurrency did not start: it is neither reported
      // nor stored (a --resume runs it), as one not read yet.
      expect(run.stdout).not.toMatch(/not-reached/);
      expect(run.stdout).toMatch(/1 eval · 3 cases/);
      const stored = await storedStatus(project.dir, `term-${label}.sqlite`);
      expect(stored.status).toBe("interrupted");
      expect(stored.attempts.sort()).toEqual(["never:errored", "quick-1:passed", "quick-2:passed"]);
      // The way on, in the store it was given ("in process" quoted): a command to paste as it is.
      expect(run.stderr).toContain(
        `the report and the store hold every attempt that finished; \`niceeval run --resume ${stored.runId.slice(0, 8)} --store ${shellWord(`term-${label}.sqlite`)}\` runs the rest`,
      );
    });

    it(`${label}: a second SIGINT skips the grace period and exits 130 with the report`, async () => {
      const run = await runAndSignal(
        ["run", ...mode, "--grace", "600000", "--store", `int-${label}.sqlite`],
        project.dir,
        ["SIGINT", "SIGINT"],
      );
      expect(run.code).toBe(130);
      expect(run.stdout).toMatch(/✓ quick-2 passed/);
      expect(run.stdout).toMatch(/interrupted by SIGINT before the attempt finished/);
      expect(run.stdout).toMatch(/Summary/);
      const stored = await storedStatus(project.dir, `int-${label}.sqlite`);
      expect(stored.status).toBe("interrupted");
      expect(stored.attempts).toContain("never:errored");
    });
  }
});

// A dataset that gives one case, then never another (a loader waiting on a socket that died).
const stalledDataset = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });

export const reads = defineSuite({
  id: "reads",
  cases: async function* () {
    yield { id: "first", input: "a", expected: "a" };
    await new Promise((resolve) => setTimeout(resolve, 2 ** 31 - 1));
    yield { id: "never-read", input: "b", expected: "b" };
  },
  target: (input) => {
    // The signal is sent 100 ms after this, once the dataset waits for its second case.
    console.error("TARGET-STARTED first");
    return input;
  },
  scorers: [same],
});

export const after = defineSuite({
  id: "after",
  cases: [{ id: "next-eval", input: "c", expected: "c" }],
  target: (input) => input,
  scorers: [same],
});
`;

describe("a dataset that stops giving cases does not hold the run (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/reads.eval.js": stalledDataset });
  });
  afterAll(() => project.cleanup());

  for (const mode of [[], ["--no-supervise"]] as const) {
    const label = mode.length ? "in process" : "supervised";

    it(`${label}: SIGTERM ends the wait and exits 143 with the report and the store`, async () => {
      const run = await runAndSignal(
        ["run", ...mode, "--store", `term-${label}.sqlite`],
        project.dir,
        ["SIGTERM"],
      );
      expect(run.code).toBe(143);
      expect(run.stdout).toMatch(/✓ first passed/);
      expect(run.stdout).toMatch(/Summary/);
      expect(run.stdout).not.toMatch(/never-read/);
      const stored = await storedStatus(project.dir, `term-${label}.sqlite`);
      expect(stored.status).toBe("interrupted");
      expect(stored.attempts).toContain("first:passed");
    });

    it(`${label}: past --hang-timeout its eval gets an errored (cases) attempt and the next eval runs`, async () => {
      const run = await runAndSignal(
        ["run", ...mode, "--hang-timeout", "1000", "--store", `wait-${label}.sqlite`],
        project.dir,
        [],
      );
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/✓ first passed/);
      expect(run.stdout).toContain(
        'reading the cases of eval "reads" failed: its next case did not come within 1 s; make the dataset faster, or raise the limit (--hang-timeout)',
      );
      expect(run.stdout).toMatch(/✓ next-eval passed/);
      const stored = await storedStatus(project.dir, `wait-${label}.sqlite`);
      expect(stored.status).toBe("finished");
      expect(stored.attempts).toEqual(
        expect.arrayContaining(["first:passed", "(cases):errored", "next-eval:passed"]),
      );
    });
  }
});

// Attempts that wait 300 ms unless the run is stopped, when they give up: with the abort
// (\`settle\` rejects), or with what they have so far (a partial answer, which the scorer fails).
const abortable = (settle: string) => `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });

export const waits = defineSuite({
  id: "abortable",
  concurrency: 2,
  cases: ["quick", "wait-1", "wait-2", "after-1", "after-2", "after-3"].map((id) => ({ id, input: id, expected: id })),
  target: async (input, { signal }) => {
    if (input === "quick") return input;
    if (input === "wait-1") console.error("TARGET-STARTED wait-1");
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve(input), 300);
      signal.addEventListener("abort", () => { clearTimeout(timer); ${settle}; }, { once: true });
    });
  },
  scorers: [same],
});
`;

describe.each([
  ["throw the abort", "reject(signal.reason)"],
  ["answer with what they have", 'resolve("partial")'],
])(
  "--resume after a signal runs again the attempts the signal cut off, which %s (real CLI)",
  (_, settle) => {
    let project: FixtureProject;
    beforeAll(async () => {
      project = await makeProject({ "evals/abortable.eval.js": abortable(settle) });
    });
    afterAll(() => project.cleanup());

    for (const mode of [[], ["--no-supervise"]] as const) {
      const label = mode.length ? "in process" : "supervised";

      it(`${label}: SIGINT, then --resume finishes as if uninterrupted`, async () => {
        const store = `resume-${label}.sqlite`;
        const stopped = await runAndSignal(["run", ...mode, "--store", store], project.dir, [
          "SIGINT",
        ]);
        expect(stopped.code).toBe(130);
        expect(stopped.stdout).toMatch(/! wait-1 errored/);
        if (settle.startsWith("resolve"))
          expect(stopped.stdout).toMatch(
            /the run was stopped \(interrupted by SIGINT\) while this attempt ran; its failed verdict is not kept, and a resumed run runs it again/,
          );
        const first = await storedStatus(project.dir, store);
        expect(first.status).toBe("interrupted");
        expect(first.attempts).toContain("wait-1:errored");

        const resumed = await runCli(["run", ...mode, "--resume", "--store", store], project.dir);
        expect(resumed.stderr).not.toMatch(/crash|failed/);
        expect(resumed.code).toBe(0);
        const after = await storedStatus(project.dir, store);
        expect(after.status).toBe("finished");
        expect(after.attempts.sort()).toEqual(
          ["after-1", "after-2", "after-3", "quick", "wait-1", "wait-2"].map(
            (id) => `${id}:passed`,
          ),
        );
      });
    }
  },
);

// A scorer that calls a judge without passing any signal, beside a deterministic one.
const silentJudgeSuite = `
import { defineSuite } from "niceeval";
import { createScorer, expectations } from "niceeval/scorers";

const det = createScorer({ name: "det", score: ({ output }) => ({ score: output === "hello" ? 1 : 0 }) });
const judged = createScorer({
  name: "judged",
  score: async ({ input, output }) => {
    console.error("TARGET-STARTED judge call");
    const mark = await expectations(input, { text: output, calls: [] }, { should: ["greets"] }, "m1");
    return { score: mark.score };
  },
});

export const greets = defineSuite({
  id: "greets",
  cases: [{ id: "hello", input: "say hello", expected: "hello" }],
  target: () => "hello",
  scorers: [det, judged],
});
`;

describe("a judge called from a scorer that passes no signal stops with the run (real CLI)", () => {
  let project: FixtureProject;
  let server: Server;
  const saved = { ...process.env };
  beforeAll(async () => {
    project = await makeProject({ "evals/greets.eval.js": silentJudgeSuite });
    // Accepts every request and never answers it.
    server = createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    process.env.NICEEVAL_JUDGE_BASE_URL = `http://127.0.0.1:${port}/v1`;
    process.env.NICEEVAL_JUDGE_MODEL = "m1";
  });
  afterAll(async () => {
    process.env = saved;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await project.cleanup();
  });

  for (const mode of [[], ["--no-supervise"]] as const) {
    const label = mode.length ? "in process" : "supervised";

    it(`${label}: SIGINT aborts the judge call at once and keeps the finished judgment`, async () => {
      const started = performance.now();
      const run = await runAndSignal(
        ["run", ...mode, "--no-cache", "--grace", "20000", "--json", `judge-${label}.json`],
        project.dir,
        ["SIGINT"],
      );
      expect(run.code).toBe(130);
      // Far from the 20 s grace period: the judge call itself was aborted.
      expect(performance.now() - started).toBeLessThan(10_000);
      const report = JSON.parse(
        await readFile(join(project.dir, `judge-${label}.json`), "utf8"),
      ) as { records: AttemptRecord[] };
      const [record] = report.records;
      expect(record?.judgments.find((j) => j.label === "det")?.earned).toBe(1);
      expect(record?.judgments.find((j) => j.label === "judged")?.reason).toMatch(
        /interrupted by SIGINT/,
      );
    }, 30_000);
  }
});
