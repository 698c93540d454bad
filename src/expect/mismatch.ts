// Why a value is not the one `equals` expected: where the two first differ, and what each holds there.
import { plural } from "../plural.js";
import { clip, show } from "../scorers/deterministic/preview.js";
import { type Difference, firstDifference, type PathSegment } from "./deep-equal.js";
import { formatBeside, formatNumber, kindOf } from "./result.js";

/** A path segment or a whole path past these lengths is cut: a key may be megabytes long. */
const MAX_SEGMENT = 40;
const MAX_PATH = 160;

/**
 * The reason of an `equals` that did not match: two numbers with the digits that tell them apart,
 * two other values as bounded previews, and for objects and arrays the first place they differ as
 * a JSON pointer (`/items/2/price: observed 3, expected 4`).
 * @example
 * mismatchReason({ a: { b: 2 } }, { a: { b: 1 } }) // → "/a/b: observed 2, expected 1"
 */
export function mismatchReason(value: unknown, expected: unknown): string {
  const difference = firstDifference(value, expected);
  // deepEqual said they differ: a difference is there, but a reason must not depend on it.
  if (difference === undefined)
    return `observed ${shown(value)}, expected ${shownExpected(expected)}`;
  const at = difference.path.length === 0 ? "" : `${pointer(difference.path)}: `;
  return at + words(difference);
}

function words(difference: Difference): string {
  switch (difference.kind) {
    case "values":
      return `observed ${shown(difference.observed, difference.expected)}, expected ${shownExpected(difference.expected)}`;
    case "kinds":
      return `observed ${kindOf(difference.observed)}, expected ${kindOf(difference.expected)}`;
    case "missing":
      return `missing, expected ${shown(difference.expected)}`;
    case "extra":
      return `observed ${shown(difference.observed)}, not expected`;
    case "set-lacks":
      return `the Set lacks ${shown(difference.expected)}`;
    case "set-holds":
      return `the Set holds ${shown(difference.observed)}, not expected`;
  }
}

/** A value for a reason, bounded; a number beside another number with the digits that tell them apart. */
export function shown(value: unknown, other?: unknown): string {
  if (typeof value === "number")
    return typeof other === "number" ? formatBeside(value, other) : formatNumber(value);
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "function") return "a function";
  if (value instanceof Map)
    return `a Map of ${value.size} ${value.size === 1 ? "entry" : "entries"}`;
  if (value instanceof Set) return `a Set of ${plural(value.size, "item")}`;
  if (value instanceof Date)
    return Number.isNaN(value.getTime()) ? "Invalid Date" : `Date ${value.toISOString()}`;
  return show(value);
}

// A number expected in full, as the comparators write their threshold: the author's own constant.
const shownExpected = (value: unknown): string =>
  typeof value === "number" ? String(value) : shown(value);

/** The path as a JSON pointer (`/items/2/price`), each key and the whole cut to a readable length. */
function pointer(path: readonly PathSegment[]): string {
  const text = path.map((segment) => `/${pointerSegment(segment)}`).join("");
  return text.length > MAX_PATH
    ? `${text.slice(0, MAX_PATH / 2)}…${text.slice(-MAX_PATH / 2)}`
    : text;
}

function pointerSegment(segment: PathSegment): string {
  if (typeof segment === "number") return String(segment);
  // A Map's key that is not a string, as its preview in brackets.
  if (typeof segment !== "string") return `[${shown(segment)}]`;
  const cut = clip(segment, MAX_SEGMENT);
  // Control characters would break the reason's line: escaped, as JSON writes them.
  const control = [...cut].some((char) => char.charCodeAt(0) < 0x20);
  const printable = control ? JSON.stringify(cut).slice(1, -1) : cut;
  return printable.replaceAll("~", "~0").replaceAll("/", "~1");
}
