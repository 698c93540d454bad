import * as z from "zod";
import type { KnownKeys } from "../../known-keys.js";
import { type Score, scoreSchema } from "../../score/score.js";
import { toolInputError } from "../../tool/run-tool.js";
import { defineTool, hasOnlyKeys, implementBuiltInTool, isObjectInput } from "../../tool/tool.js";
import { scorerInputSchema } from "../tool-input.js";
import { preview } from "./preview.js";

const LABEL = "exact-match";

/** Input of the `eval.exact-match` scorer. */
export interface ExactMatchInput {
  /** The text produced. */
  actual: string;
  /** The text wanted. */
  expected: string;
  /** Trim leading and trailing whitespace (Unicode whitespace included) from both before comparing. */
  trim?: boolean | undefined;
}
const inputKeys = {
  actual: true,
  expected: true,
  trim: true,
} satisfies KnownKeys<ExactMatchInput>;
const INPUT_KEYS = new Set(Object.keys(inputKeys));

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/**
 * Index of the first UTF-16 unit where two strings differ (the shorter length when one is a
 * prefix), at the start of its character: 😀 and 😁 share their first unit, and differ at 0.
 */
function firstDifference(a: string, b: string): number {
  const end = Math.min(a.length, b.length);
  let index = 0;
  while (index < end && a.charCodeAt(index) === b.charCodeAt(index)) index++;
  const split = isLow(a.charCodeAt(index)) || isLow(b.charCodeAt(index));
  return index > 0 && split && isHigh(a.charCodeAt(index - 1)) ? index - 1 : index;
}

/** How many characters (code points) `text` holds before the UTF-16 index `unit`. */
function characterIndex(text: string, unit: number): number {
  let count = 0;
  for (let i = 0; i < unit; i++)
    if (!(isLow(text.charCodeAt(i)) && i > 0 && isHigh(text.charCodeAt(i - 1)))) count++;
  return count;
}

/**
 * Score 1 when `actual` equals `expected` (after an optional trim), else 0.
 * The comparison is code unit for code unit: "é" composed and "é" decomposed differ.
 * @throws ToolInputError naming the field, as the tool does, when `actual` or `expected` is not a
 * string, `trim` not a boolean, or a key misspells one of these (`trimm`: "did you mean"); in a
 * scorer: an errored judgment, never a failed 0.
 * @example
 * exactMatch({ actual: "hello", expected: "hello" });
 * // → { value: 1, passed: true, label: "exact-match", rationale: "actual equals expected" }
 */
export function exactMatch(input: ExactMatchInput): Score {
  // An input with other keys may still be one the schema takes (a wider object): it decides.
  if (!acceptsInput(input)) {
    const error = toolInputError(exactMatchTool, input);
    if (error) throw error;
  }
  const actual = input.trim ? input.actual.trim() : input.actual;
  const expected = input.trim ? input.expected.trim() : input.expected;
  if (actual === expected) {
    return { value: 1, passed: true, label: LABEL, rationale: "actual equals expected" };
  }
  const at = firstDifference(actual, expected);
  return {
    value: 0,
    passed: false,
    label: LABEL,
    rationale: `actual differs from expected at character ${characterIndex(actual, at)}: actual ${preview(actual)}, expected ${preview(expected)}${unseen(actual, expected, at)}`,
  };
}

/** Characters a quoted preview does not show as themselves: marks, controls, spaces but " ". */
const HIDDEN = /[\s\p{C}\p{M}\p{Z}]/u;

/**
 * What the previews cannot show: where they read alike (a composed and a decomposed "é", a
 * no-break space for a space, a difference past the cut), the code points there; and two texts
 * that are one in another Unicode normalisation, with each one's form.
 */
function unseen(actual: string, expected: string, at: number): string {
  const notes: string[] = [];
  if (readAlike(actual, expected, at))
    notes.push(`there ${codePointAt(actual, at)} against ${codePointAt(expected, at)}`);
  if (actual.normalize("NFC") === expected.normalize("NFC"))
    notes.push(
      `the same text in another Unicode normalisation: actual ${form(actual)}, expected ${form(expected)}`,
    );
  return notes.length === 0 ? "" : ` (${notes.join("; ")})`;
}

function readAlike(actual: string, expected: string, at: number): boolean {
  if (preview(actual).normalize("NFC") === preview(expected).normalize("NFC")) return true;
  const hidden = (text: string) => {
    const char = String.fromCodePoint(text.codePointAt(at) ?? 0x20);
    return char !== " " && HIDDEN.test(char);
  };
  return hidden(actual) || hidden(expected);
}

function codePointAt(text: string, at: number): string {
  const cp = text.codePointAt(at);
  return cp === undefined ? "the end" : `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
}

function form(text: string): string {
  if (text === text.normalize("NFC")) return "NFC";
  return text === text.normalize("NFD") ? "NFD" : "neither NFC nor NFD";
}

/** The `eval.exact-match` tool contract. */
export const exactMatchTool = defineTool({
  id: "eval.exact-match",
  description: "Score 1 when actual equals expected (after an optional trim), else 0.",
  inputSchema: scorerInputSchema({
    actual: z.string(),
    expected: z.string(),
    // Optional keys take an explicit undefined as omitted, as the input types say.
    trim: z.boolean().optional(),
  }),
  outputSchema: scoreSchema,
});

/** The implementation of `eval.exact-match`, bundled in `evalScorersProvider`. */
export const exactMatchImpl = implementBuiltInTool(exactMatchTool, exactMatch, acceptsInput);

/** What the input schema accepts unchanged. */
function acceptsInput(input: unknown): boolean {
  return (
    isObjectInput(input) &&
    hasOnlyKeys(input, INPUT_KEYS) &&
    typeof input.actual === "string" &&
    typeof input.expected === "string" &&
    (input.trim === undefined || typeof input.trim === "boolean")
  );
}
