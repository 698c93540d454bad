/** How an item's scorer scores combine into the one number compared with the threshold. */
export type Aggregation = "mean" | "median" | "sum";

/** The aggregations evaluate() accepts, for validating user input. */
export const AGGREGATIONS: readonly Aggregation[] = ["mean", "median", "sum"];

/** Combine finite scores; an empty list aggregates to 0 (nothing earned). */
export function aggregate(values: readonly number[], aggregation: Aggregation): number {
  if (values.length === 0) return 0;
  if (aggregation === "sum") return values.reduce((total, value) => total + value, 0);
  if (aggregation === "mean")
    return values.reduce((total, value) => total + value, 0) / values.length;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  // An even count has two middle values; the median is their midpoint.
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
