/**
 * The one result model. Every authoring style (dataset suites, score evals, Vitest evaluations)
 * produces AttemptRecords; the runner, reports, JSON output and telemetry all speak it.
 */

/** Outcome of one attempt. Precedence: errored > failed > skipped > passed. */
export type Verdict = "passed" | "failed" | "skipped" | "errored";

/**
 * State of one judgment. `unavailable` means the evidence was missing (never a zero);
 * `errored` means a scorer, matcher or the application crashed.
 */
export type JudgmentState = "matched" | "mismatched" | "unavailable" | "errored";

/** Tokens and cost of judge (model) calls made for a judgment, an eval or a run. */
export interface JudgeUsage {
  calls: number;
  cachedCalls: number;
  retries: number;
  /** Tokens the providers reported; with `unreportedCalls`, a lower bound. */
  inputTokens: number;
  outputTokens: number;
  /**
   * Answered calls whose provider reported no usage (no token counts, or only one of them):
   * their tokens are unknown, not 0, so the token counts and the cost are lower bounds. Absent
   * when every answer reported its usage.
   */
  unreportedCalls?: number | undefined;
  /**
   * Present only when a price table was configured and priced some call's reported tokens. With
   * `unpriced`, it covers only the priced calls, and with `unreportedCalls` only the tokens that
   * were reported: a lower bound of the cost.
   */
  costUsd?: number | undefined;
  /** The calls a configured price table had no price for: what `costUsd` leaves out. */
  unpriced?: UnpricedJudgeUsage | undefined;
  /** Wall time of uncached calls only. */
  latencyMs: number;
}

/** Judge calls (with tokens) that the price table in force had no price for. */
export interface UnpricedJudgeUsage {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  /** The model strings to add to the price table, at most {@link MAX_UNPRICED_MODELS}. */
  models: string[];
}

/** Unpriced models named in a usage; a run with more names is told about the first ones. */
export const MAX_UNPRICED_MODELS = 10;

/** One check, scorer or judged question, as reported. */
export interface Judgment {
  /** What is judged, e.g. "exact" or "At least one delivery". */
  label: string;
  /** Where the judgment came from: a scorer, t.check, t.score, t.closeQA… */
  source: string;
  state: JudgmentState;
  /** A gate must hold for the attempt to pass. */
  gate: boolean;
  /** The points it can earn (0 for a pure gate). */
  points: number;
  /** Points earned; null when unavailable or errored. */
  earned: number | null;
  /** The raw 0..1 value, when the judgment has one (scorers, ratios, judged questions). */
  value?: number | null;
  reason: string;
  /** Inspectable details: a match tree, a judge audit, scorer metadata. */
  detail?: unknown;
  /** Judge calls spent on this judgment. */
  judge?: JudgeUsage;
}

/** Earned out of max. `partial` is a lower bound: unavailable weight stays in max. */
export interface ScoreSummary {
  state: "complete" | "partial" | "unavailable";
  earned: number;
  max: number;
  reasons: string[];
}

/** A numeric fact that may be missing. */
export type NumericEvidence =
  | { readonly state: "available"; readonly value: number }
  | { readonly state: "unavailable"; readonly reason: string };

/** The application's own usage, as reported by its adapter (never fabricated). */
export interface AppUsage {
  inputTokens: NumericEvidence;
  outputTokens: NumericEvidence;
  totalTokens: NumericEvidence;
  costUsd: NumericEvidence;
}

/** One step of what the target or application did: a message, or a tool call with its result. */
export type TraceStep =
  | { kind: "message"; role: string; content: unknown }
  | { kind: "tool-call"; name: string; input: unknown; output?: unknown; error?: string };

/** What the target or adapter reported it did during an attempt, in order. */
export interface Trace {
  steps: TraceStep[];
}

