import { AsyncLocalStorage } from "node:async_hooks";
import { realNow } from "../clock.js";
import { addJudgeUsage, emptyJudgeUsage, type JudgeUsage } from "../eval/record.js";
import { processWide } from "../process-wide.js";
import { judgeEnvironment } from "./environment.js";

/**
 * Judge calls report their tokens here. The runner opens a ledger per attempt (and scorers
 * per judgment) so usage lands on the right record without threading it through every call.
 *
 * The ledgers are an AsyncLocalStorage, and on Node 20 one use of it tracks every promise of
 * the process (18% of a 100,000-case run; with every attempt's ledger open, the eval process of
 * that run took 2.5 times the CPU). So it is built only once a judge call is possible: something
 * that can call a judge was built (a provider, a judge from a model, a closeQA judge, a judged
 * scorer's driver, a registered provider, a resolved model string), or the environment names a
 * judge (read at most once a second) and scoring code of the user's was defined that could call
 * it by a model name resolved only then ({@link noteUserScoring}). A run whose scorers are all
 * niceeval's deterministic tools keeps no ledgers whatever keys the environment holds (a
 * developer's shell has OPENAI_API_KEY), nor does the CLI of a supervised run, which loads no
 * eval file. Until then a ledger is a plain counter that no call can reach. Once possible, always
 * possible. (A target that calls niceeval's judges by model name, an odd thing for the app under
 * test to do, starts the ledgers with its first call: attempts already running then keep that
 * call's usage only when one of them runs alone.)
 */
/**
 * What an attempt's judge calls find without it being passed to them: the ledgers open around
 * them, innermost last, and the attempt's signal (the run's abort and its time limit), so a judge
 * called from a scorer that was given no signal still stops with the run.
 */
interface LedgerScope {
  ledgers: JudgeUsage[];
  signal: AbortSignal | undefined;
  /** The judge calls in flight inside each ledger's scope (one set per ledger, same order). */
  waits: Set<JudgeWait>[];
}

/**
 * A judge call in flight, as a time limit that cuts it off names it: who it waits on, which try,
 * and what for. The call changes it as it goes; the set of its scope sees it live.
 */
export interface JudgeWait {
  /** The judge and its endpoint: `judge "openai/gpt-4.1-mini" at https://api.openai.com/v1`. */
  who: string;
  /** The try under way or next (1-based), of at most `tries`. */
  tryNumber: number;
  tries: number;
  /** A free slot at the endpoint, the answer to a try, or the wait before the next try. */
  phase: "slot" | "answer" | "backoff";
  /** While backing off: what the last try came to. */
  after?: string | undefined;
  /** While backing off: how long the endpoint asked to wait (its Retry-After), ms. */
  retryAfterMs?: number | undefined;
  /** The judge's own limit on one try, ms (configureJudges({ timeoutMs })). */
  timeoutMs: number;
}

const state = processWide("judge.ledger-state", () => ({
  possible: false,
  storage: undefined as AsyncLocalStorage<LedgerScope> | undefined,
  envCheckedAt: Number.NEGATIVE_INFINITY,
  // Start at the count that reads the clock, so the first ask reads the environment.
  asksSinceClock: 63,
  untracked: new Set<JudgeUsage>(),
  /** Scoring code of the user's was defined (see noteUserScoring). */
  userScoring: false,
}));

const JUDGE_ENVIRONMENT = [
  "NICEEVAL_JUDGE_MODEL",
  "NICEEVAL_JUDGE_BASE_URL",
  "ANTHROPIC_API_KEY",
  "OPENAI_API_KEY",
] as const;

/** Say that a judge call can happen from now on (judge builders call this). */
export function markJudgePossible(): void {
  state.possible = true;
}

/**
 * Say that scoring code of the user's was defined: a createScorer callback, a scoring function
 * given to evaluate or wrapScorer, a score eval's test, a driver niceeval does not ship. Such code
 * may call a judge by a model name that is resolved only when called, so from now on a judge the
 * environment names makes judge calls possible. Until it is defined the environment is not read.
 */
export function noteUserScoring(): void {
  state.userScoring = true;
}

/** Drivers that never call a judge: niceeval's deterministic providers. */
const judgeFree = new WeakSet<object>();

