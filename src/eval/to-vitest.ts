import { randomUUID } from "node:crypto";
import { AuthoringError } from "../errors.js";
import { DATASET_ERROR_ID } from "./ids.js";
import type { AttemptRecord, Judgment } from "./record.js";
import type { CaseSpec, Runnable } from "./runnable.js";
import { CaseIds, defineSuite, type Target, type TypedEvalSuite, toCaseSpec } from "./suite.js";
import { checkTimeoutMs, MAX_TIMER_MS } from "./timeout.js";

/** The part of an `expect` this bridge uses: Vitest's, Jest's or any compatible one. */
export type ExpectApi = (actual: unknown, message?: string) => { toBe(expected: unknown): void };

/** What a test function may receive from the runner; Vitest passes an abort signal on timeout. */
export interface VitestTestContext {
  readonly signal?: AbortSignal;
}

/** The test-registration functions toVitest needs, injected so niceeval imports no test runner. */
export interface VitestHooks {
  describe: (name: string, factory: () => void) => void;
  it: (name: string, fn: (context: VitestTestContext) => Promise<void>, timeout?: number) => void;
  expect: ExpectApi;
}

/** How the suite's cases run under Vitest. */
export interface ToVitestOptions<Input, Output> {
  /** Produces each case's output. */
  target: Target<Input, Output>;
  /** Vitest timeout of each case (target and scorers), ms; the runner's testTimeout when omitted. */
  timeout?: number;
}

/**
 * Register a suite as Vitest tests: `describe(suite.id)` with one `it(caseId)` per case, which
 * runs the case on the niceeval engine and asserts every scorer passed.
 * @example
 * import { describe, it, expect } from "vitest";
 * toVitest(suite, { target: async ({ prompt }) => answer(prompt) }, { describe, it, expect });
 */
export function toVitest<Input, Output>(
  suite: TypedEvalSuite<Input, Output>,
  options: ToVitestOptions<NoInfer<Input>, NoInfer<Output>>,
  hooks: VitestHooks,
): void {
  if (typeof options?.target !== "function") {
    throw new TypeError(`toVitest: suite "${suite.id}" needs \`options.target\`, a function`);
  }
  checkTimeoutMs(`toVitest("${suite.id}"): \`timeout\``, options.timeout, MAX_TIMER_MS);
  const runnable = defineSuite({
    id: suite.id,
    cases: suite.cases,
    target: options.target,
    scorers: suite.scorers,
  });
  const runId = `vitest-${randomUUID()}`;
  hooks.describe(suite.id, () => {
    // A suite that cannot judge anything is one failing test saying why, as it is an errored
    // eval in a run: never a describe whose cases all pass with nothing checked.
    const problem = suiteProblem(suite);
    if (problem !== undefined) {
      hooks.it(DATASET_ERROR_ID, async () => {
        throw new AuthoringError(problem);
      });
      return;
    }
    const ids = new CaseIds(suite.cases);
    const seen = new Map<string, number>();
    suite.cases.forEach((item, index) => {
      // The same spec as a run's: a bad item is an errored (failing) test saying why.
      const spec = toCaseSpec(item, index, ids);
      const first = seen.get(spec.id);
      if (first === undefined) seen.set(spec.id, index);
      hooks.it(
        spec.id,
        async (context) => {
          if (first !== undefined)
            throw new AuthoringError(
              `case id "${spec.id}" appears twice in suite "${suite.id}" (at index ${first} and ${index}); give each case a unique id`,
            );
          const record = await runCaseUnderTest(runnable, spec, runId, context);
          hooks.expect(record.verdict, caseFailureMessage(record)).toBe("passed");
        },
        options.timeout,
      );
    });
  });
}

/** Why a suite cannot be run as tests: no scorers, or no cases. */
function suiteProblem(suite: { id: string; cases: unknown; scorers: unknown }): string | undefined {
  if (!Array.isArray(suite.scorers) || suite.scorers.length === 0)
    return `suite "${suite.id}" has no scorers, so no case can pass or fail; add a bindScorer(...) or createScorer(...) scorer`;
  if (Array.isArray(suite.cases) && suite.cases.length === 0)
    return `suite "${suite.id}" has no cases; give it at least one`;
  return undefined;
}

/** Run one case on the engine with the test's abort signal (a never-aborted one without it). */
export function runCaseUnderTest(
  runnable: Pick<Runnable, "runCase">,
  spec: CaseSpec,
  runId: string,
  context: VitestTestContext | undefined,
): Promise<AttemptRecord> {
  const signal = context?.signal ?? new AbortController().signal;
  return runnable.runCase(spec, { runId, signal });
}

/** Why a case did not pass: the crash, then every judgment that did not match. */
export function caseFailureMessage(record: AttemptRecord): string {
  const lines = [`case "${record.caseId}" of "${record.evalId}" ${record.verdict}`];
  if (record.error) lines.push(`  ${record.error.where}: ${record.error.message}`);
  for (const judgment of record.judgments) {
    if (judgment.state !== "matched") lines.push(`  ${describeJudgment(judgment)}`);
  }
  return lines.join("\n");
}

/** One judgment as a line: label, state, value when it has one, and reason. */
export function describeJudgment(judgment: Judgment): string {
  const value = typeof judgment.value === "number" ? `, value ${judgment.value}` : "";
  return `${judgment.label}: ${judgment.state}${value} (${judgment.reason})`;
}
