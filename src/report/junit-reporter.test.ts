import { execFileSync, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { defineSuite } from "../eval/suite.js";
import { junitReporter } from "./junit-reporter.js";
import {
  brokenAndLeftOut,
  judgment,
  mixedSuite,
  ran,
  record,
  run,
  runSummary,
  tempDir,
} from "./test-support/runs.js";

const XSD = fileURLToPath(new URL("../../test/fixtures/junit/junit.xsd", import.meta.url));

// The schema check never skips: on a machine without xmllint, install Debian's libxml2-utils.
beforeAll(() => {
  if (spawnSync("xmllint", ["--version"]).status === 0) return;
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("apt-get", ["update"], { env, stdio: "ignore" });
  execFileSync("apt-get", ["install", "-y", "libxml2-utils"], { env, stdio: "ignore" });
}, 600_000);

function validate(file: string): { ok: boolean; output: string } {
  const result = spawnSync("xmllint", ["--noout", "--schema", XSD, file], { encoding: "utf8" });
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` };
}

/** Writes the JUnit report of a run of one passing case to `file`. */
function reportOneCase(file: string): void {
  const reporter = junitReporter(file);
  reporter.onRunStart?.({ runId: "r", evals: 1, files: 1, concurrency: 1 });
  reporter.onCaseFinished?.(record({ caseId: "c1" }));
  reporter.onRunFinished?.(runSummary());
}

const count = (xml: string, pattern: RegExp) => (xml.match(pattern) ?? []).length;

describe("junitReporter", () => {
  it("writes a testsuite per eval and a testcase per case that the JUnit schema accepts", async () => {
    const file = join(tempDir(), "junit.xml");
    const second = defineSuite<string, string>({
      id: "second",
      cases: [{ id: "only", input: "x" }],
      target: (x) => x,
      scorers: [ran],
    });
    await run(
      [{ eval: mixedSuite(), file: "evals/qa.eval.ts" }, { eval: second }],
      [junitReporter(file)],
    );
    const xml = readFileSync(file, "utf8");
    expect(validate(file)).toEqual({ ok: true, output: expect.stringContaining("validates") });
    expect(count(xml, /<testsuite /g)).toBe(2);
    expect(xml).toMatch(
      /<testsuites name="niceeval" tests="5" failures="1" errors="1" skipped="0" time="\d+\.\d{3}"/,
    );
    expect(xml).toMatch(
      /<testsuite name="qa" tests="4" failures="1" errors="1" skipped="0" time="\d+\.\d{3}" timestamp="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d" hostname="[^"]*" id="0" package="niceeval" file="evals\/qa\.eval\.ts">/,
    );
    expect(xml).toMatch(/<testcase name="ok" classname="qa" time="\d+\.\d{3}"\/>/);
    // The failing judgment's label and reason, escaped.
    expect(xml).toContain('<testcase name="wrong &lt;&amp;&gt;&quot;" classname="qa"');
    expect(xml).toMatch(
      /<failure message="exact &lt;answer&gt; \(gate · 1 pt\): mismatched — [^"]*" type="failed">exact &lt;answer&gt; \(gate · 1 pt\): mismatched — [^<]*\nscore: 0\/1 complete<\/failure>/,
    );
    // An errored attempt is an <error>, with where it happened; ANSI colours stripped.
    expect(xml).toMatch(
      /<error message="target of case &quot;boom&quot; in eval &quot;qa&quot;: target exploded: &lt;bad&gt; &amp; red" type="errored">/,
    );
    const controls = [...xml].filter((c) => c < " " && c !== "\n" && c !== "\t" && c !== "\r");
    expect(controls).toEqual([]);
    expect(xml).toContain('<property name="niceeval.pass-rate" value="50% of 4, 95% CI 15–85%"/>');
  });

  it("reports each file that failed to load as an errored testcase", async () => {
    const file = join(tempDir(), "junit.xml");
    await run([{ eval: mixedSuite(), file: "evals/qa.eval.ts" }], [junitReporter(file)], {
      loadErrors: [{ file: "evals/broken.eval.ts", message: "SyntaxError: <unexpected> token" }],
    });
    const xml = readFileSync(file, "utf8");
    expect(validate(file)).toEqual({ ok: true, output: expect.stringContaining("validates") });
    expect(xml).toMatch(/<testsuites name="niceeval" tests="5" failures="1" errors="2"/);
    expect(xml).toMatch(
      /<testsuite name="\(files that failed to load\)" tests="1" failures="0" errors="1" skipped="0" time="0" timestamp="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"/,
    );
    expect(xml).toContain(
      '<testcase name="evals/broken.eval.ts" classname="(files that failed to load)" time="0">',
    );
    expect(xml).toContain(
      '<error message="SyntaxError: &lt;unexpected&gt; token" type="load">SyntaxError: &lt;unexpected&gt; token</error>',
    );
  });

  it("shows a load error's controls alike in its message attribute and its body", async () => {
    const file = join(tempDir(), "junit.xml");
    await run([{ eval: mixedSuite(), file: "evals/qa.eval.ts" }], [junitReporter(file)], {
      loadErrors: [{ file: "evals/bell.eval.ts", message: "threw ctl\u0007bell" }],
    });
    const xml = readFileSync(file, "utf8");
    expect(validate(file)).toEqual({ ok: true, output: expect.stringContaining("validates") });
    expect(xml).toContain('<error message="threw ctl␇bell" type="load">threw ctl␇bell</error>');
  });

  it("reports the evals left out of files that loaded in a testsuite of their own", async () => {
    const file = join(tempDir(), "junit.xml");
    await run([{ eval: mixedSuite(), file: "evals/qa.eval.ts" }], [junitReporter(file)], {
      loadErrors: brokenAndLeftOut,
    });
    const xml = readFileSync(file, "utf8");
    expect(validate(file)).toEqual({ ok: true, output: expect.stringContaining("validates") });
    expect(xml).toMatch(/<testsuites name="niceeval" tests="6" failures="1" errors="3"/);
    expect(xml).toContain('<testsuite name="(files that failed to load)" tests="1"');
    expect(xml).toContain('<testsuite name="(evals left out)" tests="1" failures="0" errors="1"');
    expect(xml).toContain(
      '<testcase name="evals/qa.eval.ts" classname="(evals left out)" time="0">',
    );
  });

  it("reports each gate met as a passing testcase, named as it would be when not met", async () => {
    const file = join(tempDir(), "junit.xml");
    const reporter = junitReporter(file);
    reporter.onRunStart?.({ runId: "r", evals: 1, files: 1, concurrency: 1 });
    reporter.onEvalStart?.({ evalId: "qa", style: "suite" });
    reporter.onCaseFinished?.(record({ caseId: "ok" }));
    reporter.onRunFinished?.(
      runSummary({
        gates: ["regression: pass rate fell"],
        gateNames: ["--fail-on-regression: pass rate"],
        gatesMet: ['--min-pass-rate: eval "qa"', "--fail-on-regression: mean score"],
      }),
    );
    const xml = readFileSync(file, "utf8");
    expect(validate(file)).toEqual({ ok: true, output: expect.stringContaining("validates") });
    expect(xml).toMatch(/<testsuites name="niceeval" tests="4" failures="1" errors="0"/);
    expect(xml).toMatch(
      /<testsuite name="\(run gates\)" tests="3" failures="1" errors="0" skipped="0" time="0" timestamp="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"/,
    );
    expect(xml).toContain(
      '<testcase name="--min-pass-rate: eval &quot;qa&quot;" classname="(run gates)" time="0"/>',
    );
    expect(xml).toContain(
      '<testcase name="--fail-on-regression: mean score" classname="(run gates)" time="0"/>',
    );
    expect(xml).toContain(
      '<testcase name="--fail-on-regression: pass rate" classname="(run gates)" time="0">',
    );
  });

  it("reports each gate not met as a failed testcase, so the report fails with the run", async () => {
    const file = join(tempDir(), "junit.xml");
    const reporter = junitReporter(file);
    reporter.onRunStart?.({ runId: "r", evals: 1, files: 1, concurrency: 1 });
    reporter.onEvalStart?.({ evalId: "qa", style: "suite" });
    reporter.onCaseFinished?.(record({ caseId: "ok" }));
    const gate = 'eval "qa": pass rate 50.0% (1/2) is below --min-pass-rate 0.9 <&>';
    reporter.onRunFinished?.(
      runSummary({
        ok: false,
        gates: [gate, "--strict: 1 judgment was unavailable"],
        gateNames: ['--min-pass-rate: eval "qa" <&>', "--strict"],
        loadErrors: [{ file: "evals/broken.eval.ts", message: "SyntaxError" }],
      }),
    );
    const xml = readFileSync(file, "utf8");
    expect(validate(file)).toEqual({ ok: true, output: expect.stringContaining("validates") });
    expect(xml).toMatch(/<testsuites name="niceeval" tests="4" failures="2" errors="1"/);
    expect(xml).toContain(
      '<testsuite name="(run gates)" tests="2" failures="2" errors="0" skipped="0" time="0"',
    );
    expect(xml).toMatch(/name="\(run gates\)"[^>]* id="2" package="niceeval">/);
    const escaped =
      "eval &quot;qa&quot;: pass rate 50.0% (1/2) is below --min-pass-rate 0.9 &lt;&amp;&gt;";
    // Named by what the gate checks, the same from run to run; the figures are in the failure.
    expect(xml).toContain(
      '<testcase name="--min-pass-rate: eval &quot;qa&quot; &lt;&amp;&gt;" classname="(run gates)" time="0">',
    );
    expect(xml).toContain(`<failure message="${escaped}" type="gate">`);
    expect(xml).toContain('<testcase name="--strict" classname="(run gates)" time="0">');
    expect(xml).not.toContain(`<testcase name="${escaped}"`);
    // A run that asked for no gate has no such testsuite.
    const passing = join(tempDir(), "junit.xml");
    const again = junitReporter(passing);
    again.onRunStart?.({ runId: "r", evals: 1, files: 1, concurrency: 1 });
    again.onCaseFinished?.(record({ caseId: "ok" }));
    again.onRunFinished?.(runSummary({ gates: [] }));
    expect(readFileSync(passing, "utf8")).not.toContain("(run gates)");
    // A summary without names (from code): each gate is named by its text.
    const unnamed = join(tempDir(), "junit.xml");
    const plain = junitReporter(unnamed);
    plain.onRunStart?.({ runId: "r", evals: 1, files: 1, concurrency: 1 });
    plain.onRunFinished?.(runSummary({ ok: false, gates: ["--strict: 2 judgments"] }));
    expect(readFileSync(unnamed, "utf8")).toContain('<testcase name="--strict: 2 judgments"');
  });

  it("shows characters XML cannot hold as U+FFFD, so no case loses its name; drops controls", () => {
    const file = join(tempDir(), "junit.xml");
    const reporter = junitReporter(file);
    reporter.onRunStart?.({ runId: "r", evals: 1, files: 1, concurrency: 1 });
    reporter.onCaseFinished?.(record({ caseId: "\ufffe" }));
    reporter.onCaseFinished?.(record({ caseId: "a\ud800b\u0007c\u0085" }));
    reporter.onRunFinished?.(runSummary());
    const xml = readFileSync(file, "utf8");
    expect(validate(file).ok).toBe(true);
    expect(xml).toContain('<testcase name="\ufffd" classname=');
    expect(xml).toContain('<testcase name="a\ufffdbc" classname=');
  });

  it("shows an error's control characters in the element's body as its message attribute does", () => {
    const file = join(tempDir(), "junit.xml");
    const reporter = junitReporter(file);
    reporter.onRunStart?.({ runId: "r", evals: 1, files: 1, concurrency: 1 });
    reporter.onCaseFinished?.(
      record({
        caseId: "ctl",
        verdict: "errored",
        error: {
          where: "target",
          message: "ctl\u0007bell\u0000nul\r\nnext \u001b[31mred\u001b[0m",
        },
      }),
    );
    reporter.onRunFinished?.(runSummary());
    const xml = readFileSync(file, "utf8");
    expect(validate(file).ok).toBe(true);
    expect(xml).toContain('message="target: ctl␇bell␀nul ⏎ next red"');
    expect(xml).toContain(">target: ctl␇bell␀nul\nnext red\nscore:");
  });

  it("names each trial when cases run several times", async () => {
    const file = join(tempDir(), "junit.xml");
    const suite = defineSuite<number, number>({
      id: "trials",
      cases: [{ id: "a", input: 1 }],
      target: (x) => x,
      scorers: [ran],
    });
    await run([{ eval: suite }], [junitReporter(file)], { trials: 3 });
    const xml = readFileSync(file, "utf8");
    expect(validate(file).ok).toBe(true);
    expect(xml.match(/<testcase name="[^"]*"/g)).toEqual([
      '<testcase name="a [trial 1]"',
      '<testcase name="a [trial 2]"',
      '<testcase name="a [trial 3]"',
    ]);
  });

  it("writes skipped attempts with their reason, errors from judgments, and omits evals that ran nothing", () => {
    const file = join(tempDir(), "junit.xml");
    const reporter = junitReporter(file);
    reporter.onRunStart?.({ runId: "r", evals: 2, files: 1, concurrency: 1 });
    reporter.onEvalStart?.({ evalId: "empty", style: "score" });
    reporter.onEvalStart?.({ evalId: "hand", style: "score", file: "/repo/evals/hand.eval.ts" });
    reporter.onCaseFinished?.(
      record({ caseId: "s", verdict: "skipped", skipReason: "closed by\nan operator" }),
    );
    reporter.onCaseFinished?.(
      record({
        caseId: "e",
        verdict: "errored",
        score: { state: "partial", earned: 1, max: 3, reasons: [] },
        judgments: [
          judgment({ label: "delivered", state: "unavailable", reason: "no trace" }),
          judgment({
            label: "polite",
            gate: false,
            points: 2,
            state: "errored",
            reason: "judge 500",
          }),
          judgment({ label: "fine", gate: false, points: 1, earned: 1 }),
        ],
      }),
    );
    reporter.onRunFinished?.(
      runSummary({ totals: { evals: 2, cases: 2, passed: 0, failed: 0, errored: 1, skipped: 1 } }),
    );
    const xml = readFileSync(file, "utf8");
    expect(validate(file).ok).toBe(true);
    expect(xml).not.toContain('name="empty"');
    expect(xml).toContain('<skipped message="closed by ⏎ an operator"/>');
    expect(xml).toContain(
      '<error message="delivered (gate): unavailable — no trace; polite (2 pts): errored — judge 500" type="errored">',
    );
    expect(xml).toContain("score: ≥ 1/3 partial</error>");
    // A second finish (the engine's, then the CLI's) changes nothing.
    reporter.onRunFinished?.({} as never);
    expect(readFileSync(file, "utf8")).toBe(xml);
  });

  it("writes a regular file through a symbolic link, replacing the file and keeping the link", () => {
    const dir = tempDir();
    const target = join(dir, "reports", "junit.xml");
    mkdirSync(join(dir, "reports"));
    writeFileSync(target, "the last run's report");
    const link = join(dir, "junit.xml");
    symlinkSync(target, link);
    reportOneCase(link);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(target);
    expect(readFileSync(target, "utf8")).toContain('<testcase name="c1"');
    expect(validate(target).ok).toBe(true);
    // Written beside the file it replaced, and nothing left there but the two.
    expect(readdirSync(dir).sort()).toEqual(["junit.xml", "reports"]);
    expect(readdirSync(join(dir, "reports"))).toEqual(["junit.xml"]);
  });

  it("writes through a link to nothing yet, making the file it names", () => {
    const dir = tempDir();
    const link = join(dir, "junit.xml");
    symlinkSync(join(dir, "made.xml"), link);
    reportOneCase(link);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, "made.xml"), "utf8")).toContain('<testcase name="c1"');
    expect(readdirSync(dir).sort()).toEqual(["junit.xml", "made.xml"]);
  });

  it("writes a FIFO in place, for its reader, and leaves it a FIFO", async () => {
    const dir = tempDir();
    const fifo = join(dir, "junit.xml");
    execFileSync("mkfifo", [fifo]);
    const reader = spawn("cat", [fifo], { stdio: ["ignore", "pipe", "inherit"] });
    let read = "";
    reader.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      read += chunk;
    });
    const closed = new Promise<boolean>((resolve) => reader.on("close", () => resolve(true)));
    try {
      reportOneCase(fifo);
      // Replaced by a regular file, the FIFO would have no writer, and its reader wait for good.
      expect(await Promise.race([closed, sleep(5000).then(() => false)])).toBe(true);
    } finally {
      reader.kill();
    }
    expect(read).toMatch(/^<\?xml [\s\S]*<testcase name="c1"[\s\S]*<\/testsuites>\n$/);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(readdirSync(dir)).toEqual(["junit.xml"]);
  });

  it("writes a character device through a link in place: a link to /dev/null stays one", () => {
    const dir = tempDir();
    const link = join(dir, "junit.xml");
    symlinkSync("/dev/null", link);
    reportOneCase(link);
    expect(readlinkSync(link)).toBe("/dev/null");
    expect(lstatSync("/dev/null").isCharacterDevice()).toBe(true);
    expect(readdirSync(dir)).toEqual(["junit.xml"]);
  });

  it("leaves no partial file beside a report it cannot write", () => {
    const dir = tempDir();
    // A folder where the report should go: no file can be written there.
    mkdirSync(join(dir, "junit.xml"));
    expect(() => reportOneCase(join(dir, "junit.xml"))).toThrow(/EISDIR/);
    expect(readdirSync(dir)).toEqual(["junit.xml"]);
  });

  it("is checked by a schema that rejects what CI readers reject", () => {
    const dir = tempDir();
    const bad = join(dir, "bad.xml");
    writeFileSync(
      bad,
      '<testsuites><testsuite name="s" tests="one" failures="0" errors="0"><testcase classname="s" time="0"/></testsuite></testsuites>',
    );
    const result = validate(bad);
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/tests|name/);
    expect(existsSync(XSD)).toBe(true);
  });
});
