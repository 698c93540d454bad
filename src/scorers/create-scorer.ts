import { AuthoringError, errorMessage, NiceevalError } from "../errors.js";
import { givenText } from "../eval/timeout.js";
import { callJudge, type JudgeCallResult, type JudgeSource } from "../judge/call.js";
import type { JudgeChatRequest } from "../judge/chat.js";
import { type JudgeSettings, judgeSettings } from "../judge/config.js";
import { judgeFromModel } from "../judge/judge-from-model.js";
import { withJudgeModels } from "../judge/judge-models.js";
import { noteUserScoring } from "../judge/ledger.js";
import { type ResolvedJudge, resolveJudge } from "../judge/resolve.js";
import type { JudgeFn } from "../judge/types.js";
import { type KnownKeys, refuseUnknownKeys } from "../known-keys.js";
import { isThenable } from "../tool/run-tool.js";
import { show } from "./deterministic/preview.js";

/** Extra case fields handed to a scorer next to output and expected. */
export type Extra = Record<string, unknown>;

/** What a scorer callback receives: the case's extra fields (input among them), output, expected. */
export type ScorerArgs<OUTPUT, EXPECTED, EXTRA extends Extra = Extra> = EXTRA & {
  output: OUTPUT;
  expected: EXPECTED;
};

/** A named score. `score: null` means "no score"; it contributes zero to a mean. */
export interface NamedScore {
  name: string;
  score: number | null;
  metadata?: Record<string, unknown> | undefined;
}

/** What a scorer callback may return (its own name is replaced by the configured one). */
export type ScoreResult = Omit<NamedScore, "name"> & { name?: string | undefined };

/**
 * What a scorer config factory receives: the run's signal and the judge/model resolution that
 * niceeval's own judged scorers use. Resolve dependencies here; do not open connections per case.
 */
export interface RuntimeContext {
  /** Aborted when the run is cancelled (under Vitest, when the item's test times out). */
  readonly signal: AbortSignal;
  /** The judge settings in force (cache, concurrency, timeouts, prices, closeQA model). */
  readonly judgeSettings: Readonly<JudgeSettings>;
  /**
   * Resolve a model string the way every judge does (registered providers, then the
   * environment), before any call: `{ ok: false, reason }` says what to set.
   */
  resolveModel(model: string): ResolvedJudge;
  /** A criteria judge on a model, as `llmJudge` takes; it throws JudgeUnavailableError when it cannot answer. */
  judge(model: JudgeSource): JudgeFn;
  /** One model call through the cache, the endpoint scheduler and the usage ledger, under `signal`. */
  callModel(model: JudgeSource, request: JudgeChatRequest): Promise<JudgeCallResult>;
}

/**
 * The runtime context of a run under `signal` (a never-aborted one when omitted).
 * @example
 * const ctx = runtimeContext(controller.signal);
 * ctx.resolveModel("openai/gpt-4.1-mini").ok; // false until OPENAI_API_KEY is set
 */
export function runtimeContext(signal: AbortSignal = new AbortController().signal): RuntimeContext {
  return {
    signal,
    get judgeSettings() {
      return judgeSettings();
    },
    resolveModel: (model) => resolveJudge(model),
    judge: (model) => judgeFromModel(model),
    callModel: (model, request) => callJudge(model, request, { signal }),
  };
}

const runContexts = new WeakMap<AbortSignal, RuntimeContext>();

/** The runtime context of the run under `signal`, one per signal (scorers call this per case). */
export function runtimeContextOf(signal: AbortSignal): RuntimeContext {
  let context = runContexts.get(signal);
  if (!context) {
    context = runtimeContext(signal);
    runContexts.set(signal, context);
  }
  return context;
}

/** A scorer's name and callback. */
export interface ScorerConfig<OUTPUT, EXPECTED = OUTPUT, EXTRA extends Extra = Extra> {
  name: string;
  score: (args: ScorerArgs<OUTPUT, EXPECTED, EXTRA>) => ScoreResult | Promise<ScoreResult>;
  /**
   * The judge model (or models) `score` calls, such as the model given to `expectations`: a
   * run records it with the eval, so `compare` warns and `--resume` refuses when it changes.
   * Only what is named here is known: a model chosen inside `score` is not.
   */
  judgeModel?: string | readonly string[] | undefined;
}
const scorerConfigKeys = {
  name: true,
  score: true,
  judgeModel: true,
} satisfies KnownKeys<ScorerConfig<unknown>>;

/** A scoring function bound to one runtime context. */
export type ScoreFn<OUTPUT, EXPECTED = OUTPUT, EXTRA extends Extra = Extra> = (
  args: ScorerArgs<OUTPUT, EXPECTED, EXTRA>,
) => Promise<NamedScore>;

