import { realNow } from "../clock.js";
import { AuthoringError, errorMessage, thrownWhere } from "../errors.js";
import { attempts, flightEnded, flightStarted } from "../eval/in-flight.js";
import {
  type AppUsage,
  type AttemptRecord,
  addJudgeUsage,
  emptyJudgeUsage,
  erroredRecord,
  type Judgment,
  type ScoreSummary,
} from "../eval/record.js";
import type { AttemptContext, CaseSpec } from "../eval/runnable.js";
import { decideVerdict, roundPoints, summarizeScore } from "../eval/summarize.js";
import { Deadline, givenText, givenTyped } from "../eval/timeout.js";
import { TraceRecorder } from "../eval/trace.js";
import { trialLabel } from "../eval/trial-label.js";
import type { ContextCheck } from "../expect/context-match.js";
import { describeObserved, wrongTypeIn } from "../expect/result.js";
import type { AnyMatch, BooleanMatch, MatchResult, NumericMaterial } from "../expect/types.js";
import type { JudgeWait } from "../judge/ledger.js";
import { resolveCloseQAJudge } from "../judge/registry.js";
import { judgeWaitText } from "../judge/waiting.js";
import { type KnownKeys, refuseUnknownKeys } from "../known-keys.js";
import { thrownStack } from "../thrown-stack.js";
import { Assertion, type AssertionRules, type Outcome } from "./assertion.js";
import { askCloseQA, closeQALimits } from "./close-qa.js";
import { TestLifetime } from "./lifetime.js";
import { unreadEvidence, wrongTypeReason } from "./missing-fact.js";
import { overflowedScore, pointsOverflow } from "./points-overflow.js";
import { notFacts, shadowedAssertions, shadowedFacts } from "./reserved.js";
import type {
  AdapterCreateContext,
  AdapterDefinition,
  AssertionHandle,
  AssertionTools,
  CheckFn,
  CloseQAMaterial,
  CloseQAOptions,
  ScoreEvalDefinition,
  TestContext,
  UsageMaterial,
} from "./types.js";
import { UsageCollector } from "./usage.js";

/** Everything needed to run one attempt of an eval built from an adapter. */
export interface AttemptSetup<Facts, Assertions> {
  readonly evalId: string;
  readonly adapter: AdapterDefinition<Facts, Assertions>;
  readonly definition: ScoreEvalDefinition<Facts, Assertions>;
  readonly passFail: boolean;
}

/**
 * A check's outcome from its match result. A matcher given a value of a type it does not take
 * (undefined, a string for atMost) could not judge the application: errored, never a zero.
 */
function fromMatch(result: MatchResult, given?: { value: unknown }): Outcome {
  const wrong = result.state === "unavailable" ? wrongTypeIn(result) : undefined;
  if (wrong) {
    const reason = wrongTypeReason(wrong.reason, given);
    return { state: "errored", value: null, reason, detail: result };
  }
  return {
    state: result.state,
    value: result.state === "matched" ? 1 : result.state === "mismatched" ? 0 : null,
    reason: result.reason,
    detail: result,
  };
}

// Where in the user's code (a matcher's evaluate, a defineContextMatch read), as a target's error says it.
// Its whole stack is the judgment's detail.
const crashed = (what: string, error: unknown): Outcome => {
  const outcome: Outcome = {
    state: "errored",
    value: null,
    reason: `${what} threw: ${thrownWhere(error)}`,
  };
  const stack = thrownStack(error);
  if (stack !== undefined) outcome.detail = { stack };
  return outcome;
};

/** The reason of evidence given as unavailable; one given without a reason (JS, a cast) is "unavailable". */
const unavailableReason = (evidence: object): string =>
  String((evidence as { reason?: unknown }).reason ?? "unavailable");

/** Match a value given to t.check: facts and materials keep their state, plain values are available. */
function matchValue(value: unknown, anyMatch: AnyMatch): MatchResult {
  const match = anyMatch as unknown as BooleanMatch<unknown>;
  if (typeof value === "object" && value !== null && "state" in value) {
    const state = (value as { state: unknown }).state;
    if (state === "available" && "value" in value) {
      return match.evaluate((value as { value: unknown }).value);
    }
    if (state === "unavailable") {
      const reason = unavailableReason(value);
      return {
        state: "unavailable",
        name: match.name,
        expected: match.expects,
        reason,
        observed: "unavailable",
      };
    }
  }
  return match.evaluate(value);
}

