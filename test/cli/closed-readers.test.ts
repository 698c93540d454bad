import { spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/index.js";
import { cliPath, type FixtureProject, makeProject } from "../support/project.js";

// `niceeval run … 2>&1 | head -3`: the readers of the CLI's stdout, stderr or both leave after a
// few lines, while the run (and the code under test, which prints to both) goes on writing to
// them. The run must end by itself with its own exit code, and the store and the JSON report
// must hold every attempt; a closed stream is no error of the run's, nor of the user's code.

const CASES = 240;

const SUITE = `import { writeFileSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });
export const talks = defineSuite({
  id: "talks",
  concurrency: 4,
  // One case in ten fails: the run's own exit code is 1.
  cases: Array.from({ length: ${CASES} }, (_, i) => ({ id: "case-" + i, input: i, expected: i % 10 === 9 ? -1 : i })),
  target: async (i) => {
    console.log("target says " + i);
    console.error("target warns " + i);
    await new Promise((r) => setTimeout(r, 15));
    return i;
  },
  scorers: [same],
});
`;

// Quick cases, then one that never ends: it writes a file when it starts, for the signal.
const HANGING = `import { writeFileSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });
export const hangs = defineSuite({
  id: "hangs",
  concurrency: 1,
  cases: [...Array.from({ length: 30 }, (_, i) => ({ id: "quick-" + i, input: i, expected: i })), { id: "never", input: -1, expected: -1 }],
  target: async (i) => {
    console.log("target says " + i);
    console.error("target warns " + i);
    if (i === -1) {
      writeFileSync("never-started", "");
      await new Promise(() => {});
    }
    return i;
  },
  scorers: [same],
});
`;

let project: FixtureProject;

beforeAll(async () => {
  project = await makeProject({ "evals/talks.eval.js": SUITE, "hangs/hangs.eval.js": HANGING });
});

afterAll(async () => {
  await project.cleanup();
});

type Closed = "stdout" | "stderr" | "both";

interface LeftRun {
  code: number | null;
  /** Whether the run had to be killed, not having ended within the bound. */
  hung: boolean;
  /** What the readers read before they left (all of a stream left open). */
  stdout: string;
  stderr: string;
}

/** Far beyond what such a run takes on a loaded machine: only a run that never ends reaches it. */
const BOUND_MS = 100_000;

/**
 * Runs the CLI with its stdout and stderr piped to this process; once stdout has 3 lines (stderr
 * a line, when only stderr closes), the readers of `closed` are destroyed, as `head` leaves.
 * `afterClose` runs then (a signal to send). Killed with SIGKILL at {@link BOUND_MS}.
 */
function runWhileReadersLeave(
  args: readonly string[],
  closed: Closed,
  afterClose: (pid: number) => void = () => {},
): Promise<LeftRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd: project.dir,
      env: { ...process.env, CI: "true", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let left = false;
    let hung = false;
    const leave = () => {
      if (left) return;
      left = true;
      if (closed !== "stderr") child.stdout.destroy();
      if (closed !== "stdout") child.stderr.destroy();
      afterClose(child.pid!);
    };
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      if (closed !== "stderr" && stdout.split("\n").length > 3) leave();
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      if (closed === "stderr" && stderr.includes("\n")) leave();
    });
    const limit = setTimeout(() => {
      hung = true;
      child.kill("SIGKILL");
    }, BOUND_MS);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(limit);
      resolve({ code, hung, stdout, stderr });
    });
  });
}

/** The stored run: its status, and its attempts' verdicts counted. */
async function stored(file: string): Promise<{ status: string; verdicts: Record<string, number> }> {
  const store = await openSqliteStore(join(project.dir, file));
  try {
    const [run] = await store.listRuns({ limit: 1 });
    const verdicts: Record<string, number> = {};
    for await (const record of store.streamAttempts(run!.runId))
      verdicts[record.verdict] = (verdicts[record.verdict] ?? 0) + 1;
    return { status: run!.status, verdicts };
  } finally {
    await store.close();
  }
}

