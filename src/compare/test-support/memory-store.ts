import type { AttemptRecord, Judgment, Verdict } from "../../eval/record.js";
import { emptyJudgeUsage, unreportedUsage } from "../../eval/record.js";
import type {
  AttemptKey,
  AttemptPage,
  EvalManifest,
  ReplacedAttempt,
  RunEnd,
  RunManifest,
  Store,
  StoredRun,
} from "../../store/types.js";

// Runs kept in memory, made from a few words per attempt, for the comparison's unit tests.

/** The smallest Store that keeps runs in memory; the SQLite one is tested on its own. */
export class MemoryStore implements Store {
  readonly location = "memory";
  private readonly runs = new Map<string, { run: StoredRun; attempts: AttemptRecord[] }>();
  async beginRun(manifest: RunManifest): Promise<void> {
    const totals = {
      evals: 0,
      cases: 0,
      attempts: 0,
      passed: 0,
      failed: 0,
      errored: 0,
      skipped: 0,
      interrupted: 0,
      meanScore: null,
      scoredAttempts: 0,
    };
    this.runs.set(manifest.runId, {
      run: { ...manifest, status: "running", totals },
      attempts: [],
    });
  }
  async appendAttempts(runId: string, records: readonly AttemptRecord[]): Promise<void> {
    for (const record of records) this.runs.get(runId)!.attempts.push(record);
  }
  async finishRun(runId: string, end: RunEnd): Promise<void> {
    const entry = this.runs.get(runId)!;
    entry.run = {
      ...entry.run,
      status: end.status,
      ...(end.endedAt !== undefined ? { endedAt: end.endedAt } : {}),
      summaries: end.summaries,
    };
  }
  async listRuns(): Promise<StoredRun[]> {
    return [...this.runs.values()].map((entry) => entry.run).reverse();
  }
  async getRun(runId: string): Promise<StoredRun | undefined> {
    return this.runs.get(runId)?.run;
  }
  async *streamAttempts(
    runId: string,
    options: { evalId?: string } = {},
  ): AsyncIterable<AttemptRecord> {
    for (const record of this.runs.get(runId)?.attempts ?? []) {
      if (options.evalId === undefined || record.evalId === options.evalId) yield record;
    }
  }
  async queryAttempts(runId: string): Promise<AttemptPage> {
    const items = this.runs.get(runId)?.attempts ?? [];
    return { total: items.length, items: items.slice(0, 100) };
  }
  async *attemptKeys(runId: string): AsyncIterable<AttemptKey> {
    for (const r of this.runs.get(runId)?.attempts ?? [])
      yield { evalId: r.evalId, caseId: r.caseId, trial: r.trial ?? 0, verdict: r.verdict };
  }
  async *attemptHistory(): AsyncIterable<ReplacedAttempt> {}
  async close(): Promise<void> {}
}

export const evalManifest = (evalId: string, over: Partial<EvalManifest> = {}): EvalManifest => ({
  evalId,
  style: "suite",
  configHash: "cfg1",
  datasetHash: "data1",
  judgeModels: ["openai:gpt-5"],
  trials: 1,
  ...over,
});

export const manifest = (runId: string, evals: EvalManifest[]): RunManifest => ({
  runId,
  tags: {},
  niceevalVersion: "0.1.0",
  nodeVersion: "v20.19.0",
  command: ["niceeval", "run"],
  files: [],
  evals,
  trials: 1,
  concurrency: 4,
  startedAt: "2026-12-01T00:00:00.000Z",
});

export interface Spec {
  caseId: string;
  verdict?: Verdict;
  score?: number | "partial" | "unavailable";
  trial?: number;
  cluster?: string;
  reason?: string;
  evalId?: string;
  /** Errored because the run's stop cut it off. */
  cutOff?: true;
}

export function record(spec: Spec, index: number): AttemptRecord {
  const verdict = spec.verdict ?? "passed";
  const score = spec.score ?? (verdict === "passed" ? 1 : 0);
  const judgment: Judgment = {
    label: "exact",
    source: "scorer",
    state: verdict === "passed" ? "matched" : verdict === "errored" ? "errored" : "mismatched",
    gate: true,
    points: 1,
    earned: typeof score === "number" ? score : null,
    reason: spec.reason ?? (verdict === "passed" ? "equal" : "differs"),
  };
  const out: AttemptRecord = {
    evalId: spec.evalId ?? "qa",
    caseId: spec.caseId,
    trial: spec.trial ?? 0,
    index,
    verdict,
    score:
      typeof score === "number"
        ? { state: "complete", earned: score, max: 1, reasons: [] }
        : { state: score, earned: 0, max: 1, reasons: ["judge unavailable"] },
    judgments: [judgment],
    usage: { app: unreportedUsage(), judge: emptyJudgeUsage() },
    elapsedMs: 1,
  };
  if (spec.cluster !== undefined) out.cluster = spec.cluster;
  if (verdict === "errored") out.error = { message: "boom", where: "target" };
  if (spec.cutOff)
    out.error = { message: "the run was stopped", where: "target", interrupted: true };
  return out;
}

export async function storeWith(
  runs: Record<string, Spec[]>,
  manifests: Record<string, EvalManifest[]> = {},
  statuses: Record<string, RunEnd["status"]> = {},
  more: Record<string, Partial<RunManifest>> = {},
): Promise<MemoryStore> {
  const store = new MemoryStore();
  for (const [runId, specs] of Object.entries(runs)) {
    const evalIds = [...new Set(specs.map((s) => s.evalId ?? "qa"))];
    await store.beginRun({
      ...manifest(runId, manifests[runId] ?? evalIds.map((id) => evalManifest(id))),
      ...more[runId],
    });
    await store.appendAttempts(runId, specs.map(record));
    const status = statuses[runId] ?? "finished";
    await store.finishRun(runId, { status, endedAt: "2026-01-01T00:01:00Z", summaries: [] });
  }
  return store;
}

export const cases = (n: number, make: (i: number) => Omit<Spec, "caseId">) =>
  Array.from({ length: n }, (_, i) => ({ caseId: `c${i}`, ...make(i) }));
