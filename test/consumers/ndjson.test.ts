// The JSON reports of a real CLI run with hostile cases, read by real consumers: JSON.parse on
// each NDJSON line and on the --json file, jq, and Python's str.splitlines() + json.loads, a
// common way to read JSON lines, which also ends a line at U+2028, U+2029 and U+0085.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureCommand } from "../support/debian.js";
import { type CliRun, type FixtureProject, makeProject, runCli } from "../support/project.js";
import {
  HOSTILE_EVAL_ID,
  HOSTILE_IDS,
  HOSTILE_TEXT,
  THROWN_ID,
  THROWN_MESSAGE,
} from "./hostile.js";

const PYTHON = "/usr/bin/python3";

/** The hostile text as the JSON reports write it: its lone surrogate as U+FFFD, all else as it is. */
const WRITTEN = HOSTILE_TEXT.replace("\ud800", "\ufffd");

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The hostile eval as a project's file: its outputs and metadata hold the hostile text. */
const evalFile = `import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const text = ${JSON.stringify(HOSTILE_TEXT)};
const exact = createScorer<string, string>({
  name: "exact",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0, metadata: { text } }),
});
export const hostile = defineSuite<string, string>({
  id: ${JSON.stringify(HOSTILE_EVAL_ID)},
  cases: ${JSON.stringify([...Object.values(HOSTILE_IDS), THROWN_ID])}.map((id) => ({ id, input: id + text, expected: text })),
  target: (input) => {
    if (input.startsWith(${JSON.stringify(THROWN_ID)})) throw new Error(${JSON.stringify(THROWN_MESSAGE)});
    return "out: " + text;
  },
  scorers: [exact],
});
// Errors long past the 2,000 characters of a record's reason, cut among emoji: one of the two
// offsets puts the cut between an emoji's halves.
export const cut = defineSuite<number, string>({
  id: "cut",
  cases: [0, 1].map((n) => ({ id: \`offset-\${n}\`, input: n })),
  target: (n) => {
    throw new Error("x".repeat(n) + "👩".repeat(1500));
  },
  scorers: [exact],
});
`;

interface Written {
  type: string;
  record?: { evalId: string; caseId: string; input: string; output?: string; reason?: string };
}

describe("the JSON reports of a hostile run (real CLI)", () => {
  let project: FixtureProject;
  let result: CliRun;
  beforeAll(async () => {
    ensureCommand("jq", "jq");
    ensureCommand(PYTHON, "python3");
    project = await makeProject({ "evals/hostile.eval.ts": evalFile });
    result = await runCli(
      ["run", "evals", "--no-store", "--reporter", "ndjson=-", "--json", "run.json"],
      project.dir,
    );
  }, 600_000);
  afterAll(() => project.cleanup());

  it("writes NDJSON whose every line JSON.parse reads, each case's text as it was (a lone surrogate as U+FFFD)", () => {
    expect(result.code).toBe(1);
    const lines = result.stdout.split("\n");
    expect(lines.pop()).toBe("");
    // No raw line end a reader of lines might split at: the text holds them, escaped.
    for (const line of lines) expect(line).not.toMatch(/[\u0085\u2028\u2029]/);
    expect(result.stdout).toContain("\\u2028");
    const events = lines.map((line) => JSON.parse(line) as Written);
    expect(events[0]!.type).toBe("run.started");
    expect(events.at(-1)!.type).toBe("run.finished");
    const all = events.flatMap((e) => (e.record ? [e.record] : []));
    const records = all.filter((r) => r.evalId === HOSTILE_EVAL_ID);
    // A reason cut to its length is cut between characters, never inside one.
    const cut = all.filter((r) => r.evalId === "cut");
    expect(cut).toHaveLength(2);
    for (const r of cut) {
      expect(r.reason).toMatch(/^target of case "offset-\d" in eval "cut": x?(👩)+…$/);
      expect(r.reason).not.toMatch(LONE_SURROGATE);
    }
    expect(records.map((r) => r.caseId)).toEqual([...Object.values(HOSTILE_IDS), THROWN_ID]);
    for (const r of records) {
      expect(r.evalId).toBe(HOSTILE_EVAL_ID);
      expect(r.input).toBe(r.caseId + WRITTEN);
    }
    expect(records[0]!.output).toBe(`out: ${WRITTEN}`);
    expect(records.at(-1)!.reason).toContain("first line | with a pipe ⏎ ::error");
  });

  it("writes NDJSON that Python's splitlines() reads a line per event", () => {
    const read = execFileSync(
      PYTHON,
      [
        "-c",
        "import json,sys; lines=sys.stdin.buffer.read().decode('utf-8','surrogatepass').splitlines(); print(json.dumps([json.loads(l)['type'] for l in lines]))",
      ],
      { input: result.stdout, encoding: "utf8" },
    );
    expect(JSON.parse(read)).toEqual(
      result.stdout
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l).type),
    );
  });

  it("writes NDJSON that jq reads, event by event (jq 1.6 stops at a lone surrogate's escape)", () => {
    const ids = execFileSync("jq", ["-r", 'select(.type == "record") | .record.caseId'], {
      input: result.stdout,
      encoding: "utf8",
    });
    expect(ids.split("\n").slice(0, 5)).toEqual([...Object.values(HOSTILE_IDS), THROWN_ID]);
  });

  it("writes a --json file that JSON.parse reads, each case's text as it was (a lone surrogate as U+FFFD)", () => {
    const report = JSON.parse(readFileSync(join(project.dir, "run.json"), "utf8")) as {
      records: NonNullable<Written["record"]>[];
    };
    expect(report.records.filter((r) => r.evalId === HOSTILE_EVAL_ID).map((r) => r.caseId)).toEqual(
      [...Object.values(HOSTILE_IDS), THROWN_ID],
    );
    expect(report.records[0]!.output).toBe(`out: ${WRITTEN}`);
  });
});
