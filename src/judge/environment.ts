import { processWide } from "../process-wide.js";
import { runInProgress } from "../runner/globals.js";

/** The environment variables judges depend on (resolve.ts, registry.ts, ledger.ts). */
export const JUDGE_VARIABLES = [
  "NICEEVAL_JUDGE_BASE_URL",
  "NICEEVAL_JUDGE_API_KEY",
  "NICEEVAL_JUDGE_MODEL",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_BASE_URL",
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
] as const;

/** Those variables, as judges read them. */
export type JudgeEnvironment = Readonly<Record<string, string | undefined>>;

const state = processWide("judge.environment", () => ({
  /** The variables as the run found them ({@link pinJudgeEnvironment}). */
  found: undefined as JudgeEnvironment | undefined,
}));

/**
 * A run starts (or a process's first attempt, outside any run), once its eval files loaded: the
 * judges' variables are read now, with the globals the run watches (runner/tampered.ts), so one an
 * eval file sets at its top level (a dotenv it loads) is honoured, and code under test that sets
 * one for its own SDK while attempts run (`process.env.OPENAI_BASE_URL = …`) does not send the
 * judges of that attempt, nor of any later one, elsewhere.
 */
export function pinJudgeEnvironment(): void {
  const found: Record<string, string | undefined> = {};
  for (const name of JUDGE_VARIABLES) found[name] = process.env[name];
  state.found = found;
}

/**
 * Where judges read their variables: as the run found them while one is in progress (or an
 * attempt runs outside any run), else `process.env` as it is now (a judge called from a Vitest
 * test, `resolveJudge` between runs), so nothing goes stale.
 */
export function judgeEnvironment(): JudgeEnvironment {
  const found = state.found;
  return found !== undefined && runInProgress() ? found : process.env;
}

/**
 * Whether `name` is set now but was not as the run found it: the code under test set it while
 * attempts ran, which judges do not follow (said where a judge then finds it missing).
 */
export function setSinceRunStarted(name: string): boolean {
  const found = state.found;
  return found !== undefined && runInProgress() && !found[name] && Boolean(process.env[name]);
}