/**
 * A scoring function, seed 003's type: the case's fields in, a named score out. createScorer
 * makes one ({@link NamedScorer}); evaluate() also takes any function of this shape.
 */
export type Scorer<OUTPUT, EXPECTED = OUTPUT, EXTRA extends Extra = Extra> = (
  args: ScorerArgs<OUTPUT, EXPECTED, EXTRA>,
) => NamedScore | Promise<NamedScore>;

/**
 * The {@link Scorer} createScorer makes, usable in a suite's `scorers` or in `evaluate()`. Its
 * `name` is the configured name; calling it directly scores outside any run.
 */
export type NamedScorer<OUTPUT, EXPECTED = OUTPUT, EXTRA extends Extra = Extra> = ScoreFn<
  OUTPUT,
  EXPECTED,
  EXTRA
> & {
  readonly kind: "scorer";
  readonly name: string;
  /** This scorer under a run's context: a config factory is resolved once per `context.signal`. */
  withRuntime(context: RuntimeContext): ScoreFn<OUTPUT, EXPECTED, EXTRA>;
  /** Types only, never set: the expected value it takes, checked against the cases' ({@link TakesExpected}). */
  readonly "~expected"?: ((expected: EXPECTED) => void) | undefined;
  /** Types only, never set: the input its EXTRA declares, checked against the cases' ({@link TakesInput}). */
  readonly "~input"?: ((input: DeclaredInput<EXTRA>) => void) | undefined;
};

/** The `input` a scorer's EXTRA declares (seed 003: a typed input is declared there), else unknown. */
export type DeclaredInput<EXTRA> = EXTRA extends { input: infer I } ? I : unknown;

/**
 * The expected value scorers are checked against, from the cases' type: `any` (nothing checked)
 * when it is not known (`unknown`, `any`, no case gives one), and without `undefined` (an
 * `expected` a case leaves out is not held against a scorer).
 */
export type CheckedExpected<Expected> = unknown extends Expected
  ? // biome-ignore lint/suspicious/noExplicitAny: an unknown expected value checks nothing
    any
  : Exclude<Expected, undefined>;

/**
 * A scorer that takes the cases' expected values: one made for another expected type
 * (`createScorer<Answer, { min: number }>` on cases whose `expected` is a string) does not
 * compile, where it would read fields the value does not have and score 0.
 */
export type TakesExpected<Expected> = {
  // A function property, not a method: compared strictly (contravariantly).
  readonly "~expected"?: ((expected: CheckedExpected<Expected>) => void) | undefined;
};

/**
 * A scorer that takes the cases' inputs: one whose EXTRA declares another `input`
 * (`createScorer<Answer, string, { input: { other: number } }>` on cases of `{ prompt: string }`)
 * does not compile, where it would read fields the input does not have.
 */
export type TakesInput<Input> = {
  // A function property, not a method: compared strictly (contravariantly).
  readonly "~input"?: ((input: CheckedExpected<Input>) => void) | undefined;
};

/** A scorer callback returned something that is not `{ score }` (code `SCORER_RESULT`). */
export class ScorerResultError extends NiceevalError {
  readonly scorer: string;
  constructor(scorer: string, message: string) {
    super("SCORER_RESULT", `scorer "${scorer}" ${message}`);
    this.name = "ScorerResultError";
    this.scorer = scorer;
  }
}

const ON_CREATION =
  "; the factory runs as the scorer is created, to learn its name, so what fails there (a client that needs a key) fails the whole file: make such a client on the first call of `score` instead, where a failure errors only this scorer's judgments";

/**
 * Give a scoring function a name. `config` is the name and callback, or a synchronous factory
 * that builds them from the run's {@link RuntimeContext} (as seed 003's; async work belongs in
 * `score`); a factory runs once when the scorer is created (to learn its name) and then once per
 * run signal, and must keep the same name.
 * @example
 * const correct = createScorer<{ answer: string }, string>({
 *   name: "correct-answer",
 *   score: ({ output, expected }) => ({ score: output.answer === expected ? 1 : 0 }),
 * });
 */