/** `check(match)`: a context or material match evaluated over the facts, or an AuthoringError. */
function contextCheck<Facts>(
  checked: ContextCheck<Facts> | undefined,
  facts: Facts,
  rules: AssertionRules,
): { name: string; outcome: Outcome } {
  if (checked?.kind !== "context-match" && checked?.kind !== "material-match") {
    throw new AuthoringError(
      `check(match) in eval "${rules.evalId}": expected a match from defineContextMatch or defineMaterialMatch; to check a value, call check(value, match)`,
    );
  }
  try {
    return { name: checked.name, outcome: fromMatch(checked.evaluate(facts)) };
  } catch (error) {
    return { name: checked.name, outcome: crashed(`check "${checked.name}"`, error) };
  }
}

/** Build the attempt's assertion tools; every assertion made is pushed onto `made`. */
function assertionTools<Facts>(
  facts: Facts,
  made: Assertion[],
  rules: AssertionRules,
  judgeFor: () => ReturnType<typeof resolveCloseQAJudge>,
  signal: AbortSignal,
  via: { method: string | undefined },
): AssertionTools<Facts> {
  const add = (assertion: Assertion): AssertionHandle => {
    made.push(assertion);
    return assertion;
  };
  const check = ((...args: unknown[]) => {
    rules.lifetime.assertRunning(`${via.method ?? "t.check"}(...)`, check);
    if (args.length === 1) {
      const { name, outcome } = contextCheck(
        args[0] as ContextCheck<Facts> | undefined,
        facts,
        rules,
      );
      return add(new Assertion(via.method ?? "t.check", name, "condition", outcome, rules));
    }
    const match = args[1] as AnyMatch | undefined;
    if (match?.kind !== "match") {
      throw new AuthoringError(
        `check(value, match) in eval "${rules.evalId}": the second argument is not a match; build it with niceeval/expect (e.g. atMost(10_000))`,
      );
    }
    let outcome: Outcome;
    const unread = unreadEvidence(args[0]);
    try {
      outcome = unread
        ? { state: "errored", value: null, reason: unread }
        : fromMatch(matchValue(args[0], match), { value: args[0] });
    } catch (error) {
      // By its name: its `expects` (the judgment's label) says what it wanted, not which one threw.
      outcome = crashed(`matcher "${match.name}"`, error);
    }
    return add(new Assertion(via.method ?? "t.check", match.expects, "condition", outcome, rules));
  }) as CheckFn<Facts>;

  const score = (ratio: number | NumericMaterial, options: { weight: number }): AssertionHandle => {
    rules.lifetime.assertRunning(`${via.method ?? "t.score"}(...)`, score);
    if (rules.passFail) {
      throw new AuthoringError(
        `t.score(...) in eval "${rules.evalId}": this eval was made with defineEval (pass/fail only); use defineScoreEval to award points`,
      );
    }
    const weight = scoreWeight(`t.score(ratio, { weight }) in eval "${rules.evalId}"`, options);
    return add(
      new Assertion(
        via.method ?? "t.score",
        "score",
        "ratio",
        ratioOutcome(ratio, weight),
        rules,
        weight,
      ),
    );
  };

  const closeQA = (
    material: CloseQAMaterial<Facts>,
    question: string,
    options?: CloseQAOptions,
  ): AssertionHandle => {
    rules.lifetime.assertRunning(`${via.method ?? "t.closeQA"}(...)`, closeQA);
    const where = `t.closeQA(...) in eval "${rules.evalId}"`;
    if (typeof question !== "string" || question.trim() === "") {
      throw new AuthoringError(`${where}: the question must be a non-empty string`);
    }
    if (material === undefined || material === null) {
      throw new AuthoringError(
        `${where}: pass material (a defineMaterialMatch, a string or a MatchFact<string>)`,
      );
    }
    if (typeof material === "object" && "kind" in material && material.kind !== "material-match") {
      throw new AuthoringError(
        `${where}: a ${String(material.kind)} is not material; pass a defineMaterialMatch, a string or a MatchFact<string>`,
      );
    }
    const limits = closeQALimits(where, options);
    const waits = new Set<JudgeWait>();
    const outcome = askCloseQA(facts, material, question, limits, judgeFor(), signal, waits).catch(
      (error) => crashed("closeQA", error),
    );
    const label = question.length > 80 ? `${question.slice(0, 79)}…` : question;
    const made = new Assertion(via.method ?? "t.closeQA", label, "condition", outcome, rules);
    made.judgeWaits = waits;
    return add(made);
  };

  return { check, score, closeQA };
}

