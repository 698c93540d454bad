import { Buffer } from "node:buffer";
import { AuthoringError } from "../errors.js";
import { type KnownKeys, refuseUnknownKeys } from "../known-keys.js";

/** Limits on the material a match may read; over any of them the material is unavailable. */
export interface CaptureBudget {
  /** Items in the collection read. */
  readonly maxItems: number;
  /** Approximate JSON size of the material, in UTF-8 bytes. */
  readonly maxBytes: number;
  /** Values walked (each primitive, array and object counts one). */
  readonly maxNodes: number;
  /** Nesting depth below the collection (an item is depth 1). */
  readonly maxDepth: number;
}
/** A budget as a definition gives it: any field left out (or undefined) takes its default. */
export type CaptureLimits = { [K in keyof CaptureBudget]?: CaptureBudget[K] | undefined };

const captureBudgetKeys = {
  maxItems: true,
  maxBytes: true,
  maxNodes: true,
  maxDepth: true,
} satisfies KnownKeys<CaptureBudget>;

/** Defaults for any budget field left out: 1,024 items, 1 MiB, 65,536 values, depth 32. */
export const defaultCapture: CaptureBudget = Object.freeze({
  maxItems: 1024,
  maxBytes: 1024 * 1024,
  maxNodes: 65_536,
  maxDepth: 32,
});

/** Hard maxima, rejected above when the match is built: 16,384 items, 16 MiB, 1,048,576 values, depth 256. */
export const maxCapture: CaptureBudget = Object.freeze({
  maxItems: 16_384,
  maxBytes: 16 * 1024 * 1024,
  maxNodes: 1_048_576,
  maxDepth: 256,
});

/** Fill in defaults and reject invalid or over-maximum fields (at build time). */
export function resolveCapture(where: string, capture: CaptureLimits | undefined): CaptureBudget {
  refuseUnknownKeys(where, capture, captureBudgetKeys, "capture");
  const resolved = { ...defaultCapture };
  for (const key of Object.keys(defaultCapture) as (keyof CaptureBudget)[]) {
    const value = capture?.[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value <= 0 || value > maxCapture[key]) {
      throw new AuthoringError(
        `${where}: capture.${key} must be a whole number from 1 to ${maxCapture[key]}, got ${String(value)}`,
      );
    }
    resolved[key] = value;
  }
  return resolved;
}

const EXIT = -1;

/**
 * Walk `value` iteratively and return why it exceeds `budget` (a reason starting with
 * "capacity-limited"), or undefined when it fits. Cycles are reported, never followed.
 */
export function overBudget(items: readonly unknown[], budget: CaptureBudget): string | undefined {
  if (items.length > budget.maxItems) {
    return `capacity-limited: ${items.length} items, over maxItems ${budget.maxItems}`;
  }
  const values: unknown[] = [items];
  const depths: number[] = [0];
  const onPath = new Set<object>();
  let nodes = 0;
  let bytes = 0;
  // Strings count by UTF-16 length; `wide` is how much more UTF-8 could need (settled at the end).
  let wide = 0;
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop()!;
    if (depth === EXIT) {
      onPath.delete(value as object);
      continue;
    }
    if (++nodes > budget.maxNodes)
      return `capacity-limited: more than maxNodes ${budget.maxNodes} values`;
    if (depth > budget.maxDepth)
      return `capacity-limited: nesting deeper than maxDepth ${budget.maxDepth}`;
    switch (typeof value) {
      case "string":
        bytes += value.length + 3;
        wide += value.length * 2;
        break;
      case "number":
        bytes += 12;
        break;
      case "boolean":
        bytes += 6;
        break;
      case "object": {
        if (value === null) {
          bytes += 5;
          break;
        }
        if (onPath.has(value))
          return "capacity-limited: cyclic reference; material must be a finite tree";
        onPath.add(value);
        values.push(value);
        depths.push(EXIT);
        if (Array.isArray(value)) {
          bytes += 2 + value.length;
          for (let i = value.length - 1; i >= 0; i--) {
            values.push(value[i]);
            depths.push(depth + 1);
          }
        } else {
          bytes += 2;
          for (const key in value) {
            if (!Object.hasOwn(value, key)) continue;
            bytes += key.length + 4;
            values.push((value as Record<string, unknown>)[key]);
            depths.push(depth + 1);
          }
        }
        break;
      }
      default:
        bytes += 4;
    }
    if (bytes > budget.maxBytes)
      return `capacity-limited: more than maxBytes ${budget.maxBytes} bytes`;
  }
  if (bytes + wide > budget.maxBytes && exactBytes(items) > budget.maxBytes) {
    return `capacity-limited: more than maxBytes ${budget.maxBytes} bytes`;
  }
  return undefined;
}

/**
 * Why `items` exceed `budget`, as overBudget says it, naming the match (`where`) and what to do:
 * raise the limit up to its maximum, or, at the maximum, read less.
 */
export function overBudgetOf(
  items: readonly unknown[],
  budget: CaptureBudget,
  where: string,
): string | undefined {
  const reason = overBudget(items, budget);
  if (reason === undefined) return undefined;
  const split = reason.indexOf("; ");
  const what = split < 0 ? reason : reason.slice(0, split);
  return `${what} in ${where}; ${split < 0 ? budgetAdvice(reason, budget) : reason.slice(split + 2)}`;
}

function budgetAdvice(reason: string, budget: CaptureBudget): string {
  const key = (Object.keys(maxCapture) as (keyof CaptureBudget)[]).find((k) => reason.includes(k));
  if (key === undefined) return "read less";
  return budget[key] < maxCapture[key]
    ? `raise its capture.${key} (at most ${maxCapture[key]}) or read less`
    : `capture.${key} is at its maximum: read less (select or page the items in read)`;
}

/** Exact UTF-8 size of the JSON text, only computed near the limit (the walk ruled out cycles). */
function exactBytes(items: readonly unknown[]): number {
  try {
    return Buffer.byteLength(JSON.stringify(items) ?? "", "utf8");
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
