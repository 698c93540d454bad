import { NiceevalError } from "../errors.js";
import type { AppUsage, NumericEvidence } from "../eval/record.js";
import { givenTyped } from "../eval/timeout.js";
import { unknownKeysMessage } from "../known-keys.js";
import { type UsageReport, usageReportKeys } from "./types.js";

const fields = Object.keys(usageReportKeys) as (keyof UsageReport)[];

/**
 * Collects what an adapter reports through ctx.reportUsage during one attempt. Its errors name the
 * call only: they are thrown inside the adapter's create, which the attempt's error names.
 */
export class UsageCollector {
  private readonly totals: Partial<Record<(typeof fields)[number], number>> = {};
  /** The sum of each report's total: the one it gave, else its input + output. */
  private totalSum = 0;
  /** Whether a report gave its total. */
  private totalGiven = false;

  report(usage: UsageReport): void {
    this.refuseUnknownKeys(usage);
    for (const field of fields) {
      const value = usage?.[field];
      if (value === undefined) continue;
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
        throw new NiceevalError(
          "USAGE_INVALID",
          `reportUsage({ ${field} }) got ${givenTyped(value)}; report a finite number >= 0 or leave the field out`,
        );
      }
    }
    this.refuseShortTotal(usage);
    for (const field of fields) {
      const value = usage?.[field];
      if (value !== undefined) this.totals[field] = (this.totals[field] ?? 0) + value;
    }
    // Each report's own total: one that leaves it out adds its input + output, so that a total
    // reported by one call does not stand for the calls that reported none.
    if (usage?.totalTokens !== undefined) {
      this.totalSum += usage.totalTokens;
      this.totalGiven = true;
    } else this.totalSum += (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0);
  }

  /** A misspelt field (`input_tokens`) would leave the usage "never reported" without a word. */
  private refuseUnknownKeys(usage: unknown): void {
    if (typeof usage !== "object" || usage === null) return;
    const unknown = Object.keys(usage).filter((key) => !Object.hasOwn(usageReportKeys, key));
    if (unknown.length === 0) return;
    throw new NiceevalError(
      "USAGE_INVALID",
      `reportUsage(...) got ${unknownKeysMessage(unknown, fields)}`,
    );
  }

  /** One report whose total is below its input and output: the numbers contradict each other. */
  private refuseShortTotal(usage: UsageReport): void {
    const { inputTokens, outputTokens, totalTokens } = usage ?? {};
    if (inputTokens === undefined || outputTokens === undefined || totalTokens === undefined)
      return;
    if (totalTokens >= inputTokens + outputTokens) return;
    throw new NiceevalError(
      "USAGE_INVALID",
      `reportUsage({ inputTokens: ${inputTokens}, outputTokens: ${outputTokens}, totalTokens: ${totalTokens} }): totalTokens is less than inputTokens + outputTokens (${inputTokens + outputTokens}); report the total the provider gave, or leave totalTokens out and it is their sum`,
    );
  }

  /**
   * Usage as evidence: unreported fields are unavailable; a report without a total counts its
   * input + output in the total.
   * `failed`: where the attempt failed (create threw, timed out, stopped), said by each field the
   * adapter had not reported by then, since it may have meant to later.
   */
  snapshot(failed?: string): AppUsage {
    const { inputTokens, outputTokens, costUsd } = this.totals;
    // Known once a report gave one, or input and output were both reported.
    const totalTokens =
      this.totalGiven || (inputTokens !== undefined && outputTokens !== undefined)
        ? this.totalSum
        : undefined;
    return {
      inputTokens: evidence(inputTokens, "inputTokens", failed),
      outputTokens: evidence(outputTokens, "outputTokens", failed),
      totalTokens: evidence(totalTokens, totalMissing(inputTokens, outputTokens), failed),
      costUsd: evidence(costUsd, "costUsd", failed),
    };
  }
}

/** What a missing total lacked: no total was reported, nor both the counts it is the sum of. */
function totalMissing(input: number | undefined, output: number | undefined): string {
  if (input !== undefined) return "totalTokens, nor outputTokens to add to its inputTokens";
  if (output !== undefined) return "totalTokens, nor inputTokens to add to its outputTokens";
  return "totalTokens";
}

const evidence = (value: number | undefined, field: string, failed?: string): NumericEvidence =>
  value === undefined
    ? {
        state: "unavailable",
        reason:
          failed === undefined
            ? `usage-unreported: the adapter never reported ${field} (ctx.reportUsage)`
            : `usage-unreported: the adapter had not reported ${field} (ctx.reportUsage) when ${failed} failed`,
      }
    : { state: "available", value };