/** One attempt of one case of one eval. */
export interface AttemptRecord {
  evalId: string;
  caseId: string;
  /**
   * Trial index, 0-based; absent means 0 (the first trial, and every attempt of a run without
   * trials): read it as `record.trial ?? 0`.
   */
  trial?: number;
  /** Position of the case in its eval's dataset (set by the engine). */
  index?: number;
  /** Cases sharing a cluster (e.g. questions about one document) are resampled together. */
  cluster?: string;
  verdict: Verdict;
  score: ScoreSummary;
  judgments: Judgment[];
  usage: { app: AppUsage; judge: JudgeUsage };
  elapsedMs: number;
  /** Present when the target, adapter or eval crashed. */
  error?: {
    message: string;
    where: string;
    /**
     * The stack frames of what the target, adapter or test threw, one per line, source-mapped and
     * bounded (`thrownStack`); `message` names only the first frame in the user's code. Absent for
     * niceeval's own errors, and in records stored before it was kept.
     */
    stack?: string;
    /**
     * The run was stopped (SIGINT, SIGTERM, an abort) while this attempt ran or waited: a resumed
     * run runs it again instead of keeping this error.
     */
    interrupted?: true;
    /**
     * With `interrupted`: the stop came before the attempt started, while its executor held it
     * waiting (a queue job no worker had taken), so none of it ran. Reports count it apart from
     * the attempts the stop cut off.
     */
    notStarted?: true;
  };
  /** Why the attempt was skipped (t.skip). */
  skipReason?: string;
  /** The target's output (dataset suites), kept only when asked for. */
  output?: unknown;
  /** The case's input, expected value and metadata, kept only when asked for. */
  input?: unknown;
  expected?: unknown;
  metadata?: Readonly<Record<string, unknown>>;
  /** Messages and tool calls, when the target or adapter reports them. */
  trace?: Trace;
}

/**
 * Whether the run's stop cut this attempt off (errored with `error.interrupted`): it was not
 * judged, so it is in no pass rate, as missing evidence is never a failure.
 */
export const cutOff = (record: Pick<AttemptRecord, "verdict" | "error">): boolean =>
  record.verdict === "errored" && record.error?.interrupted === true;

export const emptyJudgeUsage = (): JudgeUsage => ({
  calls: 0,
  cachedCalls: 0,
  retries: 0,
  inputTokens: 0,
  outputTokens: 0,
  latencyMs: 0,
});

/** Add `more` into `into` (mutates `into`). */
export function addJudgeUsage(into: JudgeUsage, more: JudgeUsage | undefined): JudgeUsage {
  if (!more) return into;
  into.calls += more.calls;
  into.cachedCalls += more.cachedCalls;
  into.retries += more.retries;
  into.inputTokens += more.inputTokens;
  into.outputTokens += more.outputTokens;
  into.latencyMs += more.latencyMs;
  if (more.unreportedCalls)
    into.unreportedCalls = (into.unreportedCalls ?? 0) + more.unreportedCalls;
  if (more.costUsd !== undefined) into.costUsd = (into.costUsd ?? 0) + more.costUsd;
  if (more.unpriced) addUnpriced(into, more.unpriced);
  return into;
}

function addUnpriced(into: JudgeUsage, more: UnpricedJudgeUsage): void {
  const sum = into.unpriced ?? { calls: 0, inputTokens: 0, outputTokens: 0, models: [] };
  into.unpriced = sum;
  sum.calls += more.calls;
  sum.inputTokens += more.inputTokens;
  sum.outputTokens += more.outputTokens;
  for (const model of more.models)
    if (sum.models.length < MAX_UNPRICED_MODELS && !sum.models.includes(model))
      sum.models.push(model);
}

/**
 * The record of an attempt that crashed before anything could be judged (the target, the
 * adapter's create, the case source): errored, with where and why, and an unavailable score.
 */
export function erroredRecord(options: {
  evalId: string;
  caseId: string;
  message: string;
  where: string;
  elapsedMs?: number;
  /** Points the attempt could have earned, kept in max (default 0). */
  max?: number;
  /** What the application reported of its usage before it crashed (default: none reported). */
  app?: AppUsage;
  /** The stack frames of what was thrown, when it has them. */
  stack?: string | undefined;
}): AttemptRecord {
  const error: NonNullable<AttemptRecord["error"]> = {
    message: options.message,
    where: options.where,
  };
  if (options.stack !== undefined) error.stack = options.stack;
  return {
    evalId: options.evalId,
    caseId: options.caseId,
    verdict: "errored",
    score: {
      state: "unavailable",
      earned: 0,
      max: options.max ?? 0,
      reasons: [`${options.where}: ${options.message}`],
    },
    judgments: [],
    usage: { app: options.app ?? unreportedUsage(), judge: emptyJudgeUsage() },
    elapsedMs: options.elapsedMs ?? 0,
    error,
  };
}

const usageOf = (reason: string): AppUsage =>
  Object.freeze({
    inputTokens: Object.freeze({ state: "unavailable", reason }),
    outputTokens: Object.freeze({ state: "unavailable", reason }),
    totalTokens: Object.freeze({ state: "unavailable", reason }),
    costUsd: Object.freeze({ state: "unavailable", reason }),
  });

/** Usage nobody reported; the common case is one shared, frozen value (it is never mutated). */
const UNREPORTED = usageOf("usage-unreported");

export const unreportedUsage = (reason = "usage-unreported"): AppUsage =>
  reason === "usage-unreported" ? UNREPORTED : usageOf(reason);
