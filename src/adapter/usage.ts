import { NiceevalError } from "../errors.js";
import type { AppUsage, NumericEvidence } from "../eval/record.js";
import type { UsageReport } from "./types.js";

const fields = ["inputTokens", "outputTokens", "totalTokens", "costUsd"] as const;

/** Collects what an adapter reports through ctx.reportUsage during one attempt. */
export class UsageCollector {
  private readonly totals: Partial<Record<(typeof fields)[number], number>> = {};

  constructor(private readonly where: string) {}

  report(usage: UsageReport): void {
    for (const field of fields) {
      const value = usage?.[field];
      if (value === undefined) continue;
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
        throw new NiceevalError(
          "USAGE_INVALID",
          `${this.where}: reportUsage({ ${field} }) got ${String(value)}; report a finite number >= 0 or leave the field out`,
        );
      }
      this.totals[field] = (this.totals[field] ?? 0) + value;
    }
  }

  /** Usage as evidence: unreported fields are unavailable; a total is derived from input + output. */
  snapshot(): AppUsage {
    const { inputTokens, outputTokens, costUsd } = this.totals;
    const totalTokens =
      this.totals.totalTokens ??
      (inputTokens !== undefined && outputTokens !== undefined
        ? inputTokens + outputTokens
        : undefined);
    return {
      inputTokens: evidence(inputTokens, "inputTokens"),
      outputTokens: evidence(outputTokens, "outputTokens"),
      totalTokens: evidence(totalTokens, "totalTokens"),
      costUsd: evidence(costUsd, "costUsd"),
    };
  }
}

const evidence = (value: number | undefined, field: string): NumericEvidence =>
  value === undefined
    ? {
        state: "unavailable",
        reason: `usage-unreported: the adapter never reported ${field} (ctx.reportUsage)`,
      }
    : { state: "available", value };
