import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runAndSignal, runCli } from "../support/project.js";

const passingSuite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer<string, string>({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

export const echo = defineSuite<string, string>({
  id: "echo",
  cases: [
    { id: "hello", input: "hello", expected: "hello" },
    { id: "world", input: "world", expected: "world" },
  ],
  target: async (input) => input,
  scorers: [same],
});
`;

const failingSuite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer<string, string>({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});
const shaky = createScorer<string, string>({
  name: "shaky",
  score: ({ output }) => {
    if (output === "boom") throw new Error("shaky scorer broke");
    return { score: 1 };
  },
});

export const upper = defineSuite<string, string>({
  id: "upper",
  cases: [
    { id: "ok", input: "a", expected: "A" },
    { id: "wrong", input: "b", expected: "X" },
    { id: "explodes", input: "boom", expected: "BOOM" },
  ],
  target: async (input) => (input === "boom" ? "boom" : input.toUpperCase()),
  scorers: [same, shaky],
});
`;

/**
 * A project of its own with `files`, and `check` run once supervised and once with
 * `--no-supervise` (its flags to add); the project is removed after.
 */
async function inBothModes(
  files: Record<string, string>,
  check: (flags: string[], dir: string) => Promise<void>,
): Promise<void> {
  const own = await makeProject(files);
  try {
    for (const flags of [[], ["--no-supervise"]]) await check(flags, own.dir);
  } finally {
    await own.cleanup();
  }
}

describe("niceeval run (real CLI on a fixture project)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/echo.eval.ts": passingSuite,
      "evals/more/upper.eval.ts": failingSuite,
      "evals/broken.eval.ts": "export const x = ;\n",
      "evals/empty.eval.ts": "export const nothing = 1;\n",
      "evals/bare.eval.ts": 'export const suite = { id: "bare", cases: [], scorers: [] };\n',
      "other/only-echo.eval.ts": passingSuite.replace('id: "echo"', 'id: "echo-2"'),
    });
  });
  afterAll(() => project.cleanup());

  it("exits 0 and prints every case and judgment when everything passes", async () => {
    const run = await runCli(["run", "other"], project.dir);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("echo-2");
    expect(run.stdout).toMatch(/✓ hello passed · 1\/1 complete/);
    expect(run.stdout).toMatch(/✓ same \(gate · 1 pt\) 1\/1 — 1 >= threshold 0\.5/);
    expect(run.stdout).toContain(
      "1 eval · 2 cases · 2 passed (100% of 2, 95% CI 34.2–100%) · 0 failed · 0 errored",
    );
    expect(run.stdout.trim().endsWith("PASS")).toBe(true);
  });

  it("reports failures, scorer errors and broken files, runs the rest, and exits 1", async () => {
    const run = await runCli(["run"], project.dir);
    expect(run.code).toBe(1);
    // The broken file is named with its error; the empty one says what to export.
    expect(run.stdout).toMatch(/3 files failed to load:/);
    expect(run.stdout).toContain(
      'evals/bare.eval.ts: export "suite" is a suite without a target; export defineSuite({ ...suite, target }) instead',
    );
    expect(run.stdout).toMatch(/evals\/broken\.eval\.ts: .*(Transform failed|Expected|Unexpected)/);
    expect(run.stdout).toMatch(/evals\/empty\.eval\.ts: exports no eval/);
    // Other files still ran.
    expect(run.stdout).toContain("echo");
    expect(run.stdout).toMatch(/✗ wrong failed/);
    expect(run.stdout).toMatch(/! explodes errored/);
    expect(run.stdout).toContain('scorer "shaky" threw: shaky scorer broke');
    expect(run.stdout).toContain("2 evals · 5 cases · 3 passed");
    expect(run.stdout.trim().endsWith("FAIL")).toBe(true);
  });

  it("shows a failed case's output and expected value, also with no store to keep them", async () => {
    await inBothModes({ "evals/upper.eval.ts": failingSuite }, async (flags, dir) => {
      for (const store of [[], ["--no-store"]]) {
        const run = await runCli(["run", ...flags, ...store], dir);
        expect(run.code).toBe(1);
        expect(run.stdout).toMatch(
          /✗ wrong failed[^\n]*\n(?: {6}[✓✗!?].*\n)+ {6}output: {3}"B"\n {6}expected: "X"\n/,
        );
        // A passed or errored case shows none.
        expect(run.stdout.match(/output: {3}/g)).toHaveLength(1);
      }
    });
  });

  it("never passes a run that an eval file ends with process.exit(0)", async () => {
    await inBothModes(
      {
        "evals/echo.eval.ts": passingSuite,
        // At load: the file fails to load and the other still runs.
        "evals/exits.eval.ts": 'import "niceeval";\nprocess.exit(0);\nexport const x = 1;\n',
        // Later, from a timer its top level set: in process, it ends the CLI; supervised, only the
        // eval process imports a file that exports no eval, and the timer ends each eval process.
        "late/echo.eval.ts": passingSuite.replace(
          "target: async (input) => input",
          "target: async (input) => { await new Promise((r) => setTimeout(r, 2000)); return input; }",
        ),
        "late/timer.eval.ts": "setTimeout(() => process.exit(0), 300);\nexport {};\n",
      },
      async (flags, dir) => {
        const atLoad = await runCli(["run", "evals", "--no-store", ...flags], dir);
        expect(atLoad.code).toBe(1);
        expect(atLoad.stdout).toContain(
          "evals/exits.eval.ts: the file called process.exit(0) while it was loading",
        );
        expect(atLoad.stdout).toMatch(/✓ hello passed/);
        const later = await runCli(["run", "late", "--no-store", ...flags], dir);
        expect(later.code).toBe(1);
        expect(later.stderr).toMatch(
          flags.length === 0
            ? /niceeval: the eval process exited with code 0 \(process\.exit called at .*\)\) during echo\/hello/
            : /niceeval: code loaded by the run called process\.exit\(0\) at .*late\/timer\.eval\.ts:\d+:\d+\)? before the run finished/,
        );
      },
    );
  });

  it("ends the run with its reports on a signal while the eval files load (exit 130, valid JSON)", async () => {
    await inBothModes(
      {
        "evals/echo.eval.ts": passingSuite,
        "evals/waits.eval.ts":
          'import "niceeval";\nconsole.error("TARGET-STARTED loading");\nawait new Promise((r) => setTimeout(r, 600_000));\nexport const x = 1;\n',
      },
      async (flags, dir) => {
        const run = await runAndSignal(
          ["run", "--no-store", "--json", "report.json", ...flags],
          dir,
          ["SIGINT"],
        );
        expect(run.code).toBe(130);
        // The eval process still loading is ended at once, not asked to close and waited for.
        expect(run.afterSignalMs).toBeLessThan(3000);
        expect(run.stderr).toContain("niceeval: the eval files were still loading: no case ran");
        expect(run.stderr).not.toContain("ExitWhileLoading");
        expect(run.stdout).toContain("cancelled: no case ran");
        const report = JSON.parse(await readFile(join(dir, "report.json"), "utf8"));
        expect(report).toMatchObject({ records: [], summary: { cancelled: true, ok: false } });
      },
    );
  });

  it("names a thrown error's type and where the user's code threw it", async () => {
    const throwing = passingSuite
      .replace(
        "target: async (input) => input",
        'target: async (input) => (input === "world" ? readWidget(2) : input)',
      )
      .replace(
        "export const echo",
        'function readWidget(n: number): string {\n  throw new TypeError("cannot read widget " + n);\n}\nexport const echo',
      );
    const dataset = passingSuite
      .replace('id: "echo"', 'id: "rows"')
      .replace(
        /cases: \[[^\]]*\]/,
        'cases: function* () { yield { id: "r1", input: "a", expected: "a" }; throw new RangeError("dataset broke at row 2"); }',
      );
    await inBothModes(
      { "evals/echo.eval.ts": throwing, "evals/rows.eval.ts": dataset },
      async (flags, dir) => {
        const run = await runCli(["run", "--no-store", ...flags], dir);
        expect(run.stdout).toMatch(
          /! target of case "world" in eval "echo": TypeError: cannot read widget 2 \(at readWidget \(.*evals\/echo\.eval\.ts:\d+:\d+\)\)/,
        );
        // A dataset's error too, read in the eval process or here.
        expect(run.stdout).toMatch(
          /reading the cases of eval "rows" failed: RangeError: dataset broke at row 2 \(at cases \(.*evals\/rows\.eval\.ts:\d+:\d+\)\)/,
        );
        // Stored after the case read before it, as the report shows it: show lists it there too.
        const stored = await runCli(
          ["run", "evals/rows.eval.ts", "--store", "s.sqlite", ...flags],
          dir,
        );
        const shown = await runCli(["show", "latest", "--store", "s.sqlite"], dir);
        const order = (text: string) => text.match(/^ {2}[✓✗!-] (\S+)/gm);
        expect(order(shown.stdout)).toEqual(order(stored.stdout));
        expect(order(shown.stdout)).toEqual(["  ✓ r1", "  ! (cases)"]);
      },
    );
  });

  it("says where a scorer, a matcher's evaluate and a defineContextMatch read threw, as for a target", async () => {
    const scorer = passingSuite
      .replace(
        "score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),",
        "score: ({ output }) => ({ score: lowerAnswer(undefined as never, output) }),",
      )
      .replace(
        "const same",
        "function lowerAnswer(answer: string, _: string): number {\n  return answer.toLowerCase() ? 1 : 0;\n}\nconst same",
      );
    const score = `
import { defineAdapter } from "niceeval";
import { type BooleanMatch, defineContextMatch, equals } from "niceeval/expect";

type Facts = { status: number; body?: { ok: boolean } };
const boom: BooleanMatch<number> = {
  kind: "match",
  name: "boom",
  expects: "never throws",
  evaluate: function explode() {
    throw new Error("matcher kaboom");
  },
};
const bodyOk = defineContextMatch<Facts, boolean>({
  name: "body-ok",
  read: function readBody(facts) {
    return { state: "available", value: (facts.body as { ok: boolean }).ok };
  },
  match: equals(true),
});
const app = defineAdapter({ name: "app", create: async (): Promise<Facts> => ({ status: 500 }) });
export const review = app.defineScoreEval({
  description: "review",
  test(t) {
    t.check(t.status, boom).score(1);
    t.check(bodyOk).score(1);
  },
});
`;
    await inBothModes(
      { "evals/echo.eval.ts": scorer, "evals/review.eval.ts": score },
      async (flags, dir) => {
        const run = await runCli(["run", "--no-store", "--json", "report.json", ...flags], dir);
        const scorerSays =
          /scorer "same" threw: TypeError: Cannot read properties of undefined \(reading 'toLowerCase'\) \(at lowerAnswer \(.*evals\/echo\.eval\.ts:\d+:\d+\)\)/;
        expect(run.stdout).toMatch(scorerSays);
        // The matcher by its name, not its `expects`.
        expect(run.stdout).toMatch(
          /matcher "boom" threw: matcher kaboom \(at (Object\.)?explode \(.*evals\/review\.eval\.ts:\d+:\d+\)\)/,
        );
        expect(run.stdout).toMatch(
          /check "body-ok" threw: TypeError: Cannot read properties of undefined \(reading 'ok'\) \(at (Object\.)?readBody \(.*evals\/review\.eval\.ts:\d+:\d+\)\)/,
        );
        // The JSON report's judgment says it the same way.
        const report = JSON.parse(await readFile(join(dir, "report.json"), "utf8"));
        const echo = report.records.find((r: { evalId: string }) => r.evalId === "echo");
        expect(echo.judgments[0].reason).toMatch(scorerSays);
      },
    );
  });

  it("fails a run whose loaded code calls process.exit with any code, saying so (exit 1)", async () => {
    const exits = passingSuite.replace(
      "target: async (input) => input",
      'target: async (input) => { if (input === "world") process.exit(3); return input; }',
    );
    const own = await makeProject({ "evals/echo.eval.ts": exits });
    try {
      const run = await runCli(["run", "--no-store", "--no-supervise"], own.dir);
      expect(run.code).toBe(1);
      // Where it was called: the target's line in the eval file.
      expect(run.stderr).toMatch(
        /niceeval: code loaded by the run called process\.exit\(3\) at .*evals\/echo\.eval\.ts:\d+:\d+\)? before the run finished; the report is incomplete and the run is failed \(exit 1\)/,
      );
    } finally {
      await own.cleanup();
    }
  });

  it("fails a file whose top-level await never settles after --hang-timeout, and runs the others", async () => {
    await inBothModes(
      {
        "evals/echo.eval.ts": passingSuite,
        "evals/waits.eval.ts":
          'import "niceeval";\nawait new Promise((r) => setTimeout(r, 600_000));\nexport const x = 1;\n',
      },
      async (flags, dir) => {
        const started = Date.now();
        const run = await runCli(["run", "--no-store", "--hang-timeout", "1000", ...flags], dir);
        expect(Date.now() - started).toBeLessThan(30_000);
        expect(run.code).toBe(1);
        expect(run.stdout).toContain(
          "evals/waits.eval.ts: the file did not finish loading within 1 s (--hang-timeout)",
        );
        expect(run.stdout).toMatch(/✓ hello passed/);
        // The run's time leaves the loading out, and says how long it took beside it.
        expect(run.stdout).toMatch(/ {2}time: [\d.]+ m?s, after [\d.]+ s loading the eval files\n/);
        expect(run.stdout.trim().endsWith("FAIL")).toBe(true);
      },
    );
  }, 60_000);

  it("fails a file whose top-level code never ends, supervised, and runs the others (the CLI never imports it)", async () => {
    const project = await makeProject({
      "evals/echo.eval.ts": passingSuite,
      "evals/spins.eval.ts": 'import "niceeval";\nfor (;;) {}\nexport const x = 1;\n',
    });
    try {
      const run = await runCli(["run", "--no-store", "--hang-timeout", "1000"], project.dir);
      expect(run.code).toBe(1);
      // Loading has a floor of 30 s: files may build their datasets at the top level.
      expect(run.stdout).toContain(
        "evals/spins.eval.ts: the file did not finish loading within 30 s (--hang-timeout, and at least 30 s while files load): its top-level code kept the eval process busy without end",
      );
      expect(run.stdout).toMatch(/✓ hello passed/);
      expect(run.stdout.trim().endsWith("FAIL")).toBe(true);
    } finally {
      await project.cleanup();
    }
  }, 120_000);

  it("fails a file whose import kills each eval process, supervised, and runs the others (the CLI never imports it)", async () => {
    const project = await makeProject({
      "evals/a-crash.eval.ts":
        'import "niceeval";\nif (process.send) process.kill(process.pid, "SIGKILL");\nelse console.error("IMPORTED-IN-CLI");\nexport const x = 1;\n',
      "evals/echo.eval.ts": passingSuite,
    });
    try {
      const run = await runCli(["run", "--no-store"], project.dir);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(
        "evals/a-crash.eval.ts: the eval process ended each time it imported the file (the eval process was killed by SIGKILL)",
      );
      expect(run.stderr).not.toContain("IMPORTED-IN-CLI");
      expect(run.stdout).toMatch(/✓ hello passed/);
    } finally {
      await project.cleanup();
    }
  }, 60_000);

  it("counts an eval's time while its attempts ran, also when the eval process ran them ahead", async () => {
    await inBothModes(
      {
        // Each attempt holds its thread for 400 ms, one at a time.
        "evals/slow.eval.ts": passingSuite
          .replace('id: "echo",', 'id: "echo",\n  concurrency: 1,')
          .replace(
            "target: async (input) => input",
            "target: (input) => { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 400); return input; }",
          ),
      },
      async (flags, dir) => {
        const run = await runCli(["run", "--no-store", "--json", "r.json", ...flags], dir);
        expect(run.code).toBe(0);
        const report = JSON.parse(await readFile(join(dir, "r.json"), "utf8"));
        const [echo] = report.summary.evals;
        expect(echo.cases).toBe(2);
        expect(echo.elapsedMs).toBeGreaterThanOrEqual(790);
        expect(echo.elapsedMs).toBeLessThanOrEqual(report.summary.elapsedMs);
      },
    );
  });

  it("lets more than ten attempts in flight listen to their signal without a leak warning", async () => {
    await inBothModes(
      {
        "evals/listens.eval.ts": passingSuite
          .replace(
            "cases: [",
            "cases: [...Array.from({ length: 30 }, (_, i) => ({ id: 'l' + i, input: 'x', expected: 'x' })),",
          )
          .replace(
            "target: async (input) => input",
            "target: async (input, context) => { context.signal?.addEventListener('abort', () => {}); await new Promise((r) => setTimeout(r, 50)); return input; }",
          ),
      },
      async (flags, dir) => {
        const run = await runCli(["run", "--no-store", "--concurrency", "16", ...flags], dir);
        expect(run.code).toBe(0);
        expect(run.stdout).toContain("32 passed");
        expect(run.stderr).not.toContain("MaxListenersExceededWarning");
      },
    );
  });

  it("fails the report, not only the exit code, when an error in user code belongs to no case", async () => {
    await inBothModes(
      {
        "evals/stray.eval.ts": passingSuite.replace(
          "target: async (input) => input",
          'target: async (input) => { if (input === "hello" && !globalThis.strayed) { globalThis.strayed = true; Promise.reject(new Error("stray")); } await new Promise((r) => setTimeout(r, 50)); return input; }',
        ),
      },
      async (flags, dir) => {
        const run = await runCli(["run", "--no-store", "--json", "r.json", ...flags], dir);
        expect(run.code).toBe(1);
        expect(run.stdout).toMatch(
          /1 error in user code belonged to no case \(the run fails\):\n.*stray/,
        );
        expect(run.stdout.trim().endsWith("FAIL")).toBe(true);
        const report = JSON.parse(await readFile(join(dir, "r.json"), "utf8"));
        expect(report.summary.ok).toBe(false);
        expect(report.summary.runErrors[0]).toContain("stray");
      },
    );
  });

  it("reports a thrown proxy that throws on every reading, instead of crashing on it", async () => {
    await inBothModes(
      {
        "evals/proxy.eval.ts": passingSuite.replace(
          "target: async (input) => input",
          `target: async (input) => {
    if (input === "hello") {
      const trap = () => { throw 7; };
      setTimeout(() => { throw new Proxy({}, { get: trap, getPrototypeOf: trap, ownKeys: trap }); }, 1);
      await new Promise((r) => setTimeout(r, 50));
    }
    return input;
  }`,
        ),
      },
      async (flags, dir) => {
        const run = await runCli(["run", "--no-store", ...flags], dir);
        expect(run.code).toBe(1);
        expect(run.stderr).not.toContain("--trace-uncaught");
        expect(`${run.stdout}${run.stderr}`).toContain(
          "a thrown object that cannot be printed (reading it threw)",
        );
      },
    );
  });

  it("filters cases and writes a JSON report", async () => {
    const out = join(project.dir, "report.json");
    const run = await runCli(
      ["run", "evals/more", "--filter", "upper/ok", "--json", out],
      project.dir,
    );
    expect(run.code).toBe(0);
    const report = JSON.parse(await readFile(out, "utf8"));
    expect(report.records).toHaveLength(1);
    expect(report.records[0]).toMatchObject({ evalId: "upper", caseId: "ok", verdict: "passed" });
    expect(report.summary.totals).toMatchObject({ cases: 1, passed: 1 });
    // The header's count is of the files' evals, and says the filter that narrows them.
    expect(run.stdout).toMatch(
      /^niceeval run · \d+ evals? from \d+ files?, cases matching --filter upper\/ok · /m,
    );
  });

  it("exits 2 with a clear message on a usage error", async () => {
    const missing = await runCli(["run", "nope"], project.dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("path not found: nope");
    const badFlag = await runCli(["run", "--concurrency", "zero"], project.dir);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain(
      '--concurrency must be a whole number from 1 to 1024, got "zero"',
    );
    // Digits only, as documented: Number() would have read these.
    for (const text of ["1e3", "0x10", " 8"]) {
      const odd = await runCli(["run", "--concurrency", text], project.dir);
      expect(odd.code).toBe(2);
      expect(odd.stderr).toContain(
        `--concurrency must be a whole number from 1 to 1024, got "${text}"`,
      );
    }
    // An unknown option is named, with the one a typo most likely meant when one is close.
    const unknownFlag = await runCli(["run", "--foo"], project.dir);
    expect(unknownFlag.code).toBe(2);
    expect(unknownFlag.stderr).toMatch(/unknown option --foo\. Run `niceeval --help`\.\n$/);
    // Said once by name: "niceeval run: …", not "niceeval: niceeval run: …".
    expect(unknownFlag.stderr).toMatch(/^niceeval run: unknown option --foo/m);
    expect(unknownFlag.stderr).not.toContain("niceeval: niceeval");
    const typo = await runCli(["run", "--concurency", "2"], project.dir);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("unknown option --concurency; did you mean --concurrency?");
    const unknown = await runCli(["walk"], project.dir);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "walk"');
    const nothing = await runCli(["run", "other", "--filter", "no-such-case"], project.dir);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain(
      '--filter "no-such-case" selected no case. Evals found: echo-2',
    );
    // The report does not claim a pass for a run that ran nothing.
    expect(nothing.stdout).not.toMatch(/PASS/);
    expect(nothing.stdout.trimEnd().endsWith("NO CASE RAN")).toBe(true);
    // A report's missing folder is made, as the store's is; a file where a folder should be is
    // refused before anything runs.
    const newFolder = await runCli(
      ["run", "other", "--json", "reports/out.json", "--reporter", "junit=reports/junit.xml"],
      project.dir,
    );
    expect(newFolder.code).toBe(0);
    const report = JSON.parse(await readFile(join(project.dir, "reports/out.json"), "utf8"));
    expect(report).toMatchObject({ format: "niceeval/run/v1" });
    expect(await readFile(join(project.dir, "reports/junit.xml"), "utf8")).toContain("<testsuites");
    await writeFile(join(project.dir, "a-file"), "");
    const badJson = await runCli(["run", "other", "--json", "a-file/out.json"], project.dir);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toMatch(/--json: cannot write a-file\/out\.json \((EEXIST|ENOTDIR)\)/);
  });

  it('loads TypeScript eval files in a project without "type": "module"', async () => {
    const plain = await makeProject({ "evals/echo.eval.ts": passingSuite }, { name: "plain" });
    try {
      const run = await runCli(["run"], plain.dir);
      expect(run.stdout).not.toContain("failed to load");
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("1 eval · 2 cases · 2 passed");
    } finally {
      await plain.cleanup();
    }
  });
});
