import { errorMessage } from "../errors.js";
import type { AttemptRecord } from "../eval/record.js";
import type { AttemptContext, CaseSpec } from "../eval/runnable.js";
import { judgeLedgersOpen, withJudgeLedger } from "../judge/ledger.js";
import type { RunEntry } from "./entry.js";
import { crashed } from "./source.js";

/** One attempt to execute: which eval, which case, which trial, and the context to give it. */
export interface AttemptJob {
  readonly entry: RunEntry;
  readonly spec: CaseSpec;
  readonly trial: number;
  readonly context: AttemptContext;
}

/**
 * How an attempt executes. In process by default; a supervised child process or a queue
 * worker is another Executor. It resolves to a record and never rejects for the attempt's own
 * failures (those are data on the record).
 */
export interface Executor {
  execute(job: AttemptJob): Promise<AttemptRecord>;
  /** Release what the executor holds (child processes, connections). */
  close?(): Promise<void>;
}

/** Runs attempts in this process, inside a judge-usage ledger. */
export const inProcessExecutor: Executor = {
  async execute({ entry, spec, context }) {
    const runnable = entry.eval;
    try {
      if (!judgeLedgersOpen()) return await runnable.runCase(spec, context);
      const { result, usage } = await withJudgeLedger(() => runnable.runCase(spec, context));
      // Judge calls the eval did not attribute to a judgment still belong to the attempt.
      if (usage.calls > result.usage.judge.calls) result.usage.judge = usage;
      return result;
    } catch (error) {
      return crashed(
        runnable.id,
        spec,
        `eval "${runnable.id}" crashed on case "${spec.id}": ${errorMessage(error)}`,
      );
    }
  },
};
