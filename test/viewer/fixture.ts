import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineSuite } from "../../src/eval/suite.js";
import { JudgeUnavailableError } from "../../src/judge/unavailable.js";
import { type RunEntry, runEvals } from "../../src/runner/run.js";
import { createScorer } from "../../src/scorers/create-scorer.js";
import { storeSink } from "../../src/store/sink.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import type { Store } from "../../src/store/types.js";
import { manifest } from "../store/fixtures.js";

/** An output built to break a careless viewer: markup, handlers, a javascript: link, ANSI, bidi. */
export const HOSTILE =
  '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"><a href="javascript:window.__pwned=3">click</a>\u001b[31mred\u001b[0m \u202egnp.exe';

/** Whether `caseId` answers correctly in a run; `head` breaks case-3 (a regression). */
const correct = (caseId: string, head: boolean) => !(head && caseId === "case-3");

function suite(head: boolean) {
  return defineSuite<string, string>({
    id: "greetings",
    cases: [
      ...Array.from({ length: 6 }, (_, i) => ({
        id: `case-${i}`,
        input: `name-${i}`,
        expected: `hello name-${i}`,
      })),
      { id: "hostile", input: "x", expected: "safe" },
    ],
    target: (input, ctx) => {
      ctx.trace.message("user", `greet ${input}`);
      ctx.trace.toolCall("lookup", { name: input }, { output: { found: true } });
      if (ctx.caseId === "hostile") return HOSTILE;
      return correct(ctx.caseId, head) ? `hello ${input}` : `goodbye ${input}`;
    },
    scorers: [
      createScorer<string, string>({
        name: "exact",
        score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
      }),
      createScorer<string, string>({
        name: "tone-judge",
        score: () => {
          throw new JudgeUnavailableError(
            "unconfigured",
            "openai/gpt-4.1-mini",
            "OPENAI_API_KEY is not set",
          );
        },
      }),
    ],
    gates: ["exact"],
  });
}

/**
 * Three cases scored by `exact`, their gate, and by a model judge (a point each). With `reachable`,
 * the judge answers and every score is complete (mean 1); without, it cannot be reached: every case
 * still passes, but each score is partial (exact's point earned, the judge's kept in max) and the
 * mean score a lower bound, ≥ 0.500.
 */
export function judgedEval(reachable: boolean) {
  return defineSuite<string, string>({
    id: "judged",
    cases: ["a", "b", "c"].map((id) => ({ id, input: id, expected: id })),
    target: (input) => input,
    scorers: [
      createScorer<string, string>({
        name: "exact",
        score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
      }),
      createScorer<string, string>({
        name: "judge",
        score: () => {
          if (reachable) return { score: 1 };
          throw new JudgeUnavailableError(
            "failed",
            "openai/gpt-4.1-mini",
            "fetch failed: connect ECONNREFUSED",
          );
        },
      }),
    ],
    gates: ["exact"],
  });
}

/**
 * Record one real run of the engine into `store` (its attempts kept whole, as the viewer shows
 * them), named `name`, started on `startedAt`.
 */
export async function recordRun(
  store: Store,
  options: {
    runId: string;
    name: string;
    startedAt: string;
    evals: RunEntry["eval"][];
    trials: number;
  },
): Promise<string> {
  const m = manifest(options.runId, {
    evals: options.evals.map((e) => e.id),
    name: options.name,
    branch: "main",
    startedAt: options.startedAt,
  });
  // The manifest says how many trials ran, as the CLI's does.
  m.trials = options.trials;
  for (const e of m.evals) e.trials = options.trials;
  const sink = storeSink(store, m, { flushMs: 5 });
  await sink.ready;
  await runEvals(
    options.evals.map((e) => ({ eval: e })),
    {
      runId: options.runId,
      reporters: [sink],
      keepCase: true,
      keepOutput: true,
      trials: options.trials,
    },
  );
  return options.runId;
}

/** A temp SQLite store holding two real runs of the engine: `base`, then `head` (one regression). */
export async function storeWithRuns(): Promise<{
  store: Store;
  path: string;
  baseId: string;
  headId: string;
  cleanup(): Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), "niceeval-viewer-"));
  const path = join(dir, "store.sqlite");
  const store = await openSqliteStore(path);
  const ids: string[] = [];
  for (const [i, name] of ["base", "head"].entries())
    ids.push(
      await recordRun(store, {
        runId: `run-${name}-${"0".repeat(8)}`,
        name,
        startedAt: new Date(Date.UTC(2025, 0, 1 + i)).toISOString(),
        evals: [suite(name === "head")],
        trials: 2,
      }),
    );
  return {
    store,
    path,
    baseId: ids[0]!,
    headId: ids[1]!,
    cleanup: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
