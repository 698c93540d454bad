import { AuthoringError } from "../errors.js";
import { judgeModelsOf, withJudgeModels } from "../judge/judge-models.js";
import { noteUserScoring } from "../judge/ledger.js";
import { type KnownKeys, refuseUnknownKeys } from "../known-keys.js";
import {
  type Extra,
  isScorer,
  type NamedScorer,
  namedScorer,
  type RuntimeContext,
  type ScoreFn,
  type ScorerArgs,
  toNamedScore,
} from "./create-scorer.js";

/** How {@link wrapScorer} maps a case's values before the inner scorer sees them. */
export interface WrapScorerOptions<OUTPUT, EXPECTED, INNER_OUTPUT, INNER_EXPECTED> {
  /** Turn the task's output into the output the inner scorer expects. */
  output?: ((output: OUTPUT) => INNER_OUTPUT) | undefined;
  /** Turn the case's expected value into the one the inner scorer expects. */
  expected?: ((expected: EXPECTED) => INNER_EXPECTED) | undefined;
}
const wrapScorerOptionsKeys = {
  output: true,
  expected: true,
} satisfies KnownKeys<WrapScorerOptions<unknown, unknown, unknown, unknown>>;

/**
 * A scorer to wrap: one made by createScorer, or a named function from another library that
 * takes `{ output, expected, ...extra }` and returns `{ score, metadata? }`.
 */
export type WrappableScorer<OUTPUT, EXPECTED, EXTRA extends Extra> =
  | NamedScorer<OUTPUT, EXPECTED, EXTRA>
  | ((args: { output: OUTPUT; expected: EXPECTED }) => ForeignScore | Promise<ForeignScore>);

/** What a scoring function from another library returns (its own `name` is replaced). */
export type ForeignScore = { score: number | null; metadata?: Record<string, unknown> | undefined };

// biome-ignore lint/suspicious/noExplicitAny: a mapping's argument type is the caller's
type Mapper = (value: any) => unknown;

// A scoring function's own `output` and `expected` are not extra fields.
type Rest<EXTRA extends Extra> = Omit<EXTRA, "output" | "expected">;

// viteval's type parameters, in its order and with its defaults, so explicit type arguments
// written for viteval mean the same here. Overloads keep the untouched side's type when the
// arguments are inferred: mapping only `expected` leaves `output` as the inner scorer's.
export function wrapScorer<
  OUTPUT,
  EXPECTED,
  INNER_OUTPUT = OUTPUT,
  _INNER_EXPECTED = EXPECTED,
  EXTRA extends Extra = Extra,
>(
  scorer: WrappableScorer<INNER_OUTPUT, EXPECTED, EXTRA>,
  options: { output: (output: OUTPUT) => INNER_OUTPUT; expected?: undefined },
): NamedScorer<OUTPUT, EXPECTED, Rest<EXTRA>>;
export function wrapScorer<
  OUTPUT,
  EXPECTED,
  _INNER_OUTPUT = OUTPUT,
  INNER_EXPECTED = EXPECTED,
  EXTRA extends Extra = Extra,
>(
  scorer: WrappableScorer<OUTPUT, INNER_EXPECTED, EXTRA>,
  options: { expected: (expected: EXPECTED) => INNER_EXPECTED; output?: undefined },
): NamedScorer<OUTPUT, EXPECTED, Rest<EXTRA>>;
export function wrapScorer<
  OUTPUT,
  EXPECTED,
  _INNER_OUTPUT = OUTPUT,
  _INNER_EXPECTED = EXPECTED,
  EXTRA extends Extra = Extra,
>(
  scorer: WrappableScorer<OUTPUT, EXPECTED, EXTRA>,
  options?: { output?: undefined; expected?: undefined },
): NamedScorer<OUTPUT, EXPECTED, Rest<EXTRA>>;
// viteval's own signature: both mappings, or options typed as WrapScorerOptions.
export function wrapScorer<
  OUTPUT,
  EXPECTED,
  INNER_OUTPUT = OUTPUT,
  INNER_EXPECTED = EXPECTED,
  EXTRA extends Extra = Extra,
>(
  scorer: WrappableScorer<INNER_OUTPUT, INNER_EXPECTED, EXTRA>,
  options: WrapScorerOptions<OUTPUT, EXPECTED, INNER_OUTPUT, INNER_EXPECTED>,
): NamedScorer<OUTPUT, EXPECTED, Rest<EXTRA>>;
/**
 * Adapt an existing scorer: map the task's output and/or the expected value before the inner
 * scorer sees them. Extra fields (input among them) pass through unchanged, and the wrapped
 * scorer keeps the inner scorer's name and its config factory.
 * @example
 * // Reuse a string scorer when the task returns { text } and the case expects { answer }.
 * const sameText = wrapScorer(exactText, {
 *   output: (o: { text: string }) => o.text,
 *   expected: (e: { answer: string }) => e.answer,
 * });
 */
export function wrapScorer(
  // biome-ignore lint/suspicious/noExplicitAny: the overloads above carry the types
  scorer: WrappableScorer<any, any, any>,
  options: { output?: Mapper | undefined; expected?: Mapper | undefined } = {},
  // biome-ignore lint/suspicious/noExplicitAny: the overloads above carry the types
): NamedScorer<any, any, any> {
  if (typeof scorer !== "function") {
    throw new AuthoringError(
      "wrapScorer: the first argument must be a scorer (createScorer's result or a scoring function)",
    );
  }
  const name = scorer.name;
  if (typeof name !== "string" || !name.trim()) {
    throw new AuthoringError(
      "wrapScorer: the scorer has no name; build it with createScorer({ name, score })",
    );
  }
  // A mapping passed on its own (wrapScorer(scorer, fn)) would otherwise be ignored without a word.
  if (typeof options !== "object" || options === null) {
    throw new AuthoringError(
      `wrapScorer("${name}"): options must be an object { output?, expected? } of mapping functions, got ${options === null ? "null" : `a ${typeof options}`}; to map the output, write wrapScorer(scorer, { output: fn })`,
    );
  }
  refuseUnknownKeys(`wrapScorer("${name}")`, options, wrapScorerOptionsKeys);
  for (const key of ["output", "expected"] as const) {
    if (options[key] !== undefined && typeof options[key] !== "function") {
      throw new AuthoringError(`wrapScorer("${name}"): \`${key}\` must be a function`);
    }
  }
  const { output: mapOutput, expected: mapExpected } = options;
  // A scoring function of the user's may call a judge by a model name resolved only then.
  noteUserScoring();
  const mapped = (args: ScorerArgs<unknown, unknown>): ScorerArgs<unknown, unknown> => ({
    ...args,
    output: mapOutput ? mapOutput(args.output) : args.output,
    expected: mapExpected ? mapExpected(args.expected) : args.expected,
  });
  const plain = async (args: ScorerArgs<unknown, unknown>) =>
    toNamedScore(name, await scorer(args));
  const direct = isScorer(scorer) ? scorer : plain;
  const wrapped = namedScorer(
    name,
    async (args) => direct(mapped(args)),
    (context: RuntimeContext): ScoreFn<unknown, unknown, Extra> => {
      const score = isScorer(scorer) ? scorer.withRuntime(context) : plain;
      return async (args) => score(mapped(args));
    },
  );
  // It judges with the inner scorer's judge models (createScorer's `judgeModel`).
  return withJudgeModels(wrapped, judgeModelsOf(scorer));
}
