import { z } from "zod";
import { errorMessage } from "../../errors.js";
import { type Score, scoreSchema } from "../../score/score.js";
import { defineTool, implementTool } from "../../tool/tool.js";
import { mayBacktrackCatastrophically } from "./regex-safety.js";
import { testWithTimeout } from "./regex-sandbox.js";

const LABEL = "regex-match";

/** How long a pattern that may backtrack catastrophically may run before it fails the score. */
export const REGEX_TIMEOUT_MS = 1000;

/** Compiled patterns kept; the oldest is dropped past this, so a stream of distinct patterns stays bounded. */
const CACHE_LIMIT = 512;

/** Input of the `eval.regex-match` scorer. */
export interface RegexMatchInput {
  /** The text produced. */
  actual: string;
  /** A JavaScript regular expression source, without slashes. */
  pattern: string;
  /** RegExp flags such as "i" or "mu". */
  flags?: string | undefined;
}

/** A compiled pattern with its rationales made once, so a scored call allocates only its Score. */
interface Compiled {
  readonly regex: RegExp | null;
  /** Run in the time-limited worker rather than inline. */
  readonly guarded: boolean;
  readonly matched: string;
  readonly missed: string;
}

const cache = new Map<string, Compiled>();

function compile(pattern: string, flags: string): Compiled {
  const key = `${flags}/${pattern}`;
  const hit = cache.get(key);
  if (hit) return hit;
  let compiled: Compiled;
  try {
    const regex = new RegExp(pattern, flags);
    const shown = regex.toString();
    compiled = {
      regex,
      guarded: mayBacktrackCatastrophically(pattern, flags),
      matched: `actual matches ${shown}`,
      missed: `actual does not match ${shown}`,
    };
  } catch (error) {
    const invalid = `invalid pattern: ${errorMessage(error)}`;
    compiled = { regex: null, guarded: false, matched: invalid, missed: invalid };
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, compiled);
  return compiled;
}

/**
 * Score 1 when the pattern matches `actual`, else 0. Never throws: an invalid pattern or flag
 * gives a failed Score whose rationale starts with "invalid pattern:". A pattern that may
 * backtrack catastrophically (a repeated group holding a quantifier or an alternation, such as
 * `(a+)+`) runs in a worker thread and fails the score after {@link REGEX_TIMEOUT_MS}.
 * @example
 * regexMatch({ actual: "Order #123", pattern: "#\\d+" }).passed; // true
 */
export function regexMatch(input: RegexMatchInput): Score {
  const flags = input.flags ?? "";
  const compiled = compile(input.pattern, flags);
  const { regex } = compiled;
  if (regex === null) return { value: 0, passed: false, label: LABEL, rationale: compiled.missed };
  let matched: boolean | "timeout" | "error";
  if (compiled.guarded) {
    matched = testWithTimeout(input.pattern, flags, input.actual, REGEX_TIMEOUT_MS);
  } else {
    // `g` and `y` make test() stateful; start every call from the beginning.
    regex.lastIndex = 0;
    matched = regex.test(input.actual);
  }
  if (matched === true)
    return { value: 1, passed: true, label: LABEL, rationale: compiled.matched };
  if (matched === false)
    return { value: 0, passed: false, label: LABEL, rationale: compiled.missed };
  return {
    value: 0,
    passed: false,
    label: LABEL,
    rationale:
      matched === "timeout"
        ? `pattern ${regex} ran over ${REGEX_TIMEOUT_MS} ms on ${input.actual.length} chars and was stopped: it backtracks catastrophically; rewrite the repeated group (for example (a+)+ as a+)`
        : `pattern ${regex} could not be run in the regex worker`,
  };
}

/** The `eval.regex-match` tool contract. */
export const regexMatchTool = defineTool({
  id: "eval.regex-match",
  description:
    "Score 1 when the regular expression matches actual, else 0; an invalid pattern fails.",
  inputSchema: z.object({
    actual: z.string(),
    pattern: z.string(),
    flags: z.string().exactOptional(),
  }),
  outputSchema: scoreSchema,
});

/** The implementation of `eval.regex-match`, bundled in `evalScorersProvider`. */
export const regexMatchImpl = implementTool(regexMatchTool, regexMatch);
