import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/index.js";
import { cliPath, type FixtureProject, makeProject } from "../support/project.js";

// A report piped into a reader that falls behind (`niceeval run | tee log` in CI): the pipe fills,
// the writer gets EAGAIN on a non-blocking pipe and must wait for room, and nothing is lost or
// reordered.

const CASES = 4000;

const SUITE = `import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });
export const piped = defineSuite({
  id: "piped",
  cases: function* () { for (let i = 0; i < ${CASES}; i++) yield { id: "case-" + i, input: i, expected: i }; },
  target: (i) => i,
  scorers: [same],
});
`;

// Cases that take a while: their lines leave on the writer's timer, not with a full buffer.
const SLOW_SUITE = SUITE.replace('id: "piped"', 'id: "slow"')
  .replace(`i < ${CASES}`, "i < 60")
  .replace(
    "target: (i) => i",
    "target: async (i) => { await new Promise((r) => setTimeout(r, 50)); return i; }",
  );

let project: FixtureProject;

beforeAll(async () => {
  project = await makeProject({ "evals/piped.eval.js": SUITE, "slow/slow.eval.js": SLOW_SUITE });
});

afterAll(async () => {
  await project.cleanup();
});

type Run = { code: number | null; stdout: string; stderr: string };

/**
 * Runs `bash -c` with the CLI's command line (`args` after the CLI) in place of `{cli}` in
 * `script`: its stdout an anonymous pipe (a FIFO, as a shell or a CI runner gives).
 */
function runInShell(args: readonly string[], script: string): Promise<Run> {
  const quoted = [process.execPath, cliPath, ...args].map((a) => `'${a}'`).join(" ");
  return new Promise((resolve, reject) => {
    const shell = spawn("bash", ["-c", script.replace("{cli}", quoted)], {
      cwd: project.dir,
      env: { ...process.env, CI: "true", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    shell.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    shell.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    shell.on("error", reject);
    shell.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The CLI piped into a reader that starts reading `stallMs` late. */
const runIntoShellPipe = (args: readonly string[], stallMs: number) =>
  runInShell(args, `set -o pipefail; {cli} | { sleep ${stallMs / 1000}; cat; }`);

/** Runs the CLI with its stdout read nothing for `stallMs` after the first chunk, then all of it. */
function runWithSlowReader(
  args: readonly string[],
  stallMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd: project.dir,
      env: { ...process.env, CI: "true", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const chunks: string[] = [];
    let stderr = "";
    let stalled = false;
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      chunks.push(chunk);
      if (stalled) return;
      stalled = true;
      child.stdout.pause();
      setTimeout(() => child.stdout.resume(), stallMs);
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout: chunks.join(""), stderr }));
  });
}

describe("a report piped into a slow reader", () => {
  const runs = [
    ["through a socket pair", [], runWithSlowReader],
    ["through a socket pair, --no-supervise", ["--no-supervise"], runWithSlowReader],
    ["through a shell pipe", [], runIntoShellPipe],
  ] as const;
  for (const [name, mode, runner] of runs) {
    it(`arrives whole and in order, ${name}`, async () => {
      const run = await runner(["run", "--no-store", ...mode], 400);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      const cases = run.stdout.match(/^ {2}✓ case-\d+ passed/gm) ?? [];
      expect(cases).toHaveLength(CASES);
      cases.forEach((line, i) => {
        expect(line).toBe(`  ✓ case-${i} passed`);
      });
      expect(run.stdout).toMatch(/Summary\n {2}1 eval · 4000 cases · 4000 passed/);
      expect(run.stdout.trimEnd().endsWith("PASS")).toBe(true);
    }, 60_000);
  }
});

/** The CLI piped into `head -n 3`, which leaves after three lines; the CLI's own exit code. */
const runIntoHead = (args: readonly string[]) =>
  runInShell(args, `{cli} | head -n 3; exit \${PIPESTATUS[0]}`);

describe("a report piped into a reader that leaves (`niceeval run | head`)", () => {
  const note =
    "niceeval: the reader of a report closed its pipe (EPIPE); that report stops here, the run goes on\n";

  it("stops that report with one note, and the run goes on to the store and its exit code", async () => {
    const run = await runIntoHead(["run", "--store", "head.sqlite"]);
    expect(run.stdout.split("\n").length).toBeLessThanOrEqual(4);
    expect(run.stderr).toBe(note);
    expect(run.code).toBe(0);
    const store = await openSqliteStore(`${project.dir}/head.sqlite`);
    try {
      const [stored] = await store.listRuns({ limit: 1 });
      expect(stored?.status).toBe("finished");
      expect(stored?.totals.attempts).toBe(CASES);
    } finally {
      await store.close();
    }

    // The comparison with a baseline is written after the report, to the same closed pipe.
    const compared = await runIntoHead([
      "run",
      "--store",
      "head.sqlite",
      "--baseline",
      "latest",
      "--fail-on-regression",
    ]);
    expect(compared.stderr).toBe(note);
    expect(compared.code).toBe(0);
  }, 60_000);

  it("stops quietly when the pipe closes between two cases (the lines a timer writes)", async () => {
    for (const mode of [[], ["--no-supervise"]]) {
      const run = await runIntoHead(["run", "slow", "--no-store", "--concurrency", "4", ...mode]);
      expect(run.stderr).toBe(note);
      expect(run.code).toBe(0);
    }
  }, 60_000);
});

describe("a stored run read into a reader that leaves (`niceeval show latest | head`)", () => {
  it("ends show, show --json and export --ndjson - quietly with exit 0", async () => {
    const stored = await runInShell(
      ["run", "--store", "read.sqlite", "--quiet"],
      "{cli} > /dev/null",
    );
    expect(stored.code).toBe(0);
    const reads = [
      ["show", "latest"],
      ["show", "latest", "--json"],
      ["export", "latest", "--ndjson", "-"],
    ];
    for (const read of reads) {
      const run = await runIntoHead([...read, "--store", "read.sqlite"]);
      expect({ read, stderr: run.stderr, code: run.code }).toEqual({ read, stderr: "", code: 0 });
      expect(run.stdout.split("\n").length).toBeLessThanOrEqual(4);
    }
  }, 60_000);
});
