import type { AttemptRecord, Judgment } from "../eval/record.js";
import type { Runnable } from "../eval/runnable.js";
import type { TraceRecorder } from "../eval/trace.js";
import type { ContextCheck, MaterialMatch } from "../expect/context-match.js";
import type { BooleanMatch, MatchFact, NumericMaterial } from "../expect/types.js";
import type { CloseQAJudge } from "../judge/types.js";
import type { KnownKeys } from "../known-keys.js";

/** Usage the application reports for one model call (or a batch); fields left out stay unreported. */
export interface UsageReport {
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
  totalTokens?: number | undefined;
  costUsd?: number | undefined;
}

export const usageReportKeys = {
  inputTokens: true,
  outputTokens: true,
  totalTokens: true,
  costUsd: true,
} satisfies KnownKeys<UsageReport>;

/** What an adapter's `create` receives for one attempt. */
export interface AdapterCreateContext {
  /** Aborted when the attempt times out or the run is cancelled; pass it to the application. */
  readonly signal: AbortSignal;
  readonly runId: string;
  readonly evalId: string;
  readonly caseId: string;
  /** Which trial of the eval this attempt is, 0-based. */
  readonly trial: number;
  /** Report the application's messages and tool calls; they are kept with the attempt. */
  readonly trace: TraceRecorder;
  /** Add the application's usage; repeated calls add up. Never-reported fields stay unavailable. */
  reportUsage(usage: UsageReport): void;
}

/** The application's usage as the test sees it: each field a NumericMaterial. */
export interface UsageMaterial {
  readonly inputTokens: NumericMaterial;
  readonly outputTokens: NumericMaterial;
  readonly totalTokens: NumericMaterial;
  readonly costUsd: NumericMaterial;
}

/**
 * What every assertion returns. Call each method at most once: `.gate()` makes the assertion
 * required, `.score(points)` makes it worth points, `.label(text)` names it in the report.
 * An assertion with neither gate nor score is reported as information (gate false, 0 points).
 */
export interface AssertionHandle {
  gate(): AssertionHandle;
  score(points: number): AssertionHandle;
  label(text: string): AssertionHandle;
}

/**
 * `check`: a match over the facts (defineContextMatch / defineMaterialMatch), or a value and a
 * match. A value shaped `{ state: "available", value }` is unwrapped, `{ state: "unavailable" }`
 * makes the check unavailable, and a MaterialCollection is handed to the match as it is.
 */
export interface CheckFn<Facts> {
  (match: ContextCheck<Facts>): AssertionHandle;
  <T>(value: T | MatchFact<T>, match: BooleanMatch<T, unknown>): AssertionHandle;
}

/** Limits of a t.closeQA question. */
export interface CloseQAOptions {
  /** Material larger than this (UTF-8 JSON bytes) is unavailable: capacity-limited. Default 256 KiB. */
  maxMaterialBytes?: number | undefined;
  /** Upper bound on the judge's audit kept in the judgment. Default 1 MiB. */
  maxAuditBytes?: number | undefined;
}

/** Material a closed question may be asked over. */
export type CloseQAMaterial<Facts> = MaterialMatch<Facts, unknown> | string | MatchFact<string>;

/** Assertion builders bound to the current attempt. */
export interface AssertionTools<Facts> {
  readonly check: CheckFn<Facts>;
  /** Earn `ratio × weight` points (ratio 0..1); an unavailable ratio keeps its weight in the maximum. */
  score(ratio: number | NumericMaterial, options: { weight: number }): AssertionHandle;
  /** Ask a judge a closed question over the material; unavailable until a judge is configured. */
  closeQA(
    material: CloseQAMaterial<Facts>,
    question: string,
    options?: CloseQAOptions,
  ): AssertionHandle;
}

/** Everything `test(t)` can use besides the facts and the adapter's assertions. */
export interface TestTools<Facts> extends AssertionTools<Facts> {
  /** The application's usage reported through ctx.reportUsage. */
  readonly usage: UsageMaterial;
  /** Time niceeval measured for the adapter's create (the application's run), in ms. */
  readonly elapsedMs: number;
  /**
   * Skip this attempt (the scenario does not apply to what was observed): stops the test; the
   * verdict is `skipped` unless an assertion already made it failed or errored, and the score is
   * unavailable (the checks after it were never made), so it stays out of the mean score. A test
   * that catches what it throws is still skipped (what it records after is not counted); a reason
   * that is not a non-empty string errors the attempt.
   */
  skip(reason: string): never;
}

