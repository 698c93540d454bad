import * as z from "zod";
import { type Score, scoreSchema } from "../../score/score.js";
import { defineTool, implementBuiltInTool, isObjectInput } from "../../tool/tool.js";

const LABEL = "latency-budget";

/** Input of the `eval.latency-budget` scorer. */
export interface LatencyBudgetInput {
  /** How long the call took, in milliseconds (finite, >= 0). */
  durationMs: number;
  /** The most it may take, in milliseconds (finite, >= 0). */
  budgetMs: number;
}

function invalid(field: string, value: number): Score {
  return {
    value: 0,
    passed: false,
    label: LABEL,
    rationale: `invalid ${field}: ${value} (must be a finite number >= 0)`,
  };
}

/**
 * Score a duration against a budget: passed when `durationMs <= budgetMs`; value 1 within
 * budget, else `max(0, 1 - (durationMs - budgetMs) / budgetMs)` (0 at twice the budget).
 * A negative or non-finite duration or budget gives a failed Score that says which.
 * @example
 * latencyBudget({ durationMs: 150, budgetMs: 100 }); // value 0.5, passed false
 */
export function latencyBudget(input: LatencyBudgetInput): Score {
  const { durationMs, budgetMs } = input;
  if (!(Number.isFinite(durationMs) && durationMs >= 0)) return invalid("durationMs", durationMs);
  if (!(Number.isFinite(budgetMs) && budgetMs >= 0)) return invalid("budgetMs", budgetMs);
  if (durationMs <= budgetMs) {
    return {
      value: 1,
      passed: true,
      label: LABEL,
      rationale: `${ms(durationMs)}ms within budget of ${ms(budgetMs)}ms`,
    };
  }
  const over = durationMs - budgetMs;
  // A zero budget leaves no room: any time over it scores 0 rather than dividing by zero.
  const value = budgetMs === 0 ? 0 : Math.max(0, 1 - over / budgetMs);
  return {
    value,
    passed: false,
    label: LABEL,
    rationale: `${ms(durationMs)}ms over budget of ${ms(budgetMs)}ms by ${ms(over)}ms`,
  };
}

const milliseconds = z.number().nonnegative();

/** The `eval.latency-budget` tool contract. */
export const latencyBudgetTool = defineTool({
  id: "eval.latency-budget",
  description:
    "Pass when durationMs <= budgetMs; value 1 within budget, else max(0, 1 - (durationMs - budgetMs) / budgetMs).",
  inputSchema: z.object({ durationMs: milliseconds, budgetMs: milliseconds }),
  outputSchema: scoreSchema,
});

/** The implementation of `eval.latency-budget`, bundled in `evalScorersProvider`. */
export const latencyBudgetImpl = implementBuiltInTool(
  latencyBudgetTool,
  latencyBudget,
  (input) =>
    isObjectInput(input) && isMilliseconds(input.durationMs) && isMilliseconds(input.budgetMs),
);

/** What `milliseconds` accepts unchanged, at least: a finite number >= 0. */
const isMilliseconds = (value: unknown) =>
  typeof value === "number" && Number.isFinite(value) && value >= 0;

/** Milliseconds for a rationale: at most three decimals, so timer noise does not flood reports. */
const ms = (value: number) => String(Math.round(value * 1000) / 1000);
