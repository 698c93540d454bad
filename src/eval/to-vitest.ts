import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { realNow } from "../clock.js";
import { AuthoringError, NiceevalError, userThrown } from "../errors.js";
import { judgeWithEnvironment, readJudgeEnvironment } from "../judge/environment.js";
import { holdHostFetch } from "../judge/host-fetch.js";
import { type KnownKeys, refuseUnknownKeys } from "../known-keys.js";
import { builtFile } from "../package-files.js";
import { isThenable } from "../tool/run-tool.js";
import { DATASET_ERROR_ID } from "./ids.js";
import type { AttemptRecord, Judgment } from "./record.js";
import { type CaseSpec, isRunnable, type Runnable } from "./runnable.js";
import {
  CaseIds,
  refusePlainSuiteKeys,
  type SuiteAuthor,
  type SuiteDefinition,
  suiteOf,
  type Target,
  type TypedEvalSuite,
  thrownByScorer,
  toCaseSpec,
} from "./suite.js";
import { checkTimeoutMs, heldPastLimit, limitPassed } from "./timeout.js";
import { endedPastTestTimeout } from "./vitest-late.js";
import { type FaceReading, readFace, watchCase } from "./vitest-leaks.js";
import { type CaseLimit, caseLimit, explainTimeouts, timedOut } from "./vitest-limit.js";

/** The part of an `expect` this bridge uses: Vitest's, Jest's or any compatible one. */
export type ExpectApi = (actual: unknown, message?: string) => { toBe(expected: unknown): void };

/** What a test function may receive from the runner: Vitest's test context. */
export interface VitestTestContext {
  /** Aborted when the test times out (or the run is stopped). */
  readonly signal?: AbortSignal;
  /** The running test; its `timeout` is the test's (its timeout argument, else `testTimeout`). */
  readonly task?: { readonly timeout?: number };
  /** Vitest's: `fn` runs once the test has ended, after its afterEach hooks. */
  readonly onTestFinished?: (fn: () => void) => void;
}

/** The test-registration functions toVitest needs, injected so niceeval imports no test runner. */
export interface VitestHooks {
  describe: (name: string, factory: () => void) => void;
  it: (name: string, fn: (context: VitestTestContext) => Promise<void>, timeout?: number) => void;
  /** No longer used: a failed case throws an Error that explains it. Still accepted. */
  expect?: ExpectApi | undefined;
}

/** How the suite's cases run under Vitest. */
export interface ToVitestOptions<Input, Output> {
  /** Produces each case's output. */
  target: Target<Input, Output>;
  /** Vitest timeout of each case (target and scorers), ms; the runner's testTimeout when omitted. */
  timeout?: number | undefined;
}
const toVitestOptionKeys = {
  target: true,
  timeout: true,
} satisfies KnownKeys<ToVitestOptions<unknown, unknown>>;

/**
 * Register a suite as Vitest tests: `describe(suite.id)` with one `it(caseId)` per case, which
 * runs the case on the niceeval engine and fails, with an Error naming every scorer that did
 * not pass (and what a throwing target or scorer threw as its cause), unless every scorer passed.
 * @example
 * import { describe, it, expect } from "vitest";
 * toVitest(suite, { target: async ({ prompt }) => answer(prompt) }, { describe, it, expect });
 */