/** The `t` of a score eval: the facts' fields, the adapter's assertions and the test tools. */
export type TestContext<Facts, Assertions> = Readonly<Omit<Facts, keyof TestTools<Facts>>> &
  Omit<Assertions, keyof TestTools<Facts>> &
  TestTools<Facts>;

/** Definition accepted by `adapter.defineScoreEval` and `adapter.defineEval`. */
export interface ScoreEvalDefinition<Facts, Assertions> {
  /** What the eval judges; the id is derived from it unless `id` is given. */
  description: string;
  test: (t: TestContext<Facts, Assertions>) => void | Promise<void>;
  /** Stable id (default: adapter name and description, slugged). */
  id?: string | undefined;
  /** Timeout of the adapter's create, in ms (default: the runner's). */
  timeoutMs?: number | undefined;
  /** Judge for t.closeQA; wins over the configured default judge. */
  judge?: CloseQAJudge | undefined;
  /** Times the eval runs (overrides the run's `--trials`). */
  trials?: number | undefined;
}
export const scoreEvalDefinitionKeys = {
  description: true,
  test: true,
  id: true,
  timeoutMs: true,
  judge: true,
  trials: true,
} satisfies KnownKeys<ScoreEvalDefinition<unknown, unknown>>;

/** Options of `evaluation.run()`; `timeoutMs` and `judge` win over the eval's own. */
export interface EvalRunOptions {
  signal?: AbortSignal | undefined;
  runId?: string | undefined;
  /** Timeout of the adapter's create, in ms. */
  timeoutMs?: number | undefined;
  /** Once `signal` aborts, how long the attempt may go on before it is given up on (default 2000 ms). */
  abortGraceMs?: number | undefined;
  judge?: CloseQAJudge | undefined;
  onJudgment?: ((judgment: Judgment) => void) | undefined;
}

/** An eval built from an adapter: a Runnable with one case, runnable from code too. */
export interface ScoreEval extends Runnable {
  readonly style: "score";
  readonly kind: "score-eval" | "pass-fail-eval";
  readonly adapter: string;
  readonly description: string;
  /** Run one attempt from code and return its record. */
  run(options?: EvalRunOptions): Promise<AttemptRecord>;
}

/**
 * Facts, and an adapter's assertions, may not take the test tools' names (`usage`, `elapsedMs`,
 * `check`, …): `t`'s own would replace them. A create that returns such a key, or assertions
 * with such a method, fail to compile, and error the attempt at run time.
 */
export type FactsWithoutToolNames<Facts> = {
  [K in keyof Facts]: K extends keyof TestTools<unknown> ? never : Facts[K];
};

/**
 * An assertion may not share its name with a fact: `t.name` would be the assertion, and the fact
 * could not be read (refused at run time too).
 */
export type AssertionsBesideFacts<Assertions, Facts> = {
  [K in keyof Assertions & keyof Facts]: never;
};

/** Definition accepted by {@link defineAdapter}. */
export interface AdapterDefinition<Facts, Assertions> {
  name: string;
  /** Run or observe the application for one attempt and return its facts. */
  create: (ctx: AdapterCreateContext) => Facts | Promise<Facts>;
  /** The adapter's own assertion methods, built from `check` (and `score`, `closeQA`). */
  assertions?: ((tools: AssertionTools<Facts>) => Assertions) | undefined;
}
export const adapterDefinitionKeys = {
  name: true,
  create: true,
  assertions: true,
} satisfies KnownKeys<AdapterDefinition<unknown, unknown>>;

/** An adapter: a named way to observe an application, and the evals built on it. */
export interface Adapter<Facts, Assertions> {
  readonly kind: "adapter";
  readonly name: string;
  /** An eval with gates and points. */
  defineScoreEval(definition: ScoreEvalDefinition<Facts, Assertions>): ScoreEval;
  /** A pass/fail eval: every assertion is a gate and nothing earns points. */
  defineEval(definition: ScoreEvalDefinition<Facts, Assertions>): ScoreEval;
}
