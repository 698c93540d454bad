import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";

// Bad input through the real CLI (issue 10, points 3, 5, 6, 7): each run finishes, reports
// every attempt, errors the faulty one with what happened and where, and exits as documented.

const patterns = `
import { bindScorer, defineAdapter, defineSuite, evalScorersProvider, regexMatchTool } from "niceeval";
import { pattern } from "niceeval/expect";

const regex = (id, source) => bindScorer({
  id, tool: regexMatchTool, driver: evalScorersProvider,
  mapInput: ({ output }) => ({ actual: output, pattern: source }),
});

export const patterns = defineSuite({
  id: "patterns",
  cases: [
    { id: "spaces", input: " ".repeat(100000) + "x" },
    { id: "as", input: "a".repeat(100000) + "!" },
  ],
  target: (input) => input,
  scorers: [
    regex("polynomial", "\\\\s*\\\\s*\\\\s*$"),
    regex("catastrophic", "^(a+)+$"),
    regex("alternation", "^(a|aa)*c$"),
  ],
  gates: ["polynomial"],
});

export const backreference = defineSuite({
  id: "backreference",
  cases: [{ id: "aa", input: "aa" }],
  target: (input) => input,
  scorers: [regex("backref", "(a)\\\\1")],
});

const adapter = defineAdapter({ name: "text", create: () => ({ text: "a".repeat(100000) + "!" }) });
export const matcher = adapter.defineScoreEval({
  description: "pattern matcher",
  test(t) {
    t.check(t.text, pattern(/^(a+)+$/)).score(1).label("catastrophic");
    t.check(t.text, pattern(/a(?=b)/)).score(1).label("lookahead");
  },
});
`;

const metadata = `
import { createScorer, defineSuite } from "niceeval";

const odd = createScorer({
  name: "odd",
  score: () => {
    const meta = {
      big: 12n, fn: function helper() {}, sym: Symbol("s"), bytes: new Uint8Array([1, 2]),
      error: new TypeError("bad thing"), map: new Map([["k", 1]]), set: new Set([2]),
    };
    meta.self = meta;
    return { score: 1, metadata: meta };
  },
});

export const meta = defineSuite({
  id: "meta",
  cases: [{ id: "one", input: 1 }, { id: "two", input: 2 }],
  target: (input) => input,
  scorers: [odd],
});
`;

const authoring = `
import { createScorer, defineSuite } from "niceeval";

const ok = createScorer({ name: "ok", score: () => ({ score: 1 }) });
const shape = createScorer({ name: "shape", score: () => "yes" });

export const ids = defineSuite({
  id: "ids",
  cases: [
    { id: "a", input: 1 },
    null,
    { id: 7, input: 1 },
    { id: "tab\\there", input: 1 },
    { id: "", input: 1 },
    { input: 1 },
    { id: "case-1", input: 1 },
    { id: "last", input: 1 },
  ],
  target: (input) => input,
  scorers: [ok],
});

export const empty = defineSuite({ id: "empty", cases: [], target: (x) => x, scorers: [ok] });
export const unscored = defineSuite({ id: "unscored", cases: [{ input: 1 }], target: (x) => x, scorers: [] });
export const wrongShape = defineSuite({ id: "wrong-shape", cases: [{ input: 1 }], target: (x) => x, scorers: [shape] });
`;

const timeouts = `
import { createScorer, defineSuite } from "niceeval";

const quick = createScorer({ name: "quick", score: () => ({ score: 1 }) });
const hangs = createScorer({ name: "hangs", score: () => new Promise(() => {}) });

export const slow = defineSuite({
  id: "slow",
  cases: [{ id: "one", input: 1 }],
  target: (input) => input,
  scorers: [quick, hangs],
});
`;

const judges = `
import { createScorer, defineSuite, JudgeUnavailableError } from "niceeval";

const judged = createScorer({
  name: "judged",
  score: () => {
    throw new JudgeUnavailableError("failed", "openai/gpt-test", "HTTP 503 after 4 attempts");
  },
});
const exact = createScorer({ name: "exact", score: () => ({ score: 1 }) });

export const judge = defineSuite({
  id: "judge",
  cases: [{ id: "one", input: 1 }, { id: "two", input: 2 }],
  target: (input) => input,
  scorers: [exact, judged],
  gates: ["exact"],
});
`;

let project: FixtureProject;

beforeAll(async () => {
  project = await makeProject({
    "patterns/patterns.eval.mjs": patterns,
    "metadata/metadata.eval.mjs": metadata,
    "authoring/authoring.eval.mjs": authoring,
    "timeouts/timeouts.eval.mjs": timeouts,
    "judges/judges.eval.mjs": judges,
  });
});
afterAll(() => project?.cleanup());