export function createScorer<OUTPUT, EXPECTED = OUTPUT, EXTRA extends Extra = Extra>(
  config:
    | ScorerConfig<OUTPUT, EXPECTED, EXTRA>
    | ((context: RuntimeContext) => ScorerConfig<OUTPUT, EXPECTED, EXTRA>),
): NamedScorer<OUTPUT, EXPECTED, EXTRA> {
  type Config = ScorerConfig<OUTPUT, EXPECTED, EXTRA>;
  const factory = typeof config === "function" ? config : undefined;
  const build = (context: RuntimeContext, known?: string): Config => {
    if (!factory) return config as Config;
    try {
      return factory(context);
    } catch (error) {
      // Thrown as the scorer is created, it fails the module that creates it.
      const advice = known === undefined ? ON_CREATION : "";
      throw new NiceevalError(
        "SCORER_FACTORY",
        `createScorer${known ? `("${known}")` : ""}: the config factory threw: ${errorMessage(error)}${advice}`,
        { cause: error },
      );
    }
  };
  const defaultContext = runtimeContext();
  const first = build(defaultContext);
  const name = checkConfig(first, undefined, factory !== undefined);
  // Its callback may call a judge by a model name resolved only then.
  noteUserScoring();
  const resolved = new WeakMap<AbortSignal, Config>([[defaultContext.signal, first]]);
  const resolve = (context: RuntimeContext): Config => {
    let found = resolved.get(context.signal);
    if (!found) {
      found = build(context, name);
      checkConfig(found, name, true);
      resolved.set(context.signal, found);
    }
    return found;
  };
  // The config and the scoring function depend on the signal only: one of each per run.
  const scoringNow = new WeakMap<AbortSignal, ScoreNowFn<OUTPUT, EXPECTED, EXTRA>>();
  const scoreNow = (context: RuntimeContext): ScoreNowFn<OUTPUT, EXPECTED, EXTRA> => {
    let fn = scoringNow.get(context.signal);
    if (!fn) {
      const { score } = resolve(context);
      fn = (args) => {
        const result = score(args);
        return isThenable(result)
          ? Promise.resolve(result).then((settled) => toNamedScore(name, settled))
          : toNamedScore(name, result);
      };
      scoringNow.set(context.signal, fn);
    }
    return fn;
  };
  const withRuntime = (context: RuntimeContext): ScoreFn<OUTPUT, EXPECTED, EXTRA> => {
    const now = scoreNow(context);
    return async (args) => now(args);
  };
  const scorer = namedScorer(name, withRuntime(defaultContext), withRuntime);
  Object.defineProperty(scorer, SCORE_NOW, { value: { withRuntime, scoreNow } });
  // A factory's judge models are those of its first config, as its name is.
  return withJudgeModels(scorer, configJudgeModels(first, name));
}

/** A scorer's scoring that answers at once when its callback does (see {@link scoreNowOf}). */
export type ScoreNowFn<OUTPUT, EXPECTED, EXTRA extends Extra = Extra> = (
  args: ScorerArgs<OUTPUT, EXPECTED, EXTRA>,
) => NamedScore | Promise<NamedScore>;

// Shared by every copy of niceeval a process loads, as its other process-wide state is.
const SCORE_NOW = Symbol.for("niceeval.scoreNow");

/**
 * How a createScorer scorer scores under a run's context without a promise when its callback
 * returns a plain result, for the suite's synchronous path (a scorer called directly, or through
 * `withRuntime`, always answers with a promise); undefined for other scorers, and for one whose
 * `withRuntime` was replaced (a spy or a wrapper is then called, as it was).
 */
export function scoreNowOf<OUTPUT, EXPECTED, EXTRA extends Extra>(
  scorer: NamedScorer<OUTPUT, EXPECTED, EXTRA>,
): ((context: RuntimeContext) => ScoreNowFn<OUTPUT, EXPECTED, EXTRA>) | undefined {
  const own = (scorer as unknown as Record<symbol, unknown>)[SCORE_NOW] as
    | {
        withRuntime: NamedScorer<OUTPUT, EXPECTED, EXTRA>["withRuntime"];
        scoreNow: (context: RuntimeContext) => ScoreNowFn<OUTPUT, EXPECTED, EXTRA>;
      }
    | undefined;
  return own && own.withRuntime === scorer.withRuntime ? own.scoreNow : undefined;
}

/**
 * Build a scorer value from its name, its direct call (outside any run) and how it scores
 * under a run's context; createScorer and wrapScorer share it.
 */
export function namedScorer<OUTPUT, EXPECTED, EXTRA extends Extra>(
  name: string,
  direct: ScoreFn<OUTPUT, EXPECTED, EXTRA>,
  withRuntime: (context: RuntimeContext) => ScoreFn<OUTPUT, EXPECTED, EXTRA>,
): NamedScorer<OUTPUT, EXPECTED, EXTRA> {
  const scorer = (args: ScorerArgs<OUTPUT, EXPECTED, EXTRA>) => direct(args);
  // A function's own `name` is read-only but configurable: redefine it as the scorer's name.
  Object.defineProperty(scorer, "name", { value: name });
  return Object.assign(scorer, { kind: "scorer" as const, withRuntime }) as NamedScorer<
    OUTPUT,
    EXPECTED,
    EXTRA
  >;
}

