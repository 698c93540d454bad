import {
  closeSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { AttemptRecord } from "../eval/record.js";
import type { EvalSummary } from "../runner/events.js";
import { loadTroubles } from "../runner/load-troubles.js";
import type { RunSummary } from "../runner/run.js";
import type { LoadError } from "../runner/summary.js";
import { attemptName, decidingJudgments, describeJudgment, problemSummary } from "./failures.js";
import { evalFigures, formatMeanScore, formatPassRate } from "./figures.js";
import { formatScore, oneLine, shownLines } from "./format.js";
import { LineWriter } from "./output.js";
import type { EvalInfo, Reporter } from "./reporter.js";
import { writeFully } from "./write-fd.js";
import { xmlAttrs, xmlText } from "./xml.js";

/** Longest failure message attribute and judgment reason written, in characters. */
const MESSAGE_CHARS = 500;
const REASON_CHARS = 4000;

interface Suite {
  info: EvalInfo;
  path: string;
  out: LineWriter | undefined;
  fd: number | undefined;
  timestamp: string;
  counts: { tests: number; failures: number; errors: number; skipped: number };
  summary?: EvalSummary;
}

/**
 * JUnit XML as CI systems read it (Jenkins, GitLab, GitHub test-report actions): one
 * `<testsuite>` per eval, one `<testcase>` per case and trial (`classname` = eval id, `time`
 * in seconds), `<failure>` with the failing judgments' labels and reasons, `<error>` for an
 * errored attempt, `<skipped>` with its reason. Files that failed to load have a testsuite, so the
 * report fails when the run does, and so do the gates checked: a testcase each, failed when the
 * gate was not met, passing when it was. One shard of a sharded run is named so, in the
 * `<testsuites>` name and a `niceeval.shard` property of each testsuite.
 *
 * A testsuite states its counts before its testcases, so each eval's testcases stream to a
 * temporary file and the report is assembled from those files when the run finishes (memory
 * stays bounded; a regular file appears whole, by rename, or not at all: `writeReport`).
 */
export function junitReporter(file: string): Reporter {
  let dir: string | undefined;
  let runStartedAt = new Date();
  const suites: Suite[] = [];
  let current: Suite | undefined;
  let finished = false;

  const openSuite = (info: EvalInfo): Suite => {
    dir ??= mkdtempSync(join(tmpdir(), "niceeval-junit-"));
    const path = join(dir, `${suites.length}.xml`);
    const fd = openSync(path, "w");
    const suite: Suite = {
      info,
      path,
      fd,
      out: new LineWriter(fd),
      timestamp: isoSeconds(new Date()),
      counts: { tests: 0, failures: 0, errors: 0, skipped: 0 },
    };
    suites.push(suite);
    return suite;
  };
  const closeSuite = (suite: Suite) => {
    suite.out?.flush();
    if (suite.fd !== undefined) closeSync(suite.fd);
    suite.out = undefined;
    suite.fd = undefined;
  };

  return {
    onRunStart() {
      runStartedAt = new Date();
      finished = false;
    },
    onEvalStart(info) {
      if (current) closeSuite(current);
      current = openSuite(info);
    },
    onCaseFinished(record) {
      if (!current || current.info.evalId !== record.evalId) {
        if (current) closeSuite(current);
        current = openSuite({ evalId: record.evalId, style: "suite" });
      }
      const counts = current.counts;
      counts.tests++;
      if (record.verdict === "failed") counts.failures++;
      else if (record.verdict === "errored") counts.errors++;
      else if (record.verdict === "skipped") counts.skipped++;
      current.out?.write(testcase(record, current.info.trials));
    },
    onEvalFinished(summary) {
      if (!current || current.info.evalId !== summary.evalId) return;
      current.summary = summary;
      closeSuite(current);
      current = undefined;
    },
    onRunFinished(summary) {
      if (finished) return;
      finished = true;
      if (current) closeSuite(current);
      current = undefined;
      try {
        writeReport(file, suites, summary, runStartedAt);
      } finally {
        if (dir) rmSync(dir, { recursive: true, force: true });
        dir = undefined;
        suites.length = 0;
      }
    },
  };
}

/**
 * Writes the report to `file`. A regular file, or none yet, is replaced whole: the report is
 * written beside it and renamed over it, so a CI step never reads half a report, and a write that
 * fails (a full disk) leaves the report that was there, and no partial file. Through a symbolic
 * link it is the file the link names that is replaced, the link kept. Anything else (a FIFO, a
 * character device such as /dev/null, /dev/stdout) is written in place, as the other reports
 * write: a rename would put a regular file where it was.
 */
function writeReport(file: string, suites: Suite[], run: RunSummary, startedAt: Date): void {
  const whole = replacedWhole(file);
  if (whole === undefined) {
    const fd = openSync(file, "w");
    try {
      writeXml(fd, suites, run, startedAt);
    } finally {
      closeSync(fd);
    }
    return;
  }
  const partial = `${whole}.${process.pid}.tmp`;
  const fd = openSync(partial, "w");
  try {
    try {
      writeXml(fd, suites, run, startedAt);
    } finally {
      closeSync(fd);
    }
    renameSync(partial, whole);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}

/**
 * The path to write `file`'s report beside and rename over: the regular file it names, links
 * followed, or `file` when nothing is there yet; undefined when it is to be written in place (what
 * it names is no regular file, or is reached through a link that leads nowhere yet, or through
 * /dev or /proc, whose paths name descriptors: /dev/stdout redirected to a file is that file).
 */
function replacedWhole(file: string): string | undefined {
  if (/^\/(?:dev|proc)\//.test(resolve(file))) return undefined;
  let info: Stats;
  try {
    info = statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") return undefined;
    // A link to nothing yet: opened, it makes the file it names.
    return lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink() ? undefined : file;
  }
  return info.isFile() ? realpathSync(file) : undefined;
}

/** The report's XML, written to `fd`: the testsuites copied from their files, then the run's own. */
function writeXml(fd: number, suites: Suite[], run: RunSummary, startedAt: Date): void {
  const out = new LineWriter(fd);
  const ran = suites.filter((suite) => suite.counts.tests > 0);
  const total = { tests: 0, failures: 0, errors: 0, skipped: 0 };
  for (const suite of ran) {
    total.tests += suite.counts.tests;
    total.failures += suite.counts.failures;
    total.errors += suite.counts.errors;
    total.skipped += suite.counts.skipped;
  }
  // A file that failed to load is an error in CI's eyes too, not a run with fewer tests; a
  // gate not met (the run's exit code 1) a failure, so the test view agrees with the job; a
  // gate met a passing test, so each gate asked for is in every run's test history.
  const gates = run.gates ?? [];
  const met = run.gatesMet ?? [];
  total.tests += run.loadErrors.length + gates.length + met.length;
  total.errors += run.loadErrors.length;
  total.failures += gates.length;
  out.line(`<?xml version="1.0" encoding="UTF-8"?>`);
  out.line(
    `<testsuites${xmlAttrs({ name: suitesName(run), ...total, time: seconds(run.elapsedMs), timestamp: isoSeconds(startedAt) })}>`,
  );
  const host = hostname();
  // The suites of the run itself (load errors, gates) are dated by its start, as Ant's schema
  // wants every testsuite dated.
  const timestamp = isoSeconds(startedAt);
  for (const [id, suite] of ran.entries()) {
    out.line(
      `  <testsuite${xmlAttrs({
        name: suite.info.evalId,
        tests: suite.counts.tests,
        failures: suite.counts.failures,
        errors: suite.counts.errors,
        skipped: suite.counts.skipped,
        time: seconds(suite.summary?.elapsedMs ?? 0),
        timestamp: suite.timestamp,
        hostname: host,
        id,
        package: "niceeval",
        file: suite.info.file,
      })}>`,
    );
    out.line("    <properties>");
    for (const [name, value] of properties(suite, run))
      out.line(`      <property${xmlAttrs({ name, value })}/>`);
    out.line("    </properties>");
    out.flush();
    copyInto(fd, suite.path);
    out.line("  </testsuite>");
  }
  let id = ran.length;
  const load = loadTroubles(run.loadErrors);
  if (load.failed.length > 0)
    writeLoadErrors(out, "(files that failed to load)", load.failed, {
      id: id++,
      host,
      timestamp,
    });
  if (load.leftOut.length > 0)
    writeLoadErrors(out, "(evals left out)", load.leftOut, { id: id++, host, timestamp });
  if (gates.length + met.length > 0) writeGates(out, run, { id, host, timestamp });
  out.line("</testsuites>");
  out.flush();
}

/** The report's name: "niceeval", or "niceeval shard 2/3" for one shard of a sharded run. */
function suitesName(run: RunSummary): string {
  return run.shard ? `niceeval shard ${run.shard.index}/${run.shard.count}` : "niceeval";
}

function properties(suite: Suite, run: RunSummary): [string, string][] {
  const list: [string, string][] = [["niceeval.style", suite.info.style]];
  if (run.shard) list.push(["niceeval.shard", `${run.shard.index}/${run.shard.count}`]);
  if (suite.info.trials !== undefined) list.push(["niceeval.trials", String(suite.info.trials)]);
  const summary = suite.summary;
  if (summary) {
    const figures = evalFigures(summary);
    list.push(["niceeval.pass-rate", formatPassRate(figures.passRate)]);
    list.push(["niceeval.mean-score", formatMeanScore(figures.meanScore)]);
  }
  return list;
}

/** What a testsuite of the run itself is tagged with: its id, the host and its date. */
interface SuiteTags {
  id: number;
  host: string;
  timestamp: string;
}

/**
 * The files that failed to load, or the evals left out of files that loaded, as one testsuite
 * `name` of errored testcases (one per error, named by its file).
 */
function writeLoadErrors(
  out: LineWriter,
  name: string,
  errors: readonly LoadError[],
  { id, host, timestamp }: SuiteTags,
): void {
  out.line(
    `  <testsuite${xmlAttrs({ name, tests: errors.length, failures: 0, errors: errors.length, skipped: 0, time: 0, timestamp, hostname: host, id, package: "niceeval" })}>`,
  );
  for (const error of errors) {
    // Its controls shown as the body shows them, on one line.
    const attributes = xmlAttrs({ message: oneLine(error.message, MESSAGE_CHARS), type: "load" });
    out.line(`    <testcase${xmlAttrs({ name: error.file, classname: name, time: 0 })}>`);
    out.line(`      <error${attributes}>${xmlText(shownLines(error.message))}</error>`);
    out.line("    </testcase>");
  }
  out.line("  </testsuite>");
}

/**
 * The run's gates (`--min-pass-rate`, `--min-score`, `--strict`, `--fail-on-regression`) as one
 * testsuite, a testcase per gate named by what it checks (`RunSummary.gateNames` and `gatesMet`:
 * no figures, so CI's test history follows it from run to run): failed, with the figures in the
 * failure message, when not met, and passing when met.
 */
function writeGates(out: LineWriter, run: RunSummary, { id, host, timestamp }: SuiteTags): void {
  const gates = run.gates ?? [];
  const met = run.gatesMet ?? [];
  const name = "(run gates)";
  out.line(
    `  <testsuite${xmlAttrs({ name, tests: gates.length + met.length, failures: gates.length, errors: 0, skipped: 0, time: 0, timestamp, hostname: host, id, package: "niceeval" })}>`,
  );
  for (const [i, gate] of gates.entries()) {
    const attributes = xmlAttrs({ message: gate.slice(0, MESSAGE_CHARS), type: "gate" });
    const testName = run.gateNames?.[i] ?? gate;
    out.line(
      `    <testcase${xmlAttrs({ name: testName.slice(0, MESSAGE_CHARS), classname: name, time: 0 })}>`,
    );
    out.line(`      <failure${attributes}>${xmlText(gate)}</failure>`);
    out.line("    </testcase>");
  }
  for (const gate of met)
    out.line(
      `    <testcase${xmlAttrs({ name: gate.slice(0, MESSAGE_CHARS), classname: name, time: 0 })}/>`,
    );
  out.line("  </testsuite>");
}

function testcase(record: AttemptRecord, trials: number | undefined): string {
  const open = `    <testcase${xmlAttrs({
    name: attemptName(record, trials),
    classname: record.evalId,
    time: seconds(record.elapsedMs),
  })}`;
  switch (record.verdict) {
    case "passed":
      return `${open}/>\n`;
    case "skipped":
      return `${open}>\n      <skipped${xmlAttrs({ message: problemSummary(record, MESSAGE_CHARS) })}/>\n    </testcase>\n`;
    case "failed":
    case "errored": {
      const element = record.verdict === "failed" ? "failure" : "error";
      const attributes = xmlAttrs({
        message: problemSummary(record, MESSAGE_CHARS),
        type: record.verdict,
      });
      // Its controls shown as the message attribute shows them (␇), not dropped.
      return `${open}>\n      <${element}${attributes}>${xmlText(shownLines(details(record)))}</${element}>\n    </testcase>\n`;
    }
  }
}

/** The body of a failure or error: what crashed, each deciding judgment, the score. */
function details(record: AttemptRecord): string {
  const lines: string[] = [];
  if (record.error) lines.push(`${record.error.where}: ${record.error.message}`);
  for (const judgment of decidingJudgments(record))
    lines.push(describeJudgment(judgment, REASON_CHARS));
  lines.push(`score: ${formatScore(record.score)}`);
  return lines.join("\n");
}

function copyInto(fd: number, path: string): void {
  const source = openSync(path, "r");
  try {
    const chunk = Buffer.allocUnsafe(64 * 1024);
    for (;;) {
      const read = readSync(source, chunk, 0, chunk.length, null);
      if (read === 0) break;
      writeFully(fd, chunk, 0, read);
    }
  } finally {
    closeSync(source);
  }
}

const seconds = (ms: number) => (Math.max(0, ms) / 1000).toFixed(3);

// Ant's timestamp: ISO 8601 to the second without a zone (written in UTC).
const isoSeconds = (date: Date) => date.toISOString().slice(0, 19);