/** The weight of t.score's options, or an AuthoringError saying how to give it. */
function scoreWeight(where: string, options: unknown): number {
  if (typeof options !== "object" || options === null) {
    throw new AuthoringError(
      `${where}: the weight goes in an options object, as t.score(0.5, { weight: 10 }); got ${givenTyped(options)}`,
    );
  }
  refuseUnknownKeys(where, options, scoreOptionKeys);
  const { weight } = options as { weight?: unknown };
  if (typeof weight !== "number" || !Number.isFinite(weight) || weight <= 0) {
    throw new AuthoringError(
      `${where}: weight must be a finite number > 0, got ${givenTyped(weight)}`,
    );
  }
  return weight;
}

const scoreOptionKeys = { weight: true } satisfies KnownKeys<{ weight: number }>;

function ratioOutcome(ratio: number | NumericMaterial, weight: number): Outcome {
  let value: unknown = ratio;
  if (typeof ratio === "object" && ratio !== null) {
    if (ratio.state === "unavailable")
      return { state: "unavailable", value: null, reason: unavailableReason(ratio) };
    if (ratio.state === "available") value = ratio.value;
  }
  if (typeof value !== "number") {
    const observed = `observed ${describeObserved(value)}, but t.score takes a ratio (a number from 0 to 1) or a NumericMaterial`;
    return { state: "errored", value: null, reason: wrongTypeReason(observed, { value: ratio }) };
  }
  if (!Number.isFinite(value)) {
    return { state: "unavailable", value: null, reason: `ratio is ${value}, not a finite number` };
  }
  if (value < 0 || value > 1) {
    return {
      state: "errored",
      value: null,
      reason: `ratio ${value} is outside 0..1; compute a ratio between 0 and 1`,
    };
  }
  const earned = roundPoints(value * weight, 1000);
  return {
    state: value > 0 ? "matched" : "mismatched",
    value,
    reason: `ratio ${roundPoints(value, 1000)} × weight ${weight} = ${earned} points`,
  };
}

/** Run one attempt: observe through the adapter, run test(t), turn assertions into judgments. */
export async function runAttempt<Facts, Assertions>(
  setup: AttemptSetup<Facts, Assertions>,
  spec: CaseSpec,
  context: AttemptContext,
): Promise<AttemptRecord> {
  // In flight until its record is made: another attempt's limit asks whether it was alone.
  flightStarted(attempts);
  try {
    return await observeAndJudge(setup, spec, context);
  } finally {
    flightEnded(attempts);
  }
}

/** {@link runAttempt}, counted in flight. */
async function observeAndJudge<Facts, Assertions>(
  setup: AttemptSetup<Facts, Assertions>,
  spec: CaseSpec,
  context: AttemptContext,
): Promise<AttemptRecord> {
  const started = realNow();
  const { evalId, adapter, definition } = setup;
  const usage = new UsageCollector();
  // One limit for the whole attempt (create, test, judge calls); what finished before it is kept.
  const deadline = new Deadline(
    context.signal,
    definition.timeoutMs ?? context.timeoutMs,
    context.origin,
  );
  const trace = new TraceRecorder();
  const createContext: AdapterCreateContext = {
    signal: deadline.signal,
    runId: context.runId,
    evalId,
    caseId: spec.id,
    trial: context.trial ?? 0,
    trace,
    reportUsage: (report) => usage.report(report),
  };
  try {
    let facts: Facts;
    const where = `create of adapter "${adapter.name}" (eval "${evalId}")`;
    try {
      facts = await deadline.race(
        () => adapter.create(createContext),
        () => {
          throw deadline.timeoutError("create");
        },
      );
    } catch (error) {
      deadline.abort(error);
      return createFailed({ evalId, caseId: spec.id, where, started }, error, usage, trace);
    }
    const appUsage = usage.snapshot();
    const shadowed = notFacts(evalId, facts) ?? shadowedFacts(evalId, facts);
    if (shadowed !== undefined) {
      const record = erroredRecord({
        evalId,
        caseId: spec.id,
        message: shadowed,
        where: `adapter "${adapter.name}"`,
        elapsedMs: realNow() - started,
        app: appUsage,
      });
      if (context.keepOutput) record.output = facts;
      const steps = trace.take();
      if (steps) record.trace = steps;
      return record;
    }
    const { made, failure, stopped, skipped } = await runTest(setup, spec, context, {
      facts,
      appUsage,
      elapsedMs: realNow() - started,
      deadline,
    });
    const judgments = await settle(made, deadline);
    const judge = emptyJudgeUsage();
    for (const judgment of judgments) {
      addJudgeUsage(judge, judgment.judge);
      context.onJudgment?.(judgment);
    }
    if (context.judgeUsage) addJudgeUsage(context.judgeUsage, judge);
    const name = attemptName(evalId, spec.id, context.trial, definition.trials);
    const outcome = attemptOutcome(judgments, failure, stopped, skipped, name);
    const record: AttemptRecord = {
      evalId,
      caseId: spec.id,
      verdict: decideVerdict(judgments, {
        crashed: outcome.failure !== undefined,
        skipped: skipped !== undefined,
      }),
      score: outcome.score,
      judgments,
      usage: { app: appUsage, judge },
      elapsedMs: realNow() - started,
    };
    if (outcome.failure) record.error = outcome.failure;
    if (skipped !== undefined) record.skipReason = skipped;
    if (context.keepOutput || record.verdict === "failed") record.output = facts;
    const steps = trace.take();
    if (steps) record.trace = steps;
    return record;
  } finally {
    deadline.dispose();
  }
}

