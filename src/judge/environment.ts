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

/** What a Vitest face's case in flight has its judges read (see {@link judgeWithEnvironment}). */
interface FaceEnvironment {
  env: JudgeEnvironment;
  /** The face that registered it, as messages name it: `evaluate "capitals"`. */
  registeredBy: string;
}

const state = processWide("judge.environment", () => ({
  /** The variables as the run found them ({@link pinJudgeEnvironment}). */
  found: undefined as JudgeEnvironment | undefined,
  /** The Vitest faces' cases in flight, latest last. */
  faces: [] as FaceEnvironment[],
}));

/** The judges' variables as they are now. */
export function readJudgeEnvironment(): JudgeEnvironment {
  const read: Record<string, string | undefined> = {};
  for (const name of JUDGE_VARIABLES) read[name] = process.env[name];
  return read;
}

/**
 * A run starts (or a process's first attempt, outside any run), once its eval files loaded: the
 * judges' variables are read now, with the globals the run watches (runner/tampered.ts), so one an
 * eval file sets at its top level (a dotenv it loads) is honoured, and code under test that sets
 * one for its own SDK while attempts run (`process.env.OPENAI_BASE_URL = …`) does not send the
 * judges of that attempt, nor of any later one, elsewhere.
 */
export function pinJudgeEnvironment(): void {
  state.found = readJudgeEnvironment();
}

/**
 * A Vitest face's case runs (`evaluate`, `toVitest`): until the returned function is called, judges
 * read `env`, the variables as the face registered its tests ({@link readJudgeEnvironment}). Vitest
 * collects tests before any hook runs, so that is what `vitest.config`'s `env`, the setup files
 * and the test file's top level set, not what a `beforeEach` or `vi.stubEnv` sets for the app
 * under test (its SDK's `OPENAI_BASE_URL`), nor what the task sets.
 */
export function judgeWithEnvironment(env: JudgeEnvironment, registeredBy: string): () => void {
  const face: FaceEnvironment = { env, registeredBy };
  state.faces.push(face);
  return () => {
    const at = state.faces.lastIndexOf(face);
    if (at !== -1) state.faces.splice(at, 1);
  };
}

/**
 * Where judges read their variables: as the run found them while one is in progress (or an
 * attempt runs outside any run), as a Vitest face registered its tests while one of its cases
 * runs ({@link judgeWithEnvironment}), else `process.env` as it is now (a judge called from a
 * plain Vitest test, `resolveJudge` between runs), so nothing goes stale.
 */
export function judgeEnvironment(): JudgeEnvironment {
  const found = state.found;
  if (found !== undefined && runInProgress()) return found;
  return state.faces.at(-1)?.env ?? process.env;
}

/**
 * Said where a judge finds what it needs missing though some of `names` are set now: set since the
 * run started (or since the Vitest face registered its tests), which judges do not follow; "" when
 * none was.
 */
export function setLaterAdvice(names: readonly string[]): string {
  const found = state.found;
  if (found !== undefined && runInProgress()) {
    const late = names.filter((name) => process.env[name] && !found[name]);
    return late.length === 0
      ? ""
      : `; the code under test set ${late.join(" and ")} while the run went on, but judges read the environment as the run found it once its eval files loaded: set ${them(late)} before the run, or at the top of an eval file`;
  }
  const face = state.faces.at(-1);
  const late = face ? names.filter((name) => process.env[name] && !face.env[name]) : [];
  return face && late.length > 0
    ? `; ${late.join(" and ")} ${late.length > 1 ? "were" : "was"} set after ${face.registeredBy} registered its tests (in a hook, the test or the code under test), but judges read the environment as it was then: set ${them(late)} in vitest.config's \`test.env\`, in a setup file, or at the top of the test file; for an endpoint known only once a hook ran, call registerJudgeProvider there`
    : "";
}

function them(names: readonly string[]): string {
  return names.length > 1 ? "them" : "it";
}