/** A config's `judgeModel` as a list, checked: each a non-empty string. */
function configJudgeModels(config: unknown, name: string): string[] {
  const given = (config as { judgeModel?: unknown }).judgeModel;
  if (given === undefined) return [];
  const list: unknown = typeof given === "string" ? [given] : given;
  if (
    !Array.isArray(list) ||
    !list.every((model) => typeof model === "string" && model.trim() !== "")
  ) {
    throw new AuthoringError(
      `createScorer("${name}"): \`judgeModel\` must be a model string such as "anthropic/claude-haiku-4.5", or a list of them, got ${show(given)}`,
    );
  }
  return list as string[];
}

/** The name of a config, checked: a factory's must be the same every time (`expectedName`). */
function checkConfig(
  config: unknown,
  expectedName: string | undefined,
  fromFactory: boolean,
): string {
  const notObject = notAConfigObject(config, fromFactory);
  if (notObject !== undefined) throw new AuthoringError(`createScorer: ${notObject}`);
  const { name, score } = config as { name?: unknown; score?: unknown };
  refuseUnknownKeys(
    typeof name === "string" && name.trim() ? `createScorer("${name}")` : "createScorer",
    config,
    scorerConfigKeys,
  );
  if (typeof name !== "string" || !name.trim()) {
    throw new AuthoringError(
      `createScorer: \`name\` must be a non-empty string, the scorer's name in reports; got ${givenText(name)}`,
    );
  }
  if (typeof score !== "function") {
    throw new AuthoringError(`createScorer("${name}"): \`score\` must be a function`);
  }
  if (expectedName !== undefined && name !== expectedName) {
    throw new AuthoringError(
      `createScorer("${expectedName}"): the config factory returned the name "${name}" for this run; a factory must return the same name every time`,
    );
  }
  return name;
}

/**
 * What a config that is not an object is, worded for where it came from (createScorer's argument
 * or its factory), with what to pass instead; undefined for an object.
 */
function notAConfigObject(config: unknown, fromFactory: boolean): string | undefined {
  if (isThenable(config)) {
    // A factory's rejection would otherwise be unhandled: the error says what to change.
    Promise.resolve(config).catch(() => {});
    return fromFactory
      ? "the config factory returned a promise; a factory must be synchronous and return { name, score } (resolve async dependencies inside `score`, which may be async)"
      : "got a promise; pass the config { name, score } itself, or a synchronous factory (context) => ({ name, score })";
  }
  if (typeof config === "object" && config !== null) return undefined;
  if (fromFactory)
    return `the config factory returned ${config === null ? "null" : typeof config}; return { name, score }`;
  const got =
    config === undefined || config === null ? String(config) : `${show(config)} (${typeof config})`;
  return `pass a config { name, score } or a factory (context) => ({ name, score }), got ${got}`;
}

/**
 * Check what a scorer callback returned and give it the scorer's name. A bare number, a
 * missing result or a non-numeric `score` throws {@link ScorerResultError}; a non-finite
 * number passes through for the runner to report.
 */
export function toNamedScore(name: string, result: unknown): NamedScore {
  if (typeof result === "number") {
    throw new ScorerResultError(
      name,
      `returned the bare number ${result}; return { score: ${result} } instead of ${result}`,
    );
  }
  if (typeof result !== "object" || result === null) {
    const got = result === null ? "null" : result === undefined ? "nothing" : typeof result;
    const fix = result === null ? "return { score: null } for no score" : "return { score }";
    throw new ScorerResultError(name, `returned ${got}; ${fix}`);
  }
  if (!("score" in result)) {
    const keys = Object.keys(result);
    throw new ScorerResultError(
      name,
      `returned an object without \`score\`${keys.length ? ` (keys: ${keys.join(", ")})` : ""}; return { score, metadata? }`,
    );
  }
  const { score, metadata } = result as { score: unknown; metadata?: unknown };
  if (score !== null && typeof score !== "number") {
    throw new ScorerResultError(
      name,
      `returned { score: ${show(score)} } (${typeof score}); \`score\` must be a number or null`,
    );
  }
  const named: NamedScore = { name, score };
  if (metadata !== undefined) named.metadata = metadata as Record<string, unknown>;
  return named;
}

/** Whether a value is a scorer made by createScorer or wrapScorer. */
export function isScorer(value: unknown): value is NamedScorer<unknown, unknown> {
  return typeof value === "function" && (value as { kind?: unknown }).kind === "scorer";
}