/** Declare a driver that never calls a judge; returns it. */
export function declareJudgeFree<Driver extends object>(driver: Driver): Driver {
  judgeFree.add(driver);
  return driver;
}

/** A scorer bound to `driver` was defined: user scoring code unless the driver is judge-free. */
export function noteScorerDriver(driver: object): void {
  if (!judgeFree.has(driver)) noteUserScoring();
}

function ledgers(): AsyncLocalStorage<LedgerScope> | undefined {
  if (state.storage) return state.storage;
  if (!state.possible) {
    // No scoring code that could call a judge by name: the environment cannot make one possible.
    if (!state.userScoring) return undefined;
    // The clock itself is read once per 64 asks: a run asks once per scorer and attempt, and
    // reading it each time cost 3 % of a deterministic run's eval process.
    if (++state.asksSinceClock < 64) return undefined;
    state.asksSinceClock = 0;
    const now = realNow();
    if (now - state.envCheckedAt < 1000) return undefined;
    state.envCheckedAt = now;
    const env = judgeEnvironment();
    if (!JUDGE_ENVIRONMENT.some((name) => env[name])) return undefined;
  }
  state.storage = new AsyncLocalStorage<LedgerScope>();
  return state.storage;
}

/** Whether ledgers are kept (a judge call is possible); when not, callers may skip opening one. */
export function judgeLedgersOpen(): boolean {
  return ledgers() !== undefined;
}

/**
 * Run `work` with a fresh ledger nested inside the current ones; returns what it spent. `signal`
 * (else the enclosing one) is what judge calls inside it stop with when given none. `waits`
 * (default a new set) holds the judge calls in flight inside it, for a caller that must say what
 * a time limit cut off.
 */
export async function withJudgeLedger<T>(
  work: () => Promise<T>,
  signal?: AbortSignal,
  waits: Set<JudgeWait> = new Set(),
): Promise<{ result: T; usage: JudgeUsage }> {
  const usage = emptyJudgeUsage();
  const storage = ledgers();
  if (!storage) {
    // No tracking yet: a judge built inside `work` still reports here when this ledger is the
    // only one open (see recordJudgeUsage).
    state.untracked.add(usage);
    try {
      return { result: await work(), usage };
    } finally {
      state.untracked.delete(usage);
    }
  }
  const outer = storage.getStore();
  const scope: LedgerScope = {
    ledgers: [...(outer?.ledgers ?? []), usage],
    signal: signal ?? outer?.signal,
    waits: [...(outer?.waits ?? []), waits],
  };
  const result = await storage.run(scope, work);
  return { result, usage };
}

/** The signal of the attempt a judge call is made in, when ledgers are kept and it has one. */
export function attemptSignal(): AbortSignal | undefined {
  return state.storage?.getStore()?.signal;
}

/**
 * The judge calls in flight inside the innermost open ledger (nested ledgers' calls included), as
 * a live set: what its owner was waiting on when a time limit cut it off.
 */
export function judgeWaitsHere(): ReadonlySet<JudgeWait> | undefined {
  return state.storage?.getStore()?.waits.at(-1);
}

/** Say that a judge call is in flight in every open ledger's scope; returns its removal. */
export function trackJudgeWait(wait: JudgeWait): () => void {
  const sets = state.storage?.getStore()?.waits ?? [];
  for (const set of sets) set.add(wait);
  return () => {
    for (const set of sets) set.delete(wait);
  };
}

/** Record one judge call's usage into every open ledger. */
export function recordJudgeUsage(
  usage: {
    [Field in keyof JudgeUsage]?: JudgeUsage[Field] | undefined;
  },
): void {
  // A call nobody announced (a hand-written judge): ledgers opened from now on will hear.
  state.possible = true;
  const full: JudgeUsage = emptyJudgeUsage();
  // A field given as undefined is one left out: it stays 0 (a spread would make it undefined).
  for (const [field, value] of Object.entries(usage))
    if (value !== undefined) (full as unknown as Record<string, unknown>)[field] = value;
  const stack = state.storage?.getStore()?.ledgers;
  if (stack) {
    for (const ledger of stack) addJudgeUsage(ledger, full);
    return;
  }
  // Ledgers opened before tracking began: only a single one can be told apart.
  if (state.untracked.size === 1) for (const ledger of state.untracked) addJudgeUsage(ledger, full);
}