type Json = {
  records: {
    evalId: string;
    caseId: string;
    verdict: string;
    elapsedMs: number;
    error?: { message: string; where: string };
    judgments: { label: string; state: string; reason: string; detail?: unknown }[];
  }[];
  summary: {
    totals: Record<string, number>;
    unavailable?: {
      judgments: number;
      attempts: number;
      reasons: { reason: string; count: number }[];
    };
  };
};

const readJson = (name: string): Json => JSON.parse(readFileSync(join(project.dir, name), "utf8"));
const judgment = (json: Json, evalId: string, caseId: string, label: string) =>
  json.records
    .find((r) => r.evalId === evalId && r.caseId === caseId)
    ?.judgments.find((j) => j.label === label);

describe("bounded runs through the CLI", () => {
  it("answers hostile patterns in linear time and errors what RE2 cannot run", async () => {
    const run = await runCli(
      ["run", "patterns", "--json", "patterns.json", "--no-store"],
      project.dir,
    );
    expect(run.code).toBe(1); // the backreference and lookahead judgments are errored
    const json = readJson("patterns.json");
    expect(json.records).toHaveLength(4);
    expect(judgment(json, "patterns", "spaces", "polynomial")?.state).toBe("matched");
    expect(judgment(json, "patterns", "as", "catastrophic")?.state).toBe("mismatched");
    expect(judgment(json, "patterns", "as", "alternation")?.state).toBe("mismatched");
    const backref = judgment(json, "backreference", "aa", "backref");
    expect(backref?.state).toBe("errored");
    expect(backref?.reason).toMatch(/backreference \(\\1\).*linear-time engine \(RE2\).*rewrite/);
    const matcher = json.records.find(
      (r) => r.evalId !== "patterns" && r.evalId !== "backreference",
    );
    expect(matcher?.judgments.map((j) => [j.label, j.state])).toEqual([
      ["catastrophic", "mismatched"],
      ["lookahead", "errored"],
    ]);
    expect(matcher?.judgments[1]?.reason).toMatch(/lookahead/);
  });

  it("writes any metadata to the JSON and NDJSON reports with markers", async () => {
    const run = await runCli(
      ["run", "metadata", "--json", "meta.json", "--reporter", "ndjson=meta.ndjson", "--no-store"],
      project.dir,
    );
    expect(run.stderr).not.toMatch(/crashed/);
    expect(run.code).toBe(0);
    const expected = {
      big: "[unserialisable: bigint 12]",
      fn: "[unserialisable: function helper]",
      sym: "[unserialisable: Symbol(s)]",
      bytes: [1, 2],
      error: { name: "TypeError", message: "bad thing" },
      map: { k: 1 },
      set: [2],
      self: "[unserialisable: circular reference]",
    };
    const json = readJson("meta.json");
    expect(json.records).toHaveLength(2);
    expect(judgment(json, "meta", "one", "odd")?.detail).toMatchObject(expected);
    const lines = readFileSync(join(project.dir, "meta.ndjson"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const records = lines.filter((line) => line.type === "record");
    expect(records).toHaveLength(2);
    expect(records[0].record.judgments[0].detail).toMatchObject(expected);
  });

  it("reports authoring errors as errored cases and evals, and runs the rest", async () => {
    const run = await runCli(
      ["run", "authoring", "--json", "authoring.json", "--no-store"],
      project.dir,
    );
    expect(run.code).toBe(1);
    const json = readJson("authoring.json");
    const ids = json.records.filter((r) => r.evalId === "ids");
    expect(ids.map((r) => [r.caseId, r.verdict])).toEqual([
      ["a", "passed"],
      ["case-2", "errored"],
      ["7", "passed"],
      ["case-4", "errored"],
      ["case-5", "errored"],
      ["case-6", "passed"],
      ["case-1", "passed"],
      ["last", "passed"],
    ]);
    expect(ids[1]?.error?.message).toMatch(/case 2 \(index 1\) is null/);
    expect(ids[3]?.error?.message).toMatch(/control character \(U\+0009\)/);
    expect(ids[4]?.error?.message).toMatch(/empty id/);
    const byEval = (id: string) => json.records.filter((r) => r.evalId === id);
    expect(byEval("empty")[0]?.error?.message).toMatch(/has no cases/);
    // Its definition is at fault, not its dataset: the message does not say reading the cases failed.
    expect(byEval("unscored")[0]?.error?.message).toMatch(
      /^eval "unscored" cannot run: defineSuite\("unscored"\) has no scorers/,
    );
    expect(byEval("wrong-shape")[0]?.judgments[0]?.state).toBe("errored");
    expect(byEval("wrong-shape")[0]?.verdict).toBe("errored");
  });

  it("errors a scorer that outlives --timeout and keeps the judgment that finished", async () => {
    const run = await runCli(
      ["run", "timeouts", "--timeout", "300", "--json", "timeouts.json", "--no-store"],
      project.dir,
    );
    expect(run.code).toBe(1);
    const [record] = readJson("timeouts.json").records;
    expect(record?.judgments.map((j) => [j.label, j.state])).toEqual([
      ["quick", "matched"],
      ["hangs", "errored"],
    ]);
    expect(record?.judgments[1]?.reason).toMatch(/scorer "hangs" timed out after 300 ms/);
    expect(record?.elapsedMs).toBeGreaterThanOrEqual(290);
  });

  it.each([
    [["--timeout", "3000000000"], /--timeout must be a whole number from 1 to 2147482647/],
    [["--timeout", "1.5"], /--timeout must be a whole number/],
    [["--timeout", "Infinity"], /--timeout must be a whole number/],
    [["--concurrency", "1000000"], /--concurrency must be a whole number from 1 to 1024/],
    [["--concurrency", "NaN"], /--concurrency must be a whole number/],
  ])("refuses %j with exit 2 naming the option", async (flags, message) => {
    const run = await runCli(["run", "timeouts", ...flags, "--no-store"], project.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it("says how many judgments were unavailable and why, and --strict fails the run", async () => {
    const run = await runCli(["run", "judges", "--json", "judges.json", "--no-store"], project.dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /! 2 judgments unavailable in 2 attempts: their scores are partial, not zero/,
    );
    expect(run.stdout).toMatch(/2 × judge "openai\/gpt-test" unavailable: HTTP 503/);
    expect(readJson("judges.json").summary.unavailable).toEqual({
      judgments: 2,
      attempts: 2,
      scores: { partial: 2, unavailable: 0, complete: 0 },
      reasons: [
        {
          reason: 'judge "openai/gpt-test" unavailable: HTTP 503 after 4 attempts',
          count: 2,
          // Where the reason was met: the first judgments it made unavailable.
          where: [
            { evalId: "judge", caseId: "one", judgment: "judged", source: "scorer" },
            { evalId: "judge", caseId: "two", judgment: "judged", source: "scorer" },
          ],
        },
      ],
    });
    const strict = await runCli(["run", "judges", "--strict", "--no-store"], project.dir);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/--strict: 2 judgments were unavailable/);
  });

  it("says it again when the stored run is shown", async () => {
    const stored = await runCli(["run", "judges", "--store", "unavailable.sqlite"], project.dir);
    expect(stored.code).toBe(0);
    const shown = await runCli(["show", "latest", "--store", "unavailable.sqlite"], project.dir);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/! 2 judgments unavailable in 2 attempts/);
    expect(shown.stdout).toMatch(/2 × judge "openai\/gpt-test" unavailable: HTTP 503/);
  });
});

describe("outputs larger than a record may carry", () => {
  it("are scored whole, then kept as their head and size: a supervised run of them ends", async () => {
    // Eight outputs of 70 MiB each: one batch of their JSON would pass V8's longest string.
    const own = await makeProject({
      "evals/huge.eval.js": `import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
export const huge = defineSuite({
  id: "huge",
  cases: Array.from({ length: 8 }, (_, i) => ({ id: "c" + i, input: i })),
  target: async (i) => String(i).repeat(70 * 1024 * 1024),
  scorers: [createScorer({ name: "long", score: ({ output }) => ({ score: output.length === 70 * 1024 * 1024 ? 1 : 0 }) })],
});
`,
    });
    try {
      for (const mode of [[], ["--no-supervise"]]) {
        const run = await runCli(
          ["run", "--json", "huge.json", "--store", "huge.sqlite", ...mode],
          own.dir,
        );
        expect(run.stdout).toContain("8 passed");
        expect(run.code).toBe(0);
        const json = JSON.parse(readFileSync(join(own.dir, "huge.json"), "utf8")) as {
          records: { output: { "~truncated": boolean; bytes: number; head: string } }[];
        };
        expect(json.records).toHaveLength(8);
        for (const record of json.records) {
          expect(record.output["~truncated"]).toBe(true);
          expect(record.output.bytes).toBeGreaterThan(70 * 1024 * 1024);
          expect(record.output.head).toMatch(/^"\d{1000}/);
        }
      }
    } finally {
      await own.cleanup();
    }
  }, 120_000);
});
