import { AsyncLocalStorage } from "node:async_hooks";
import { addJudgeUsage, emptyJudgeUsage, type JudgeUsage } from "../eval/record.js";
import { processWide } from "../process-wide.js";

/**
 * Judge calls report their tokens here. The runner opens a ledger per attempt (and scorers
 * per judgment) so usage lands on the right record without threading it through every call.
 */
const ledgers = processWide("judge.ledgers", () => new AsyncLocalStorage<JudgeUsage[]>());

/** Run `work` with a fresh ledger nested inside the current ones; returns what it spent. */
export async function withJudgeLedger<T>(
  work: () => Promise<T>,
): Promise<{ result: T; usage: JudgeUsage }> {
  const usage = emptyJudgeUsage();
  const stack = [...(ledgers.getStore() ?? []), usage];
  const result = await ledgers.run(stack, work);
  return { result, usage };
}

/** Record one judge call's usage into every open ledger. */
export function recordJudgeUsage(usage: Partial<JudgeUsage>): void {
  const stack = ledgers.getStore();
  if (!stack) return;
  const full = { ...emptyJudgeUsage(), ...usage };
  for (const ledger of stack) addJudgeUsage(ledger, full);
}