/**
 * create threw, ran out of time or rejected on the run's stop: an errored attempt that keeps what
 * the adapter reported before (its usage, the steps it traced), as a suite's failed target keeps
 * its trace. Taken now: what a create left running reports after this is not the record's.
 */
function createFailed(
  at: { evalId: string; caseId: string; where: string; started: number },
  error: unknown,
  usage: UsageCollector,
  trace: TraceRecorder,
): AttemptRecord {
  const record = erroredRecord({
    evalId: at.evalId,
    caseId: at.caseId,
    message: thrownWhere(error),
    where: at.where,
    elapsedMs: realNow() - at.started,
    app: usage.snapshot(at.where),
    stack: thrownStack(error),
  });
  const steps = trace.take();
  if (steps) record.trace = steps;
  return record;
}

/** What test(t) made of one attempt's facts, and whether it threw or skipped. */
async function runTest<Facts, Assertions>(
  setup: AttemptSetup<Facts, Assertions>,
  spec: CaseSpec,
  context: AttemptContext,
  at: { facts: Facts; appUsage: AppUsage; elapsedMs: number; deadline: Deadline },
): Promise<{
  made: Assertion[];
  failure?: Failure;
  /**
   * How the test stopped with `failure`: it "threw", "timed out after N ms", or ended having
   * recorded nothing ({@link CHECKED_NOTHING}).
   */
  stopped?: string;
  skipped?: string;
}> {
  const { evalId, adapter, definition } = setup;
  const made: Assertion[] = [];
  const lifetime = new TestLifetime(attemptName(evalId, spec.id, context.trial, definition.trials));
  const rules: AssertionRules = { evalId, passFail: setup.passFail, lifetime };
  const judgeFor = () => definition.judge ?? resolveCloseQAJudge();
  let skipped: { reason: string; made: number } | undefined;
  let timeout: Error | undefined;
  try {
    const via = { method: undefined as string | undefined };
    const tools = assertionTools(at.facts, made, rules, judgeFor, at.deadline.signal, via);
    const own = adapter.assertions ? attributed(adapter.assertions(tools), via) : undefined;
    const clash = shadowedAssertions(evalId, own, at.facts);
    if (clash !== undefined)
      return { made, failure: { message: clash, where: `adapter "${adapter.name}"` } };
    const skip = (reason: string): never => {
      lifetime.assertRunning("t.skip(...)", skip);
      if (typeof reason !== "string" || reason === "")
        throw new AuthoringError(
          `t.skip needs a reason, a non-empty string saying why the case does not apply; got ${givenText(reason)}`,
        );
      // A test that catches what this throws is still skipped: what it records after is not counted.
      skipped ??= { reason, made: made.length };
      throw new SkipSignal(reason);
    };
    const t = Object.assign({}, at.facts, own, tools, {
      usage: at.appUsage as UsageMaterial,
      elapsedMs: at.elapsedMs,
      skip,
    }) as TestContext<Facts, Assertions>;
    const pending = definition.test(t);
    if (pending && typeof (pending as Promise<void>).then === "function")
      await at.deadline.race(
        () => pending,
        () => {
          timeout = at.deadline.timeoutError("test");
          throw timeout;
        },
      );
    if (skipped) return { made: made.slice(0, skipped.made), skipped: skipped.reason };
    // Never a case that passes with nothing checked: a test that recorded nothing is errored.
    if (made.length === 0)
      return { made, failure: checkedNothing(evalId), stopped: CHECKED_NOTHING };
    return { made };
  } catch (error) {
    if (error instanceof SkipSignal) return { made, skipped: error.reason };
    const failure: Failure = { message: thrownWhere(error), where: `test of eval "${evalId}"` };
    const stack = thrownStack(error);
    if (stack !== undefined) failure.stack = stack;
    const stopped = error === timeout ? `timed out after ${at.deadline.ms} ms` : "threw";
    return { made, failure, stopped };
  } finally {
    // What test(t) made is all the record gets: later calls on t throw instead of being lost.
    lifetime.end();
  }
}