export function toVitest<Input, Output, Expected = unknown>(
  suite: TypedEvalSuite<Input, Output, Expected>,
  options: ToVitestOptions<NoInfer<Input>, NoInfer<Output>>,
  hooks: VitestHooks,
): void {
  // What the tests find wrong later (a duplicate case id) points at this call.
  const calledFrom = callSite();
  const id: unknown = (suite as { id?: unknown } | null)?.id;
  const where = typeof id === "string" && id ? `toVitest("${id}")` : "toVitest";
  if (isRunnable(suite)) {
    throw new TypeError(
      `${where}: this is an eval (from defineSuite or an adapter), which toVitest does not take; pass a plain suite { id, cases, scorers } and the target as \`options.target\`, or run the eval with runEvals`,
    );
  }
  refusePlainSuiteKeys(
    where,
    suite,
    "toVitest holds each case to every scorer at the default threshold; leave them out, or run the suite with runEval or as an eval in `niceeval run`",
  );
  // Ignored, a misspelt option (`timout`) would leave the runner's timeout in force.
  refuseUnknownKeys(where, options, toVitestOptionKeys, "options");
  if (typeof options?.target !== "function") {
    throw new TypeError(`toVitest: suite "${suite.id}" needs \`options.target\`, a function`);
  }
  checkCases(where, suite.cases);
  checkHooks(where, hooks);
  // The bound of every timeout given from code (runEval's, defineSuite's): one rule, not two.
  checkTimeoutMs(`${where}: \`timeout\``, options.timeout);
  const tested = suiteUnderTest(
    { id: suite.id, cases: suite.cases, target: options.target, scorers: suite.scorers },
    { where, namesReadBy: "a failed case's message tells its" },
  );
  hooks.describe(suite.id, () => {
    // A suite that cannot judge anything is one failing test saying why, as it is an errored
    // eval in a run: never a describe whose cases all pass with nothing checked.
    const problem = suiteProblem(suite);
    if (problem !== undefined) {
      hooks.it(DATASET_ERROR_ID, async () => {
        throw withFramesOf(new AuthoringError(problem), calledFrom);
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
          if (first !== undefined) {
            const twice = `case id "${spec.id}" appears twice in suite "${suite.id}" (at index ${first} and ${index}); give each case a unique id`;
            throw withFramesOf(new AuthoringError(twice), calledFrom);
          }
          const tried = await tested.run(spec, context);
          if (tried.record.verdict !== "passed")
            throw testFailure(caseFailureMessage(tried.record), tried);
        },
        options.timeout,
      );
    });
  });
}

/**
 * Refuse cases that are not an array (a function, an async iterable: a run's dataset shapes).
 * Vitest registers tests while it collects the file, so toVitest needs every case up front.
 */
function checkCases(where: string, cases: unknown): void {
  if (Array.isArray(cases)) return;
  throw new TypeError(
    `${where}: \`cases\` is ${casesKind(cases)}, not an array; toVitest registers one Vitest test per case as Vitest collects the file, so it takes an array of cases. Read the cases into an array first (await them at the top of the test file), or run a suite whose cases come from a function, an iterable or an async iterable with runEval, or as an eval in \`niceeval run\``,
  );
}

/** What a suite's `cases` that is not an array is, for its refusal. */
function casesKind(cases: unknown): string {
  if (cases === undefined || cases === null) return "missing";
  if (typeof cases === "function") return "a function";
  if (typeof cases !== "object") return `a ${typeof cases}`;
  if (isThenable(cases)) return "a promise";
  if (Symbol.asyncIterator in cases) return "an async iterable";
  if (Symbol.iterator in cases) return "an iterable";
  return "an object";
}

/** Refuse hooks without Vitest's `describe` and `it`: left out, they would fail as a bare TypeError. */
function checkHooks(where: string, hooks: unknown): void {
  const ask = `${where}: pass { describe, it } from "vitest" as the third argument`;
  if (typeof hooks !== "object" || hooks === null)
    throw new TypeError(`${ask}; got ${hooks === undefined ? "nothing" : String(hooks)}`);
  for (const name of ["describe", "it"] as const) {
    const given: unknown = (hooks as Record<string, unknown>)[name];
    if (typeof given !== "function") {
      const got = given === undefined ? "nothing" : given === null ? "null" : `a ${typeof given}`;
      throw new TypeError(`${ask}; its \`${name}\` is not a function (got ${got})`);
    }
  }
}

/** Why a suite cannot be run as tests: no scorers, or no cases. */
function suiteProblem(suite: { id: string; cases: unknown; scorers: unknown }): string | undefined {
  if (!Array.isArray(suite.scorers) || suite.scorers.length === 0)
    return `suite "${suite.id}" has no scorers, so no case can pass or fail; add a bindScorer(...) or createScorer(...) scorer`;
  if (Array.isArray(suite.cases) && suite.cases.length === 0)
    return `suite "${suite.id}" has no cases; give it at least one`;
  return undefined;
}

/** One case run in a test: its record, what its target or a scorer threw, and what timed out. */
export interface TestedCase {
  record: AttemptRecord;
  /**
   * Set when the target threw (or rejected), else when a scorer did (the first one): what it
   * threw, stack and all.
   */
  thrown?: { error: unknown };
  /** The target was still running at niceeval's limit (its signal was aborted). */
  targetTimedOut: boolean;
}

/** A suite whose cases run one by one as tests, watching what their target does. */
export interface SuiteUnderTest {
  /**
   * Run one case on the engine under the test's abort signal (a never-aborted one without it),
   * held to a limit a little under the test's own timeout.
   */
  run(spec: CaseSpec, context: VitestTestContext | undefined): Promise<TestedCase>;
}

