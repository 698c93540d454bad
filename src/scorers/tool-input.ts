import * as z from "zod";
import { misspeltKeysCheck } from "../known-keys.js";

/**
 * The input schema of a built-in scorer tool: an object of `shape` that refuses a key misspelling
 * one of its own (`trimm`, `treshold`) as a ToolInputError saying which key was meant, where a
 * plain object would drop it and score without the option. Other keys pass, since a mapInput may
 * return a wider object. Typed as the plain object, so a misspelt key is a compile error too.
 * @example
 * scorerInputSchema({ actual: z.string(), trim: z.boolean().optional() });
 */
export function scorerInputSchema<Shape extends z.ZodRawShape>(
  shape: Shape,
): z.ZodType<z.output<z.ZodObject<Shape>>> {
  return keysChecked(shape);
}

/**
 * A loose object of `shape` that refuses a key misspelling one of its own, also when the object
 * fails otherwise: a misspelt required key (`durationMS`) is named with the key it meant, where
 * zod alone would say only that the meant key is undefined.
 */
export function keysChecked<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.looseObject(shape).superRefine(misspeltKeysCheck(shape), { when: () => true });
}

/**
 * A share from 0 to 1 (a ratio or a threshold). Outside that range the issue says what it got
 * and, for a number up to 100, the share a percentage meant: `must be a share from 0 to 1 (0.6
 * for 60%), got 60`.
 */
export function shareSchema(): z.ZodNumber {
  // min and max, not a refinement, so the JSON Schema an agent is shown keeps the bounds.
  const error = (issue: { input: unknown }) => {
    const value = issue.input as number;
    const hint = value > 1 && value <= 100 ? ` (${value / 100} for ${value}%)` : "";
    return `must be a share from 0 to 1${hint}, got ${value}`;
  };
  return z.number().min(0, { error }).max(1, { error });
}
