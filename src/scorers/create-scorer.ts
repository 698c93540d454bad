import { AuthoringError } from "../errors.js";

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
  metadata?: Record<string, unknown>;
}

/** What a scorer callback may return (its own name is replaced by the configured one). */
export type ScoreResult = Omit<NamedScore, "name"> & { name?: string };

/** Worker-local dependencies handed to a scorer config factory. */
export interface RuntimeContext {
  /** Free-form dependencies registered by the runner (judges, clients). */
  readonly dependencies: Readonly<Record<string, unknown>>;
}

/** A scorer's name and callback. */
export interface ScorerConfig<OUTPUT, EXPECTED = OUTPUT, EXTRA extends Extra = Extra> {
  name: string;
  score: (args: ScorerArgs<OUTPUT, EXPECTED, EXTRA>) => ScoreResult | Promise<ScoreResult>;
}

/** A named scoring function, usable in a suite's `scorers` or in `evaluate()`. */
export type Scorer<OUTPUT, EXPECTED = OUTPUT, EXTRA extends Extra = Extra> = ((
  args: ScorerArgs<OUTPUT, EXPECTED, EXTRA>,
) => Promise<NamedScore>) & {
  readonly kind: "scorer";
  readonly scorerName: string;
};

const defaultRuntime: RuntimeContext = Object.freeze({ dependencies: Object.freeze({}) });

/**
 * Give a scoring function a name.
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
): Scorer<OUTPUT, EXPECTED, EXTRA> {
  let resolved: ScorerConfig<OUTPUT, EXPECTED, EXTRA> | undefined =
    typeof config === "function" ? undefined : config;
  const resolve = () => {
    if (!resolved) resolved = (config as (c: RuntimeContext) => typeof resolved)(defaultRuntime);
    if (!resolved) throw new TypeError("createScorer: the config factory returned nothing");
    return resolved;
  };
  // A factory's name is only known once it runs; resolve it eagerly so reports can name it.
  const { name, score } = resolve();
  if (typeof name !== "string" || !name.trim()) {
    throw new AuthoringError("createScorer: `name` must be a non-empty string");
  }
  if (typeof score !== "function") {
    throw new AuthoringError(`createScorer("${name}"): \`score\` must be a function`);
  }
  const scorer = async (args: ScorerArgs<OUTPUT, EXPECTED, EXTRA>): Promise<NamedScore> => {
    const result = await resolve().score(args);
    const named: NamedScore = { name, score: result.score };
    if (result.metadata !== undefined) named.metadata = result.metadata;
    return named;
  };
  return Object.assign(scorer, { kind: "scorer" as const, scorerName: name });
}

/** A scorer from another library: returns a number, `{ score, metadata }`, or a NamedScore. */
export type ForeignScorer<ARGS> = (
  args: ARGS,
) =>
  | number
  | null
  | { score: number | null; metadata?: Record<string, unknown> }
  | Promise<number | null | { score: number | null; metadata?: Record<string, unknown> }>;

/**
 * Adapt an existing scoring function (one returning a number or `{ score, metadata }`)
 * into a named scorer, optionally reshaping its arguments.
 * @example
 * const levenshtein = wrapScorer({ name: "levenshtein", scorer: Levenshtein });
 */
export function wrapScorer<
  OUTPUT,
  EXPECTED = OUTPUT,
  EXTRA extends Extra = Extra,
  ARGS = ScorerArgs<OUTPUT, EXPECTED, EXTRA>,
>(options: {
  name: string;
  scorer: ForeignScorer<ARGS>;
  mapArgs?: (args: ScorerArgs<OUTPUT, EXPECTED, EXTRA>) => ARGS;
}): Scorer<OUTPUT, EXPECTED, EXTRA> {
  return createScorer<OUTPUT, EXPECTED, EXTRA>({
    name: options.name,
    score: async (args) => {
      const foreignArgs = options.mapArgs ? options.mapArgs(args) : (args as unknown as ARGS);
      const result = await options.scorer(foreignArgs);
      if (result === null || typeof result === "number") return { score: result };
      const out: ScoreResult = { score: result.score };
      if (result.metadata !== undefined) out.metadata = result.metadata;
      return out;
    },
  });
}

/** Whether a value is a scorer made by createScorer or wrapScorer. */
export function isScorer(value: unknown): value is Scorer<unknown, unknown> {
  return typeof value === "function" && (value as { kind?: unknown }).kind === "scorer";
}
