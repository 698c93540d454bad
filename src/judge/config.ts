import { resolve } from "node:path";
import { type KnownKeys, refuseUnknownKeys } from "../known-keys.js";
import { processWide } from "../process-wide.js";
import { requireOptions } from "../required.js";

/** Price of one model, US dollars per million tokens. */
export interface JudgePrice {
  inputPerMTok: number;
  outputPerMTok: number;
}

/** Settings every judge call reads; change them with {@link configureJudges}. */
export interface JudgeSettings {
  /** Cache temperature-0 judge answers on disk (default true; the CLI's --no-cache sets false). */
  cache: boolean;
  /** Cache folder (default `.niceeval/cache` under the current directory). */
  cacheDir: string | undefined;
  /**
   * Price table. A call's price is looked up under its model string as written
   * (`"anthropic/claude-haiku-4.5"`), then the model after the provider's name
   * (`"claude-haiku-4.5"`), then the name the provider's API receives (`"claude-haiku-4-5"`);
   * an AI SDK model under `"anthropic/<model id>"`, its model id, then its AI SDK name
   * (`"anthropic.messages/<model id>"`). Calls it has no price for are counted as unpriced, and
   * the cost then shown is a lower bound that says so.
   */
  prices: Readonly<Record<string, JudgePrice>>;
  /**
   * Calls in flight per endpoint, at most (default 64). Below it the limit adapts: it starts at
   * 8, grows while calls succeed and wait for slots, and shrinks when the endpoint answers 429
   * (or 503, 529) or a try gets no answer within timeoutMs.
   */
  concurrency: number;
  /** Per-call timeout in ms (default 60 000). */
  timeoutMs: number;
  /** Retries after the first try of a call (default 5). */
  maxRetries: number;
  /** First backoff step in ms, doubled per retry with jitter (default 500). */
  retryBaseMs: number;
  /** Longest single backoff wait in ms (default 30 000). */
  retryMaxMs: number;
  /** Longest Retry-After honoured, in ms (default 120 000); an endpoint asking for more fails the call. */
  maxRetryAfterMs: number;
  /**
   * Largest judge answer body read, in bytes (default 1 MiB). A longer answer is not read
   * further: that judgment is unavailable, with the size and this cap as the reason.
   */
  maxResponseBytes: number;
  /** The model t.closeQA uses when none is set in code (else NICEEVAL_JUDGE_MODEL). */
  closeQAModel: string | undefined;
  /**
   * The fewest output tokens a judge call may ask for (default: none, each judge's own: 400 for
   * `judgeFromModel`, 600 for closeQA, 256 + 160 per line for `expectations`). A judge asking
   * for fewer asks for this many; none asks for less than its own. Raise it for a reasoning
   * model, which spends its reasoning from the same budget.
   */
  maxOutputTokens: number | undefined;
}

const defaults = (): JudgeSettings => ({
  cache: true,
  cacheDir: undefined,
  prices: {},
  concurrency: 64,
  timeoutMs: 60_000,
  maxRetries: 5,
  retryBaseMs: 500,
  retryMaxMs: 30_000,
  maxRetryAfterMs: 120_000,
  maxResponseBytes: 1024 * 1024,
  closeQAModel: undefined,
  maxOutputTokens: undefined,
});

const state = processWide("judge.config", () => ({
  settings: defaults(),
  listeners: new Set<(settings: JudgeSettings) => void>(),
  /** The directory a relative cache folder is under (see {@link pinCacheBase}). */
  base: currentDirectory(),
}));

/** The current directory; undefined when code under test removed it. */
function currentDirectory(): string | undefined {
  try {
    return process.cwd();
  } catch {
    return undefined;
  }
}

/**
 * A run starts (or a process's first attempt, outside any run): a relative cache folder is
 * under the current directory now, until the next run. Code under test that changes directory
 * (a coding agent in its checkout) or removes it (a temporary workspace) moves no cache, and
 * breaks no judged scorer with "ENOENT: uv_cwd".
 */
export function pinCacheBase(): void {
  state.base = currentDirectory() ?? state.base;
}

/**
 * Configure judge calls for this process; unspecified fields, and fields given as undefined, keep
 * their value.
 * @example
 * configureJudges({ cache: false, concurrency: 4, prices: { "openai/gpt-4.1-mini": { inputPerMTok: 0.4, outputPerMTok: 1.6 } } });
 */
export function configureJudges(
  options: {
    [Key in keyof JudgeSettings]?: JudgeSettings[Key] | undefined;
  },
): JudgeSettings {
  requireOptions("configureJudges", options, "{ concurrency: 4, timeoutMs: 30_000 }");
  refuseUnknownKeys("configureJudges", options, SETTING_KEYS);
  for (const key of [
    "concurrency",
    "timeoutMs",
    "retryBaseMs",
    "retryMaxMs",
    "maxRetryAfterMs",
    "maxResponseBytes",
  ] as const) {
    const value = options[key];
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
      throw new TypeError(
        `configureJudges: \`${key}\` must be a positive number, got ${String(value)}`,
      );
    }
  }
  if (
    options.maxRetries !== undefined &&
    !(Number.isInteger(options.maxRetries) && options.maxRetries >= 0)
  ) {
    throw new TypeError(
      `configureJudges: \`maxRetries\` must be an integer >= 0, got ${String(options.maxRetries)}`,
    );
  }
  if (
    options.maxOutputTokens !== undefined &&
    !(Number.isInteger(options.maxOutputTokens) && options.maxOutputTokens > 0)
  ) {
    throw new TypeError(
      `configureJudges: \`maxOutputTokens\` must be a whole number > 0, got ${String(options.maxOutputTokens)}`,
    );
  }
  const defined = Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  );
  state.settings = { ...state.settings, ...defined };
  for (const listener of state.listeners) listener(state.settings);
  return state.settings;
}

const SETTING_KEYS = {
  cache: true,
  cacheDir: true,
  prices: true,
  concurrency: true,
  timeoutMs: true,
  maxRetries: true,
  retryBaseMs: true,
  retryMaxMs: true,
  maxRetryAfterMs: true,
  maxResponseBytes: true,
  closeQAModel: true,
  maxOutputTokens: true,
} satisfies KnownKeys<JudgeSettings>;

/** Back to the defaults (tests). */
export function resetJudgeConfig(): void {
  state.settings = defaults();
  for (const listener of state.listeners) listener(state.settings);
}

/** The settings in force. */
export function judgeSettings(): Readonly<JudgeSettings> {
  return state.settings;
}

/**
 * The cache folder in force, a relative one under the current directory as the run started
 * ({@link pinCacheBase}), else as niceeval loaded.
 */
export function cacheDirectory(): string {
  const dir = state.settings.cacheDir ?? ".niceeval/cache";
  return state.base === undefined ? resolve(dir) : resolve(state.base, dir);
}

/** Be told when settings change (schedulers follow the concurrency cap). */
export function onJudgeSettings(listener: (settings: JudgeSettings) => void): void {
  state.listeners.add(listener);
}
