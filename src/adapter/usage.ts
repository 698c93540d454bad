import { NiceevalError } from "../errors.js";
import type { AppUsage, NumericEvidence } from "../eval/record.js";
import { givenTyped } from "../eval/timeout.js";
import { unknownKeysMessage } from "../known-keys.js";
import { type UsageReport, usageReportKeys } from "./types.js";

const fields = Object.keys(usageReportKeys) as (keyof UsageReport)[];

/** Collects what an adapter reports through ctx.reportUsage during one attempt. */
export class UsageCollector {
  private readonly totals: Partial<Record<(typeof fields)[number], number>> = {};

  constructor(private readonly where: string) {}

  report(usage: UsageReport): void {
    this.refuseUnknownKeys(usage);
    for (const field of fields) {
      const value = usage?.[field];
      if (value === undefined) continue;
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
        throw new NiceevalError(
          "USAGE_INVALID",
          `${this.where}: reportUsage({ ${field} }) got ${givenTyped(value)}; report a finite number >= 0 or leave the field out`,
        );
      }
    }
    this.refuseShortTotal(usage);
    for (const field of fields) {
      const value = usage?.[field];
      if (value !== undefined) this.totals[field] = (this.totals[field] ?? 0) + value;
    }
  }

  /** A misspelt field (`input_tokens`) would leave the usage "never reported" without a word. */
  private refuseUnknownKeys(usage: unknown): void {
    if (typeof usage !== "object" || usage === null) return;
    const unknown = Object.keys(usage).filter((key) => !Object.hasOwn(usageReportKeys, key));
    if (unknown.length === 0) return;
    throw new NiceevalError(
      "USAGE_INVALID",
      `${this.where}: reportUsage(...) got ${unknownKeysMessage(unknown, fields)}`,
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
      `${this.where}: reportUsage({ inputTokens: ${inputTokens}, outputTokens: ${outputTokens}, totalTokens: ${totalTokens} }): totalTokens is less than inputTokens + outputTokens (${inputTokens + outputTokens}); report the total the provider gave, or leave totalTokens out and it is their sum`,
    );
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
