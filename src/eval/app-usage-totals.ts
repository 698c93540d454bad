import { type AppUsage, unreportedUsage } from "./record.js";

/** The fields of an application's usage, in the order reports show them. */
export const APP_USAGE_FIELDS = ["inputTokens", "outputTokens", "totalTokens", "costUsd"] as const;

export type AppUsageField = (typeof APP_USAGE_FIELDS)[number];

/**
 * The application's usage (what adapters reported through `ctx.reportUsage`) totalled over an
 * eval's or a run's attempts. An attempt that reported nothing is counted in `unreported` and in no
 * sum (never as zero); a field no attempt reported has no sum.
 */
export interface AppUsageTotals {
  /** Attempts that reported some usage. */
  reported: number;
  /** Attempts that reported none: left out of every sum. */
  unreported: number;
  /** Sums over the attempts that reported the field; absent when none did. */
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  costUsd?: number;
  /**
   * Attempts that reported usage but not this field (a cost without tokens, tokens without a
   * cost), by field: its sum leaves them out. Absent when every reporting attempt gave every field.
   */
  missing?: Partial<Record<AppUsageField, number>>;
}

export const emptyAppUsageTotals = (): AppUsageTotals => ({ reported: 0, unreported: 0 });

/** Add one attempt's usage into `into` (mutates `into`). */
export function addAppUsage(into: AppUsageTotals, usage: AppUsage): AppUsageTotals {
  // The common case: nobody reported anything (one shared value).
  if (usage === unreportedUsage()) {
    into.unreported++;
    return into;
  }
  let reported = false;
  for (const field of APP_USAGE_FIELDS) if (usage[field].state === "available") reported = true;
  if (!reported) {
    into.unreported++;
    return into;
  }
  into.reported++;
  for (const field of APP_USAGE_FIELDS) {
    const evidence = usage[field];
    if (evidence.state === "available") into[field] = (into[field] ?? 0) + evidence.value;
    else addMissing(into, field, 1);
  }
  return into;
}

/** Add totals `more` into `into` (mutates `into`): a run's from its evals'. */
export function addAppUsageTotals(
  into: AppUsageTotals,
  more: AppUsageTotals | undefined,
): AppUsageTotals {
  if (!more) return into;
  into.reported += more.reported;
  into.unreported += more.unreported;
  for (const field of APP_USAGE_FIELDS) {
    const sum = more[field];
    if (sum !== undefined) into[field] = (into[field] ?? 0) + sum;
    const missing = more.missing?.[field];
    if (missing) addMissing(into, field, missing);
  }
  return into;
}

function addMissing(into: AppUsageTotals, field: AppUsageField, count: number): void {
  into.missing ??= {};
  into.missing[field] = (into.missing[field] ?? 0) + count;
}
