import { AuthoringError } from "../errors.js";
import { show } from "./deterministic/preview.js";

/**
 * The list of strings at `expected[field]` (empty when absent). A string where the list goes
 * would be read letter by letter, or not at all, and a forbidden tool or a "should not" line
 * would pass unchecked; a blank entry checks nothing. Either is the author's mistake, so it
 * throws, naming the field (and the entry).
 * @example
 * stringList("calls", { mustCall: ["search"] }, "mustCall", "tool name"); // ["search"]
 */
export function stringList<T extends object>(
  scorer: string,
  expected: T,
  field: keyof T & string,
  item: string,
): readonly string[] {
  if (expected === null || typeof expected !== "object")
    throw new AuthoringError(
      `${scorer}: expected must be an object such as { ${field}: ["…"] } (got ${show(expected)})`,
    );
  const list = expected[field] as unknown;
  if (list === undefined) return [];
  if (!Array.isArray(list))
    throw new AuthoringError(
      `${scorer}: expected.${field} must be a list of ${item}s (got ${show(list)}); write ${field}: [${typeof list === "string" ? JSON.stringify(list) : '"…"'}]`,
    );
  const bad = list.findIndex((entry) => typeof entry !== "string");
  if (bad >= 0)
    throw new AuthoringError(
      `${scorer}: expected.${field}[${bad}] must be a ${item}, a string (got ${show(list[bad])})`,
    );
  // A blank entry (a list split on newlines leaves one) checks nothing: a judge would decide it
  // anyway, and no tool has that name.
  const blank = list.findIndex((entry: string) => entry.trim() === "");
  if (blank >= 0)
    throw new AuthoringError(
      `${scorer}: expected.${field}[${blank}] is blank: remove it, or write the ${item} it stands for`,
    );
  return list;
}
