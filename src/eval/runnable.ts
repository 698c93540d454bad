import type { AttemptRecord, JudgeUsage, Judgment } from "./record.js";
import type { RunOrigin } from "./run-origin.js";

/** Brand shared by every eval the runner can discover, whichever copy of niceeval made it. */
export const EVAL_BRAND: unique symbol = Symbol.for("niceeval.eval") as never;

/** One case as the runner schedules it. */
export interface CaseSpec {
  readonly id: string;
  readonly index: number;
  readonly input?: unknown;
  readonly expected?: unknown;
  readonly metadata?: Readonly<Record<string, unknown>>;
  /** Cases sharing a cluster are resampled together when runs are compared. */
  readonly cluster?: string;
  /** Why this item cannot be a case (a null item, a bad id): its attempt is errored with it, not run. */
  readonly invalid?: string;
}

/** What the runner hands an eval for one attempt. */
export interface AttemptContext {
  readonly runId: string;
  readonly signal: AbortSignal;
  /** Which trial of the case this attempt is, 0-based (absent means 0). */
  readonly trial?: number;
  /** Called once per judgment as soon as it is decided (drives `eval.case.scored`). */
  readonly onJudgment?: (judgment: Judgment) => void;
  /** Keep the target's output on the record. */
  readonly keepOutput?: boolean;
  /** Per-attempt timeout for the application (adapter create / target), in ms. */
  readonly timeoutMs?: number;
  /** Where the run came from (undefined: code): the attempt's errors advise the options there. */
  readonly origin?: RunOrigin;
  /** Ledger that judge calls of this attempt report into. */
  readonly judgeUsage?: JudgeUsage;
}

/**
 * The engine's view of an eval: an id, a stream of cases, and how to run one of them.
 * Dataset suites and score evals are both Runnables; so is anything later issues add.
 */
export interface Runnable {
  readonly [EVAL_BRAND]: true;
  readonly id: string;
  readonly style: "suite" | "score";
  /** A score eval of gates only (`adapter.defineEval`): reports call it a pass/fail eval. */
  readonly passFail?: true;
  /** Upper bound on concurrently running cases of this eval. */
  readonly concurrency?: number;
  /** Times each case runs (overrides the run's `trials`). */
  readonly trials?: number;
  /**
   * Points an attempt can earn, when known before it runs (a suite: one per scorer). An attempt
   * that never reaches the eval (a crash, an interrupt) keeps it as its score's max, so it reads
   * unavailable out of that many points, as a target error does.
   */
  readonly maxPoints?: number;
  /**
   * Its cases can be read only once (`cases` is an iterator, such as a generator object or a
   * stream): a supervised run does not read them a second time to run them ahead.
   */
  readonly readsOnce?: true;
  /** What identifies the eval's configuration (scorers, thresholds, gates, judge models), for hashing. */
  fingerprint?(): unknown;
  /**
   * The judge models its scorers were built with (`judgeFromModel`, `createCloseQAJudge`, a
   * createScorer's `judgeModel`), sorted; a judge of the user's own names none.
   */
  judgeModels?(): readonly string[];
  cases(): Iterable<CaseSpec> | AsyncIterable<CaseSpec>;
  runCase(spec: CaseSpec, context: AttemptContext): Promise<AttemptRecord>;
  /**
   * Like {@link runCase}, but an attempt that finishes without waiting on anything gives its
   * record itself, not a promise of it (the engine then skips its promise round trips).
   */
  runCaseNow?(spec: CaseSpec, context: AttemptContext): AttemptRecord | Promise<AttemptRecord>;
}

/** Whether a module export is an eval the runner can run. */
export function isRunnable(value: unknown): value is Runnable {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<symbol, unknown>)[EVAL_BRAND] === true &&
    typeof (value as Runnable).runCase === "function"
  );
}