/** What a target did in its current run. */
interface TargetRun {
  /** It returned or threw before niceeval's limit passed. */
  inTime: boolean;
  /** The signal it was given, its attempt's limit's. */
  signal: AbortSignal;
  thrown?: { error: unknown };
}

/**
 * A suite for tests (toVitest, evaluate): one run id for all its cases, and a target watched per
 * case id, so a test can tell what the target threw and whether it outlived the limit. A case
 * runs once at a time (Vitest's retries follow each other), so the case id names its current
 * run. `author` is the call the user wrote, which the suite's checks name (see {@link suiteOf});
 * `targetName` is what messages call the target ("the task" under evaluate), `caseWord` a case
 * ("item" under evaluate).
 */
export function suiteUnderTest<Input, Output>(
  definition: SuiteDefinition<Input, Output>,
  author: SuiteAuthor,
  targetName = "the target",
  caseWord = "case",
): SuiteUnderTest {
  // As Vitest collects the tests, before any hook: the host's fetch and judge variables, not what
  // a beforeEach stubs for the app under test, and the globals a case must not leave replaced.
  holdHostFetch();
  const judgeEnv = readJudgeEnvironment();
  const host = readFace();
  const runs = new Map<string, TargetRun>();
  const target: Target<Input, Output> = (input, context) => {
    const run: TargetRun = { inTime: false, signal: context.signal };
    runs.set(context.caseId, run);
    // The limit aborts the signal, then gives the record: what settles after that is too late,
    // as is what settles past it having held the thread (the limit's timer could not fire).
    const settled = () => {
      run.inTime = !limitPassed(context.signal);
    };
    const fail = (error: unknown): never => {
      settled();
      if (run.inTime) run.thrown = { error };
      throw error;
    };
    let produced: Output | PromiseLike<Output>;
    let thenable: boolean;
    try {
      produced = definition.target(input, context);
      // Reading `then` runs the output's code (a Proxy, a getter): what it throws is the target's.
      thenable = isThenable(produced);
    } catch (error) {
      return fail(error);
    }
    if (!thenable) {
      settled();
      return produced as Output;
    }
    return Promise.resolve(produced as PromiseLike<Output>).then((output) => {
      settled();
      return output;
    }, fail);
  };
  const runnable: Pick<Runnable, "runCase"> = suiteOf({ ...definition, target }, author);
  const runId = `vitest-${randomUUID()}`;
  return {
    async run(spec, context) {
      runs.delete(spec.id);
      const began = realNow();
      const limit = caseLimit(context?.task?.timeout);
      const ended = watchLeaks(`${author.where}, ${caseWord} "${spec.id}"`, host, context);
      const judgingAsRegistered = judgeWithEnvironment(judgeEnv, author.where);
      let record: AttemptRecord;
      try {
        record = await runUnder(runnable, spec, runId, context?.signal, limit);
      } finally {
        judgingAsRegistered();
        ended?.();
      }
      const run = runs.get(spec.id);
      runs.delete(spec.id);
      const targetTimedOut = limit !== undefined && run !== undefined && !run.inTime;
      const tried: TestedCase = { record, targetTimedOut };
      const thrown =
        run?.thrown !== undefined && record.error !== undefined ? run.thrown : scorerThrown(record);
      if (thrown !== undefined) tried.thrown = thrown;
      if (limit !== undefined) {
        const held = run && heldPastLimit(run.signal);
        explainTimeouts(record, { ...limit, held }, targetTimedOut, targetName, host);
        if (endedPastTestTimeout(record, realNow() - began, limit, targetName))
          tried.targetTimedOut = true;
      }
      return tried;
    },
  };
}

/**
 * Watch what the case `who` leaves replaced (eval/vitest-leaks.ts) until its test has ended, after
 * its afterEach hooks, as Vitest tells; returns what to call as the case ends where it cannot
 * tell (another runner).
 */
function watchLeaks(
  who: string,
  host: FaceReading,
  context: VitestTestContext | undefined,
): (() => void) | undefined {
  const watch = watchCase(who, host);
  const ended = () => watch.ended();
  if (typeof context?.onTestFinished !== "function") return ended;
  context.onTestFinished(ended);
  return undefined;
}

