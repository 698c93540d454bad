import { AuthoringError } from "../../errors.js";
import { type KnownKeys, refuseMisspeltKeys } from "../../known-keys.js";
import { joinWords } from "../../plural.js";
import { stringList } from "../string-list.js";
import { show } from "./preview.js";

/** One tool call made during a run. */
export interface ToolCall {
  /** The tool's name, as the model called it. */
  toolName: string;
  input?: unknown;
  output?: unknown;
}

/** An agent run as `calls` sees it: its reply and the tools it called, in order. */
export interface AgentRun {
  text?: string | undefined;
  calls: readonly ToolCall[];
}

/** The tools a run should use, must not use, and may use only once (tool names as the model calls them). */
export interface ExpectedCalls {
  /** Tools the run must call at least once. */
  mustCall?: string[] | undefined;
  /** Tools the run must never call. */
  mustNotCall?: string[] | undefined;
  /** Tools the run may call, but no more than once (a restart, a payment). */
  atMostOnce?: string[] | undefined;
}

const expectedCallsKeys = {
  mustCall: true,
  mustNotCall: true,
  atMostOnce: true,
} satisfies KnownKeys<ExpectedCalls>;

/** A score from 0 to 1, and the reason for it. */
export interface Mark {
  /** From 0 (failed) to 1 (passed). */
  score: number;
  /** Why the run got this score, in words. */
  reason: string;
}

function times(count: number): string {
  return count === 1 ? "1 time" : `${count} times`;
}

/** Calls listed one by one in a reason; the rest are counted by tool. */
const LISTED_CALLS = 50;
/** Tools counted by name after the listed calls; past these, only how many more there were. */
const COUNTED_TOOLS = 100;
/** Broken rules written out; past these, only how many more. */
const LISTED_RULES = 20;

/**
 * The run's calls for a reason: the first {@link LISTED_CALLS} in order, then how many more there
 * were of each tool (every tool the run used stays named, as seed 000 says, up to
 * {@link COUNTED_TOOLS} of them), so 100,000 calls make a short reason, not a 900 kB one. Names
 * are quoted and cut ({@link show}): "search " is not "search", and a name may be megabytes long.
 */
function toolsUsed(names: readonly string[]): string {
  if (names.length === 0) return "(none)";
  if (names.length <= LISTED_CALLS) return names.map(show).join(", ");
  const rest = new Map<string, number>();
  for (let i = LISTED_CALLS; i < names.length; i++) {
    const name = names[i] as string;
    rest.set(name, (rest.get(name) ?? 0) + 1);
  }
  const counted = [...rest]
    .slice(0, COUNTED_TOOLS)
    .map(([name, count]) => `${show(name)} ×${count}`)
    .join(", ");
  const more = rest.size > COUNTED_TOOLS ? ` and ${rest.size - COUNTED_TOOLS} other tools` : "";
  return `${names.slice(0, LISTED_CALLS).map(show).join(", ")}, then ${names.length - LISTED_CALLS} more calls: ${counted}${more}`;
}

/** The broken rules for a reason: the first {@link LISTED_RULES}, then how many more. */
function brokenRules(broken: readonly string[]): string {
  if (broken.length <= LISTED_RULES) return broken.join("; ");
  return `${broken.slice(0, LISTED_RULES).join("; ")}; and ${broken.length - LISTED_RULES} more broken rules`;
}

/** Refuse a tool both required and forbidden: no run could keep both rules. */
function refuseContradiction(mustCall: readonly string[], mustNotCall: readonly string[]): void {
  const forbidden = new Set(mustNotCall);
  const both = [...new Set(mustCall.filter((name) => forbidden.has(name)))];
  if (both.length === 0) return;
  const names = joinWords(both.map((name) => show(name)));
  throw new AuthoringError(
    `calls: ${names} ${both.length === 1 ? "is" : "are"} in both expected.mustCall and expected.mustNotCall, so no run can pass; remove ${both.length === 1 ? "it" : "each"} from the list it does not belong in`,
  );
}

/**
 * Score a run on the tools it called: 1 when every rule of `expected` is kept, else 0.
 * The reason lists every broken rule, then every tool the run used, in order (past 50 calls,
 * the rest counted by tool: 'then 99950 more calls: "search" ×60000, "fetch" ×39950'). Free and
 * deterministic: it counts calls and asks no model.
 * @example
 * calls({ calls: [{ toolName: "restart" }, { toolName: "restart" }] }, { mustCall: ["search"], atMostOnce: ["restart"] });
 * // → { score: 0, reason: 'missing required call: "search"; "restart" called 2 times (at most once). Tools used, in order: "restart", "restart"' }
 * @throws AuthoringError when the run is not `{ calls: [{ toolName }, …] }`, a rule is not a list
 * of names, a tool is in both `mustCall` and `mustNotCall` (no run could pass), or `expected`
 * has a key it does not know (`mustcall`: "did you mean"): in a scorer,
 * an errored judgment with the reason, never a silent pass or a failed 0.
 */
export function calls(result: AgentRun, expected: ExpectedCalls): Mark {
  // A run of another shape is the author's to fix: scored, it would be a failed 0 the run never earned.
  const made = toolCallsOf("calls", result, true);
  refuseMisspeltKeys("calls", expected, expectedCallsKeys, "expected");
  const mustCall = stringList("calls", expected, "mustCall", "tool name");
  const mustNotCall = stringList("calls", expected, "mustNotCall", "tool name");
  const atMostOnce = stringList("calls", expected, "atMostOnce", "tool name");
  refuseContradiction(mustCall, mustNotCall);
  const counts = new Map<string, number>();
  const names: string[] = [];
  for (const call of made) {
    names.push(call.toolName);
    counts.set(call.toolName, (counts.get(call.toolName) ?? 0) + 1);
  }
  const broken: string[] = [];
  for (const name of mustCall) {
    if (!counts.has(name)) broken.push(`missing required call: ${show(name)}`);
  }
  for (const name of mustNotCall) {
    const count = counts.get(name);
    if (count) {
      broken.push(`called forbidden tool: ${show(name)}${count > 1 ? ` (${times(count)})` : ""}`);
    }
  }
  for (const name of atMostOnce) {
    const count = counts.get(name) ?? 0;
    if (count > 1) broken.push(`${show(name)} called ${times(count)} (at most once)`);
  }
  const used = `Tools used, in order: ${toolsUsed(names)}`;
  return broken.length
    ? { score: 0, reason: `${brokenRules(broken)}. ${used}` }
    : { score: 1, reason: `every call rule kept. ${used}` };
}

/**
 * The tool calls of a run, each checked to have its `toolName`; `required`: a run without a
 * `calls` array is refused too (else it has none). Throws AuthoringError naming `scorer`.
 */
export function toolCallsOf(scorer: string, result: AgentRun, required: boolean): ToolCall[] {
  const made = Array.isArray(result?.calls) ? result.calls : undefined;
  if (!made) {
    if (!required && result?.calls === undefined) return [];
    throw new AuthoringError(
      `${scorer}: the run has no \`calls\` array: pass { calls: [{ toolName }, …] } (empty when no tool ran)`,
    );
  }
  for (let i = 0; i < made.length; i++) {
    const call = made[i];
    if (typeof call?.toolName !== "string") {
      throw new AuthoringError(
        `${scorer}: call ${i + 1} of the run has no \`toolName\` (a string; got ${show(call)}): pass { calls: [{ toolName }, …] }`,
      );
    }
  }
  return made;
}
