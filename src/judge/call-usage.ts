import type { JudgeUsage } from "../eval/record.js";
import type { JudgeTokens } from "./chat.js";
import type { JudgePrice } from "./config.js";
import { recordJudgeUsage } from "./ledger.js";
import type { Attempted } from "./retries.js";

/** Tokens an answer was billed for, as far as its provider said. */
export type Billed = JudgeTokens;

/**
 * What a call spent, settled once it is over: an answer's tokens added, its cost priced, and
 * every open ledger told (what the retry loop told them as each try went out is not told twice).
 * Tokens and cost count only real calls, not cache hits.
 */
export function settleUsage(
  attempted: Attempted<Billed>,
  priceKeys: readonly string[],
  prices: Readonly<Record<string, JudgePrice>>,
): JudgeUsage {
  const { outcome, usage, cached, counted } = attempted;
  if (outcome.ok && !cached) addTokens(usage, outcome.response);
  // Tokens of a refused call are billed like an answer's.
  if (!cached) price(usage, priceKeys, prices);
  recordJudgeUsage(counted ? { ...usage, calls: 0, retries: 0 } : usage);
  return usage;
}

/**
 * Add what a provider said a call used. An answer that did not say (no usage block, or a count
 * left out) is counted in `unreportedCalls`: its tokens are unknown, never taken as 0.
 */
export function addTokens(usage: JudgeUsage, tokens: JudgeTokens): void {
  const { inputTokens, outputTokens } = tokens;
  if (isCount(inputTokens)) usage.inputTokens += inputTokens;
  if (isCount(outputTokens)) usage.outputTokens += outputTokens;
  if (!isCount(inputTokens) || !isCount(outputTokens))
    usage.unreportedCalls = (usage.unreportedCalls ?? 0) + 1;
}

const isCount = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n) && n >= 0;

/**
 * The cost of a call's tokens from the first of its price keys the table lists. With a table
 * that lists none of them, the call is counted as unpriced, under its model string, so a cost
 * summed over calls is shown as the lower bound it is, never as the whole.
 */
function price(
  usage: JudgeUsage,
  keys: readonly string[],
  prices: Readonly<Record<string, JudgePrice>>,
): void {
  const { inputTokens, outputTokens } = usage;
  // A call whose usage was not reported is looked up too: an unpriced model is named all the
  // same. Its cost is that of the tokens reported (none: no cost), which `unreportedCalls` says
  // is a lower bound.
  if (inputTokens + outputTokens === 0 && !usage.unreportedCalls) return;
  const key = keys.find((name) => Object.hasOwn(prices, name));
  const found = key === undefined ? undefined : prices[key];
  if (found) {
    if (inputTokens + outputTokens === 0) return;
    usage.costUsd = (inputTokens * found.inputPerMTok + outputTokens * found.outputPerMTok) / 1e6;
    return;
  }
  // Without a table no cost is shown at all: nothing is partial.
  if (Object.keys(prices).length === 0) return;
  usage.unpriced = { calls: 1, inputTokens, outputTokens, models: keys.slice(0, 1) };
}
