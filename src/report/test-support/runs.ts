import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onTestFinished } from "vitest";
import { defineAdapter } from "../../adapter/define-adapter.js";
import { emptyAppUsageTotals } from "../../eval/app-usage-totals.js";
import {
  type AttemptRecord,
  emptyJudgeUsage,
  type Judgment,
  unreportedUsage,
} from "../../eval/record.js";
import { defineSuite } from "../../eval/suite.js";
import { atMost } from "../../expect/compare.js";
import type { RunSummary } from "../../runner/run.js";
import { type RunEntry, runEvals } from "../../runner/run.js";
import type { LoadError } from "../../runner/summary.js";
import { createScorer } from "../../scorers/create-scorer.js";
import type { Reporter } from "../reporter.js";

/** A temporary folder, removed when the current test finishes. */
export function tempDir(): string {
  const path = mkdtempSync(join(tmpdir(), "niceeval-report-test-"));
  onTestFinished(() => rmSync(path, { recursive: true, force: true }));
  return path;
}

const exact = createScorer<string, string>({
  name: "exact <answer>",
  score: ({ output, expected }) => ({
    score: output === expected ? 1 : 0,
    metadata: { got: output },
  }),
});

/** A scorer that passes whatever the output (a suite needs one). */
export const ran = createScorer({ name: "ran", score: () => ({ score: 1 }) });

/** A score eval errored by a gate without evidence (usage never reported), as repro-7 made it. */
export function ungatedUsageEval(id = "why-errored") {
  const app = defineAdapter({ name: "app", create: () => ({ answered: true }) });
  return app.defineScoreEval({
    id,
    description: "why errored",
    test(t) {
      t.score(1, { weight: 10 }).label("Quality");
      t.check(t.usage.totalTokens, atMost(10_000)).gate().label("Usage limit");
    },
  });
}

/**
 * A suite whose cases pass, fail (with a reason full of XML, markdown and control characters)
 * and error (the target throws), run through the real engine.
 */
export function mixedSuite(id = "qa") {
  return defineSuite<string, string>({
    id,
    cases: [
      { id: "ok", input: "a", expected: "a" },
      { id: 'wrong <&>"', input: "b", expected: "c" },
      { id: "boom", input: "crash", expected: "x" },
      { id: "ok-2", input: "d", expected: "d" },
    ],
    target: (input) => {
      if (input === "crash") throw new Error("target exploded: <bad> & \u001b[31mred\u001b[0m");
      return input;
    },
    scorers: [exact],
  });
}

/**
 * A suite of `count` cases meant to run with trials, whose trials disagree as an agent's do: case
 * i passes trial t unless (i + t) % 4 == 0 or i % 5 == 0, and earns its second point when
 * (i · (t + 1)) % 3 != 0, so scores and verdicts vary both between and within cases.
 */
export function flakySuite(id = "flaky", count = 40) {
  type Output = { i: number; t: number };
  const gate = createScorer<Output>({
    name: "gate",
    score: ({ output }) => ({
      score: (output.i + output.t) % 4 === 0 || output.i % 5 === 0 ? 0 : 1,
    }),
  });
  const style = createScorer<Output>({
    name: "style",
    score: ({ output }) => ({ score: (output.i * (output.t + 1)) % 3 !== 0 ? 1 : 0 }),
  });
  return defineSuite<number, Output>({
    id,
    cases: Array.from({ length: count }, (_, i) => ({ id: `c${i}`, input: i })),
    target: (i, { trial }) => ({ i, t: trial }),
    scorers: [gate, style],
    gates: ["gate"],
  });
}

/** A suite of `count` cases whose target always throws `message`: every attempt errors. */
export function crashingSuite(id: string, count: number, message: string) {
  return defineSuite<number, number>({
    id,
    cases: Array.from({ length: count }, (_, i) => ({ id: `c${i}`, input: i })),
    target: () => {
      throw new Error(message);
    },
    scorers: [ran],
  });
}

/** Run entries through the real engine with these reporters; finish them as the CLI does. */
export async function run(
  entries: readonly RunEntry[],
  reporters: Reporter[],
  options: { trials?: number; loadErrors?: LoadError[] } = {},
): Promise<RunSummary> {
  const summary = await runEvals(entries, { reporters, concurrency: 2, ...options });
  // The engine finishes its sinks; finishing again must change nothing (reporters are idempotent).
  for (const reporter of reporters) await reporter.onRunFinished?.(summary);
  return summary;
}

/** A hand-made judgment. */
export function judgment(overrides: Partial<Judgment> = {}): Judgment {
  return {
    label: "check",
    source: "t.check",
    state: "matched",
    gate: true,
    points: 0,
    earned: null,
    reason: "ok",
    ...overrides,
  };
}

/** A hand-made record, for verdicts and score states the engine makes only through adapters. */
export function record(overrides: Partial<AttemptRecord> = {}): AttemptRecord {
  return {
    evalId: "hand",
    caseId: "c",
    verdict: "passed",
    score: { state: "complete", earned: 1, max: 1, reasons: [] },
    judgments: [],
    usage: { app: unreportedUsage(), judge: emptyJudgeUsage() },
    elapsedMs: 12,
    ...overrides,
  };
}

/** A hand-made run summary. */
export function runSummary(overrides: Partial<RunSummary> = {}): RunSummary {
  return {
    runId: "r",
    startedAt: new Date().toISOString(),
    elapsedMs: 40,
    evals: [],
    totals: { evals: 0, cases: 0, passed: 0, failed: 0, errored: 0, skipped: 0 },
    judge: emptyJudgeUsage(),
    app: emptyAppUsageTotals(),
    loadErrors: [],
    ok: true,
    cancelled: false,
    ...overrides,
  };
}

/** A second export of a file with the id of its first: left out, the file's other evals ran. */
export const leftOutSecond: LoadError = {
  file: "evals/qa.eval.ts",
  message: 'export "second" was left out: it has the eval id "qa" of export "first" of this file',
  leftOut: ["second"],
};

/** A file that failed to load, and an eval left out of a file that loaded. */
export const brokenAndLeftOut: LoadError[] = [
  { file: "evals/broken.eval.ts", message: "SyntaxError" },
  leftOutSecond,
];
