import { AuthoringError } from "../../errors.js";
import { askForVerdict, type Checked } from "../../judge/ask.js";
import { requireJudgeSource } from "../../judge/call.js";
import { JudgeUnavailableError } from "../../judge/unavailable.js";
import { type KnownKeys, refuseMisspeltKeys } from "../../known-keys.js";
import { plural } from "../../plural.js";
import { valueKind } from "../../required.js";
import { type AgentRun, type Mark, toolCallsOf } from "../deterministic/calls.js";
import { stringList } from "../string-list.js";
import { type ExpectationLine, expectationsRequest } from "./expectations-prompt.js";

/** What was true when the run happened, and what the agent should and should not have done. */
export interface ExpectedOutcome {
  /** What was true at the time, in words, such as "The site has been down for an hour." Shown to the judging model. */
  situation?: string | undefined;
  /** Things the agent should have said or done, one per line, such as "says which site is down". */
  should?: string[] | undefined;
  /** Things the agent should not have said or done, one per line. */
  shouldNot?: string[] | undefined;
}

const expectedOutcomeKeys = {
  situation: true,
  should: true,
  shouldNot: true,
} satisfies KnownKeys<ExpectedOutcome>;

interface Check {
  met: boolean;
  why: string;
}

/**
 * Score a run against `expected` by asking a model to judge it: every `should` / `shouldNot`
 * line is checked, the score is the share of lines met, and the reason names each missed line
 * and why. One model call, a second only when the first answer is not usable JSON; no lines
 * → 1 with no call.
 * @throws AuthoringError when `expected` has a key it does not know (`shoud`: "did you mean"), or
 * a list that is not one of strings.
 * @throws JudgeUnavailableError (code JUDGE_UNAVAILABLE) when the judge cannot decide: no key
 * or endpoint configured (the message names the variable to set), calls that finally failed,
 * or answers that stayed malformed. Runners report that as unavailable, never as a score.
 * @example
 * const mark = await expectations("Is the site up?", run, { should: ["says which site is down"] }, "anthropic/claude-haiku-4.5");
 */
export async function expectations(
  prompt: string,
  result: AgentRun,
  expected: ExpectedOutcome,
  model: string,
  purpose?: string,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<Mark> {
  requireJudgeSource("expectations", "model", model);
  if (typeof result !== "object" || result === null)
    throw new AuthoringError(
      `expectations: \`result\` must be the run to judge, { text, calls }; got ${valueKind(result)}`,
    );
  // A misspelt list (`shoud`) would leave no lines, and a 1 no model gave.
  refuseMisspeltKeys("expectations", expected, expectedOutcomeKeys, "expected");
  const lines: ExpectationLine[] = [
    ...stringList("expectations", expected, "should", "line").map((text) => ({
      kind: "should" as const,
      text,
    })),
    ...stringList("expectations", expected, "shouldNot", "line").map((text) => ({
      kind: "should not" as const,
      text,
    })),
  ];
  // A call the judge would be shown as "undefined" is the author's to fix, not the agent's.
  toolCallsOf("expectations", result, false);
  if (lines.length === 0) return { score: 1, reason: "no should or shouldNot lines to judge" };
  const request = expectationsRequest(prompt, result, expected.situation, purpose, lines);
  const answer = await askForVerdict(
    model,
    request,
    (data) => checkChecks(data, lines.length),
    options,
  );
  if (!answer.ok) throw new JudgeUnavailableError(answer.kind, model, answer.reason);
  const checks = answer.value;
  const missed = lines.flatMap((line, index) => {
    const check = checks[index] as Check;
    return check.met ? [] : [`${line.kind} "${line.text}"${check.why ? `: ${check.why}` : ""}`];
  });
  const met = lines.length - missed.length;
  const reason =
    missed.length === 0
      ? `all ${lines.length} expectations met`
      : `${met}/${lines.length} expectations met; missed ${missed.join("; ")}`;
  return { score: met / lines.length, reason };
}

/** The judge's checks, in line order; a wrong count, a bad id or a non-boolean `met` is a problem to repair. */
export function checkChecks(data: unknown, count: number): Checked<Check[]> {
  const checks = unwrapped((data as { checks?: unknown } | null)?.checks);
  if (!Array.isArray(checks)) return { ok: false, problem: 'the answer has no "checks" array' };
  if (checks.length !== count) {
    return {
      ok: false,
      problem: `it judged ${plural(checks.length, "requirement")} but there ${count === 1 ? "is 1" : `are ${count}`}; give exactly one check per requirement`,
    };
  }
  const ordered: (Check | undefined)[] = new Array(count).fill(undefined);
  for (const [position, item] of checks.entries()) {
    if (typeof item !== "object" || item === null)
      return { ok: false, problem: `check ${position + 1} is not an object` };
    const { id, met, why } = item as { id?: unknown; met?: unknown; why?: unknown };
    // A missing id falls back to the position; a present one must name a requirement once.
    const index =
      id === undefined ? position : typeof id === "number" && Number.isInteger(id) ? id - 1 : -1;
    if (index < 0 || index >= count)
      return {
        ok: false,
        problem: `check ${position + 1} has id ${JSON.stringify(id)}, not a requirement number 1..${count}`,
      };
    if (ordered[index]) return { ok: false, problem: `requirement ${index + 1} was judged twice` };
    if (typeof met !== "boolean") {
      return {
        ok: false,
        problem: `requirement ${index + 1}: "met" must be a JSON boolean, got ${JSON.stringify(met)}`,
      };
    }
    ordered[index] = { met, why: typeof why === "string" ? why.trim() : "" };
  }
  return { ok: true, value: ordered as Check[] };
}

/**
 * The checks as given, or the array a string of them spells: a model filling a tool's input may
 * send a nested array as its JSON text (Claude does). Only a whole array is read so; the checks
 * in it are held to the same rules.
 */
function unwrapped(checks: unknown): unknown {
  if (typeof checks !== "string" || !checks.trimStart().startsWith("[")) return checks;
  try {
    const parsed: unknown = JSON.parse(checks);
    return Array.isArray(parsed) ? parsed : checks;
  } catch {
    return checks;
  }
}
