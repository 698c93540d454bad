import * as z from "zod";
import { compileLinearRegex, type LinearRegex } from "../../expect/linear-regex.js";
import type { KnownKeys } from "../../known-keys.js";
import { type Score, scoreSchema } from "../../score/score.js";
import { toolInputError } from "../../tool/run-tool.js";
import { defineTool, hasOnlyKeys, implementBuiltInTool, isObjectInput } from "../../tool/tool.js";
import { scorerInputSchema } from "../tool-input.js";
import { previewRegex } from "./preview.js";

const LABEL = "regex-match";

/** Compiled patterns kept; the oldest is dropped past this, so a stream of distinct patterns stays bounded. */
const CACHE_LIMIT = 512;

/** Input of the `eval.regex-match` scorer. */
export interface RegexMatchInput {
  /** The text produced. */
  actual: string;
  /** A JavaScript regular expression source, without slashes. */
  pattern: string;
  /** RegExp flags: `i`, `m`, `s`, `u` as in JavaScript; `y` anchors at the start; `g` and `d` are ignored. */
  flags?: string | undefined;
}
const inputKeys = {
  actual: true,
  pattern: true,
  flags: true,
} satisfies KnownKeys<RegexMatchInput>;
const INPUT_KEYS = new Set(Object.keys(inputKeys));

/** A compiled pattern with its rationales made once, so a scored call allocates only its Score. */
type Compiled =
  | { readonly regex: LinearRegex; readonly matched: string; readonly missed: string }
  | { readonly regex: null; readonly problem: string };

const cache = new Map<string, Compiled>();
// The pattern of the call before: a suite scores every case with the same one, so most calls
// find it here without building the key. Compiling is deterministic, so it stays right.
let last: { pattern: string; flags: string; compiled: Compiled } | undefined;

function compile(pattern: string, flags: string): Compiled {
  if (last !== undefined && last.pattern === pattern && last.flags === flags) return last.compiled;
  const compiled = compileCached(pattern, flags);
  last = { pattern, flags, compiled };
  return compiled;
}

function compileCached(pattern: string, flags: string): Compiled {
  const key = `${flags}/${pattern}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const result = compileLinearRegex(pattern, flags);
  const shown = previewRegex(pattern, flags);
  const compiled: Compiled = result.ok
    ? {
        regex: result.regex,
        matched: `actual matches ${shown}`,
        missed: `actual does not match ${shown}`,
      }
    : {
        regex: null,
        problem: result.problem === "invalid" ? `invalid pattern: ${result.reason}` : result.reason,
      };
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, compiled);
  return compiled;
}

/**
 * Score 1 when the pattern matches `actual`, else 0, in time linear in `actual` whatever the
 * pattern (RE2, through re2js). Never throws: an invalid pattern or flag (rationale
 * "invalid pattern: …"), one RE2 cannot run (a backreference, a lookahead) or an input of
 * another shape (`actual: 5`: rationale "invalid input: actual: …", naming the field as the
 * tool's ToolInputError does; `flag: "i"`: "did you mean \"flags\"") gives an errored Score that
 * says what to change, never a failed 0.
 * @example
 * regexMatch({ actual: "Order #123", pattern: "#\\d+" }).passed; // true
 */
export function regexMatch(input: RegexMatchInput): Score {
  // An input with other keys may still be one the schema takes (a wider object): it decides.
  if (!acceptsInput(input)) {
    const invalid = invalidInput(input);
    if (invalid) return invalid;
  }
  const compiled = compile(input.pattern, input.flags ?? "");
  if (compiled.regex === null) {
    return { value: 0, passed: false, errored: true, label: LABEL, rationale: compiled.problem };
  }
  return compiled.regex.test(input.actual)
    ? { value: 1, passed: true, label: LABEL, rationale: compiled.matched }
    : { value: 0, passed: false, label: LABEL, rationale: compiled.missed };
}

/** The `eval.regex-match` tool contract. */
export const regexMatchTool = defineTool({
  id: "eval.regex-match",
  description:
    "Score 1 when the regular expression matches actual, else 0, in linear time (RE2); an invalid or unsupported pattern is errored.",
  inputSchema: scorerInputSchema({
    actual: z.string(),
    pattern: z.string(),
    // Optional keys take an explicit undefined as omitted, as the input types say.
    flags: z.string().optional(),
  }),
  outputSchema: scoreSchema,
});

/** The implementation of `eval.regex-match`, bundled in `evalScorersProvider`. */
export const regexMatchImpl = implementBuiltInTool(regexMatchTool, regexMatch, acceptsInput);

/** What the input schema accepts unchanged. */
function acceptsInput(input: unknown): boolean {
  return (
    isObjectInput(input) &&
    hasOnlyKeys(input, INPUT_KEYS) &&
    typeof input.actual === "string" &&
    typeof input.pattern === "string" &&
    (input.flags === undefined || typeof input.flags === "string")
  );
}

/**
 * The errored Score of an input the tool refuses, naming the field as its ToolInputError does;
 * undefined when the tool takes it.
 */
function invalidInput(input: unknown): Score | undefined {
  const issue = toolInputError(regexMatchTool, input)?.issues[0];
  if (issue === undefined) return undefined;
  const rationale = `invalid input: ${issue.path || "(root)"}: ${issue.message}`;
  return { value: 0, passed: false, errored: true, label: LABEL, rationale };
}
