import * as z from "zod";
import { type KnownKeys, misspeltKeysMessage } from "../../known-keys.js";
import { type Score, scoreSchema } from "../../score/score.js";
import { decimals, shownApart } from "../../shown-apart.js";
import { defineTool, hasOnlyKeys, implementBuiltInTool, isObjectInput } from "../../tool/tool.js";
import { scorerInputSchema } from "../tool-input.js";
import { show } from "./preview.js";

const LABEL = "latency-budget";

/** Input of the `eval.latency-budget` scorer. */
export interface LatencyBudgetInput {
  /** How long the call took, in milliseconds (finite, >= 0). */
  durationMs: number;
  /** The most it may take, in milliseconds (finite, >= 0). */
  budgetMs: number;
}
const inputKeys = { durationMs: true, budgetMs: true } satisfies KnownKeys<LatencyBudgetInput>;
const KEYS = Object.keys(inputKeys);
const INPUT_KEYS = new Set(KEYS);

// Errored, never a failed 0: a duration that is missing or not a number is no evidence of slowness.
function errored(rationale: string): Score {
  return { value: 0, passed: false, errored: true, label: LABEL, rationale };
}

function invalid(input: object, field: string, value: unknown): Score {
  // Undefined beside a key that misspells it (`durationMS`, `duration_ms`): that key is named.
  const misspelt = value === undefined ? misspeltKeysMessage(input, KEYS) : undefined;
  if (misspelt !== undefined) return errored(`invalid input: ${misspelt}`);
  // A BigInt reads like a number in a reason: named, with the fix.
  if (typeof value === "bigint") {
    return errored(
      `invalid ${field}: ${value}n is a BigInt (must be a finite number >= 0: convert it with Number())`,
    );
  }
  const shown = typeof value === "number" ? value : show(value);
  return errored(`invalid ${field}: ${shown} (must be a finite number >= 0)`);
}

/**
 * Score a duration against a budget: passed when `durationMs <= budgetMs`; value 1 within
 * budget, else `max(0, 1 - (durationMs - budgetMs) / budgetMs)` (0 at twice the budget).
 * A duration or budget that is missing, not a number (a BigInt included), negative or
 * non-finite, or an input that is not an object, gives an errored Score that says which
 * (`errored: true`: the scorer could not judge), never a failed 0.
 * @example
 * latencyBudget({ durationMs: 150, budgetMs: 100 }); // value 0.5, passed false
 */
export function latencyBudget(input: LatencyBudgetInput): Score {
  if (!isObjectInput(input)) {
    return errored(`invalid input: ${show(input)}; pass { durationMs, budgetMs } in milliseconds`);
  }
  const { durationMs, budgetMs } = input;
  if (!isMilliseconds(durationMs)) return invalid(input, "durationMs", durationMs);
  if (!isMilliseconds(budgetMs)) return invalid(input, "budgetMs", budgetMs);
  if (durationMs <= budgetMs) {
    return {
      value: 1,
      passed: true,
      label: LABEL,
      rationale: withinBudget(durationMs, budgetMs),
    };
  }
  const over = durationMs - budgetMs;
  // A zero budget leaves no room: any time over it scores 0 rather than dividing by zero.
  const value = budgetMs === 0 ? 0 : Math.max(0, 1 - over / budgetMs);
  return { value, passed: false, label: LABEL, rationale: overBudget(durationMs, budgetMs, over) };
}

const milliseconds = z.number().nonnegative();

/** The `eval.latency-budget` tool contract. */
export const latencyBudgetTool = defineTool({
  id: "eval.latency-budget",
  description:
    "Pass when durationMs <= budgetMs; value 1 within budget, else max(0, 1 - (durationMs - budgetMs) / budgetMs).",
  inputSchema: scorerInputSchema({ durationMs: milliseconds, budgetMs: milliseconds }),
  outputSchema: scoreSchema,
});

/** The implementation of `eval.latency-budget`, bundled in `evalScorersProvider`. */
export const latencyBudgetImpl = implementBuiltInTool(
  latencyBudgetTool,
  latencyBudget,
  (input) =>
    isObjectInput(input) &&
    hasOnlyKeys(input, INPUT_KEYS) &&
    isMilliseconds(input.durationMs) &&
    isMilliseconds(input.budgetMs),
);

/** What `milliseconds` accepts unchanged, at least: a finite number >= 0. */
const isMilliseconds = (value: unknown): value is number =>
  typeof value === "number" && Number.isFinite(value) && value >= 0;

/** Milliseconds for a rationale: at most three decimals, so timer noise does not flood reports. */
const ms = (value: number) => decimals(value, 3);

/**
 * Milliseconds in three decimals, or as many as show them on their side of the budget (a budget
 * beside itself: as many as it needs to read as itself).
 */
const apart = (value: number, budgetMs: number) => shownApart(value, budgetMs, decimals, 3, 20);

/**
 * Why a duration is over its budget. Seed 002 compares exactly (`durationMs <= budgetMs`), so a
 * duration over by less than the rounding shows the digits that tell it from the budget, with
 * what it is over by in two significant digits: "0.30000000000000004ms over budget of 0.3ms by
 * 5.6e-17ms", never "0.3ms over budget of 0.3ms by 0ms".
 */
function overBudget(durationMs: number, budgetMs: number, over: number): string {
  const by = ms(over) !== "0" ? ms(over) : String(Number(over.toPrecision(2)));
  return `${apart(durationMs, budgetMs)}ms over budget of ${apart(budgetMs, budgetMs)}ms by ${by}ms`;
}

/** Why a duration is within its budget, in digits that never show it over. */
function withinBudget(durationMs: number, budgetMs: number): string {
  return `${apart(durationMs, budgetMs)}ms within budget of ${apart(budgetMs, budgetMs)}ms`;
}
