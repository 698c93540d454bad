import type { AttemptRecord, Judgment, Verdict } from "../../src/eval/record.js";
import { emptyJudgeUsage, unreportedUsage } from "../../src/eval/record.js";
import type { EvalSummary } from "../../src/runner/events.js";
import type { RunManifest } from "../../src/store/types.js";

/** A run manifest with one entry per eval id. */
export function manifest(
  runId: string,
  options: {
    evals?: string[];
    name?: string;
    branch?: string;
    tags?: Record<string, string>;
    startedAt?: string;
  } = {},
): RunManifest {
  const m: RunManifest = {
    runId,
    tags: options.tags ?? {},
    niceevalVersion: "0.1.0",
    nodeVersion: "v20.19.0",
    command: ["niceeval", "run"],
    files: [{ path: "evals/a.eval.ts", hash: "f1" }],
    evals: (options.evals ?? ["alpha"]).map((evalId) => ({
      evalId,
      style: "suite" as const,
      file: "evals/a.eval.ts",
      configHash: `cfg-${evalId}`,
      judgeModels: [],
      trials: 1,
    })),
    trials: 1,
    concurrency: 4,
    startedAt: options.startedAt ?? new Date().toISOString(),
  };
  if (options.name !== undefined) m.name = options.name;
  if (options.branch !== undefined)
    m.git = { commit: "abc123", branch: options.branch, dirty: false };
  return m;
}

/** A scorer judgment, as a deterministic suite produces it. */
export function judgment(label: string, passed: boolean, reason?: string): Judgment {
  return {
    label,
    source: `eval.${label}`,
    state: passed ? "matched" : "mismatched",
    gate: true,
    points: 1,
    earned: passed ? 1 : 0,
    value: passed ? 1 : 0,
    reason: reason ?? (passed ? `${label} holds` : `${label} does not hold`),
  };
}

/** An attempt of a 4-scorer suite with short input and output, like the CLI benchmark's. */
export function attempt(
  evalId: string,
  index: number,
  options: { verdict?: Verdict; trial?: number; elapsedMs?: number; earned?: number } = {},
): AttemptRecord {
  const verdict = options.verdict ?? "passed";
  const passed = verdict === "passed";
  const earned = options.earned ?? (passed ? 4 : 3);
  return {
    evalId,
    caseId: `case-${index}`,
    trial: options.trial ?? 0,
    index,
    verdict,
    score: { state: "complete", earned, max: 4, reasons: [] },
    judgments: [
      judgment("exact", passed, passed ? "actual equals expected" : "actual differs from expected"),
      judgment("regex", true, "actual matches /^answer-\\d+$/"),
      judgment("schema", true, "actual is valid against the JSON Schema (draft 2020-12)"),
      judgment("latency", true, `${index % 7}ms within budget of 10ms`),
    ],
    usage: { app: unreportedUsage(), judge: emptyJudgeUsage() },
    elapsedMs: options.elapsedMs ?? index % 13,
    input: index,
    expected: `answer-${index}`,
    output: { text: `answer-${index}`, latencyMs: index % 7, doc: { id: index, tags: ["a", "b"] } },
  };
}

/** An eval summary as `eval.finished` carries it. */
export function summary(evalId: string, cases: number): EvalSummary {
  return {
    evalId,
    style: "suite",
    cases,
    passed: cases,
    failed: 0,
    errored: 0,
    skipped: 0,
    meanScore: 1,
    sdScore: 0,
    scoredCases: cases,
    partialCases: 0,
    judge: emptyJudgeUsage(),
    elapsedMs: 12.5,
  };
}
