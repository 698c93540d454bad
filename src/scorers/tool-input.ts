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
  return z.looseObject(shape).superRefine(misspeltKeysCheck(shape));
}