/** How a test that ended without recording a check, a score or a question stopped. */
const CHECKED_NOTHING = "recorded nothing";

/** The failure of a test that ended without recording anything to pass or fail on. */
function checkedNothing(evalId: string): Failure {
  return {
    message:
      "test(t) recorded no check, score or question, so the case has nothing to pass or fail on; record one (t.check(...), t.score(...), t.closeQA(...) or an assertion of the adapter), or call t.skip(reason) where the case deliberately checks nothing",
    where: `test of eval "${evalId}"`,
  };
}

/**
 * The score of an attempt and its failure: points that add up past the largest number are an
 * authoring error of the attempt (errored, its score unavailable), never an Infinity reported.
 */
function attemptOutcome(
  judgments: readonly Judgment[],
  failure: Failure | undefined,
  stopped: string | undefined,
  skipped: string | undefined,
  attempt: string,
): { score: ScoreSummary; failure?: Failure } {
  const score = attemptScore(judgments, failure && { where: failure.where, stopped }, skipped);
  const overflow = pointsOverflow(attempt, judgments, score);
  if (overflow === undefined) return failure ? { score, failure } : { score };
  return { score: overflowedScore(overflow), failure: failure ?? overflow };
}

/**
 * The score of an attempt's judgments. A test that threw or called t.skip before it ended never
 * made the checks after that, so what the ones before it earned bounds nothing: the score is
 * unavailable (earned and max keep what was made, for reading), and it stays out of every mean.
 */
function attemptScore(
  judgments: readonly Judgment[],
  failure: { where: string; stopped?: string | undefined } | undefined,
  skipped: string | undefined,
): ScoreSummary {
  const score = summarizeScore(judgments);
  if (failure?.stopped === CHECKED_NOTHING) {
    score.state = "unavailable";
    score.reasons.push(`${failure.where} recorded no check, so there is nothing to score`);
  } else if (failure) {
    score.state = "unavailable";
    score.reasons.push(
      `${failure.where} ${failure.stopped ?? "threw"} before it ended; the checks after it were never made`,
    );
  } else if (skipped !== undefined) {
    score.state = "unavailable";
    score.reasons.push(
      `skipped (${skipped}): t.skip stopped the test, so the checks after it were never made`,
    );
  }
  return score;
}

/** "eval "ev", case "default"", with " [trial 2]" when the eval runs several trials. */
function attemptName(
  evalId: string,
  caseId: string,
  trial: number | undefined,
  trials: number | undefined,
): string {
  return `eval "${evalId}", case "${caseId}"${trialLabel(trial, trials)}`;
}

/** Wrap the adapter's assertion methods so their judgments name them as source (e.g. "t.said"). */
function attributed<A>(assertions: A, via: { method: string | undefined }): A {
  if (typeof assertions !== "object" || assertions === null) return assertions;
  const wrapped: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(assertions)) {
    wrapped[key] =
      typeof value === "function"
        ? (...args: unknown[]) => {
            const outer = via.method;
            via.method ??= `t.${key}`;
            try {
              return value.apply(assertions, args);
            } finally {
              via.method = outer;
            }
          }
        : value;
  }
  return wrapped as A;
}

async function settle(made: readonly Assertion[], deadline: Deadline): Promise<Judgment[]> {
  const judgments: Judgment[] = new Array(made.length);
  for (let i = 0; i < made.length; i++) {
    const assertion = made[i]!;
    const pending = assertion.outcome;
    // A judged assertion still waiting at the limit is errored; the decided ones are kept.
    const outcome =
      pending instanceof Promise
        ? await deadline.race(
            () => pending,
            (): Outcome => ({
              state: "errored",
              value: null,
              reason: errorMessage(
                deadline.timeoutError(
                  `${assertion.source} "${assertion.name}"`,
                  judgeWaitText(assertion.judgeWaits, deadline.ms),
                ),
              ),
            }),
          )
        : pending;
    judgments[i] = assertion.toJudgment(outcome);
  }
  return judgments;
}

/** Why an attempt's test did not end: the record's `error`. */
type Failure = NonNullable<AttemptRecord["error"]>;

/** Thrown by t.skip to stop the test; never escapes the attempt. */
class SkipSignal {
  constructor(readonly reason: string) {}
}