/** What the first scorer that threw on this case threw, so the failure points at its code. */
function scorerThrown(record: AttemptRecord): { error: unknown } | undefined {
  for (const judgment of record.judgments) {
    const thrown = judgment.state === "errored" ? thrownByScorer(judgment) : undefined;
    if (thrown !== undefined) return thrown;
  }
  return undefined;
}

/**
 * Run a case under a signal of its own that follows the test's and, when the limit passed,
 * aborts as the record comes: the attempt's own limit (`timeoutMs`) aborts the target's and
 * tool scorers' signal and keeps what finished; this one is the run's signal, which createScorer
 * factories get as `context.signal`, so their work stops too.
 */
async function runUnder(
  runnable: Pick<Runnable, "runCase">,
  spec: CaseSpec,
  runId: string,
  testSignal: AbortSignal | undefined,
  limit: CaseLimit | undefined,
): Promise<AttemptRecord> {
  const started = realNow();
  const controller = new AbortController();
  const follow = () => controller.abort(testSignal?.reason);
  if (testSignal?.aborted) follow();
  else testSignal?.addEventListener("abort", follow, { once: true });
  const running = runnable.runCase(spec, {
    runId,
    signal: controller.signal,
    ...(limit ? { timeoutMs: limit.ms } : {}),
  });
  try {
    return await running;
  } finally {
    // The record comes at the limit: a scorer still running then stops with it.
    if (limit && realNow() - started >= limit.ms)
      controller.abort(new NiceevalError("TIMEOUT", timedOut("the case", limit)));
    testSignal?.removeEventListener("abort", follow);
  }
}

/**
 * What a failed case's test throws: an Error whose message is niceeval's explanation, with no
 * assertion diff. What a target (or a scorer) threw is its `cause`, and its stack frames are the failure's,
 * so the report points at the code that threw; otherwise the failure has no frames (niceeval's
 * own would only point into niceeval).
 */
export function testFailure(message: string, tried: Pick<TestedCase, "thrown">): NiceevalError {
  const failure = new NiceevalError(
    "TEST_FAILED",
    message,
    tried.thrown ? { cause: tried.thrown.error } : undefined,
  );
  return withFramesOf(failure, tried.thrown?.error);
}

/**
 * `failure`, its stack made of the user's frames of `thrown` (what user code threw, which
 * `failure` has as its cause, or an Error made where the user called niceeval), so the report
 * points at the user's line; no frames when `thrown` has none.
 */
export function withFramesOf<Failure extends Error>(failure: Failure, thrown: unknown): Failure {
  const frames = stackFrames(thrown);
  failure.stack = `${failure.name}: ${failure.message}${frames ? `\n${frames}` : ""}`;
  return failure;
}

/**
 * An Error whose stack is the caller's: made as evaluate or toVitest is called, so that a misuse
 * found later (an invalid item, a duplicate case id) points at that call, through
 * {@link withFramesOf}.
 */
export function callSite(): Error {
  return new Error("called here");
}

/**
 * The `    at …` lines of a thrown error's stack that are the user's: past niceeval's own leading
 * frames (its `dist`, or its `src` once source maps are applied), up to the next of them (the
 * whole stack stays in the cause). When niceeval threw it from its own code alone, those of what
 * user code threw inside it (its cause, as a createScorer factory's error), else all of them.
 */
function stackFrames(error: unknown): string {
  const frames = framesOf(error);
  const root = builtFile("../");
  const ours = (line: string) => line.includes(root.href) || line.includes(fileURLToPath(root));
  let start = 0;
  while (start < frames.length && ours(frames[start]!)) start++;
  let end = start;
  while (end < frames.length && !ours(frames[end]!)) end++;
  const user = frames.slice(start, end);
  // Node's own frames (a timer, a promise queue) past niceeval's say nothing of the user's code.
  if (user.some((line) => !line.includes("(node:") && !/^\s+at node:/.test(line)))
    return user.join("\n");
  const wrapped = error instanceof NiceevalError ? userThrown(error) : undefined;
  const inner = wrapped === undefined ? "" : stackFrames(wrapped);
  return inner || frames.join("\n");
}

/** The `    at …` lines of a thrown value's stack; none when it has no readable stack. */
function framesOf(error: unknown): string[] {
  let stack: unknown;
  try {
    stack = error instanceof Error ? error.stack : undefined;
  } catch {
    return [];
  }
  if (typeof stack !== "string") return [];
  return stack.split("\n").filter((line) => /^\s+at /.test(line));
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