/** The JSON report's records' verdicts counted, and its summary's totals (it must parse whole). */
async function reported(
  file: string,
): Promise<{ verdicts: Record<string, number>; totals: { cases: number } }> {
  const report = JSON.parse(await readFile(join(project.dir, file), "utf8")) as {
    records: { verdict: string }[];
    summary: { totals: { cases: number } };
  };
  const verdicts: Record<string, number> = {};
  for (const record of report.records)
    verdicts[record.verdict] = (verdicts[record.verdict] ?? 0) + 1;
  return { verdicts, totals: report.summary.totals };
}

const FAILED = CASES / 10;
const EVERY_ATTEMPT = { passed: CASES - FAILED, failed: FAILED };

describe("a run whose readers leave (`niceeval run 2>&1 | head`)", () => {
  const cases = [
    ["both", []],
    ["both", ["--no-supervise"]],
    ["stdout", []],
    ["stdout", ["--no-supervise"]],
    ["stderr", []],
    ["stderr", ["--no-supervise"]],
  ] as const;
  for (const [closed, mode] of cases) {
    const name = `${closed}-${mode.length ? "in-process" : "supervised"}`;
    it(`ends by itself with its own code, every attempt stored and reported: ${closed} closed, ${mode.length ? "--no-supervise" : "supervised"}`, async () => {
      const run = await runWhileReadersLeave(
        ["run", "evals", "--store", `${name}.sqlite`, "--json", `${name}.json`, ...mode],
        closed,
      );
      expect(run.hung).toBe(false);
      // A closed stream is neither an error of the user's code nor a crash: the run's own code.
      expect(run.stderr).not.toMatch(/uncaught|crashed|EPIPE.*user code/);
      expect(run.code).toBe(1);
      expect(await stored(`${name}.sqlite`)).toEqual({
        status: "finished",
        verdicts: EVERY_ATTEMPT,
      });
      const report = await reported(`${name}.json`);
      expect(report.verdicts).toEqual(EVERY_ATTEMPT);
      expect(report.totals.cases).toBe(CASES);
      if (closed === "stderr") {
        // The report on stdout is whole.
        expect(run.stdout.match(/^ {2}[✓✗] case-\d+ (passed|failed)/gm)).toHaveLength(CASES);
        expect(run.stdout).toMatch(
          /Summary\n {2}1 eval · 240 cases · 216 passed \(.*\) · 24 failed · 0 errored/,
        );
      }
      if (closed === "stdout") {
        // Said once on stderr, which is still read; nothing else of niceeval's own.
        expect(run.stderr.match(/closed its pipe/g)).toHaveLength(1);
      }
    }, 240_000);
  }

  for (const mode of [[], ["--no-supervise"]] as const) {
    const name = `signal-${mode.length ? "in-process" : "supervised"}`;
    it(`still stops at SIGTERM with 143, storing every attempt that finished (${mode.length ? "--no-supervise" : "supervised"})`, async () => {
      const marker = join(project.dir, "never-started");
      rmSync(marker, { force: true });
      let poll: ReturnType<typeof setInterval> | undefined;
      const run = await runWhileReadersLeave(
        [
          "run",
          "hangs",
          "--grace",
          "300",
          "--store",
          `${name}.sqlite`,
          "--json",
          `${name}.json`,
          ...mode,
        ],
        "both",
        (pid) => {
          poll = setInterval(() => {
            if (!existsSync(marker)) return;
            clearInterval(poll);
            process.kill(pid, "SIGTERM");
          }, 50);
        },
      );
      clearInterval(poll);
      expect(run.hung).toBe(false);
      expect(run.code).toBe(143);
      expect(await stored(`${name}.sqlite`)).toEqual({
        status: "interrupted",
        verdicts: { passed: 30, errored: 1 },
      });
      const report = await reported(`${name}.json`);
      expect(report.verdicts).toEqual({ passed: 30, errored: 1 });
    }, 240_000);
  }
});
