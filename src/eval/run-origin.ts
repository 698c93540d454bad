/**
 * Where a run came from, so its messages advise the options its caller has: the CLI
 * (`niceeval run`, its eval processes and queue workers), which has flags such as `--timeout` and
 * resumes a stopped run, or code (runEval, runEvals, a score eval's `run()`, Vitest), which has
 * `timeoutMs` options and no resume. Undefined is code.
 */
export type RunOrigin = "cli" | "code";

/** The options that set an attempt's time limit, as its run's caller gives them. */
export function timeoutOptions(origin: RunOrigin | undefined): string {
  return origin === "cli"
    ? "--timeout or the eval's timeoutMs"
    : "the timeoutMs of the run (runEval, runEvals) or of the eval (defineSuite, defineScoreEval)";
}

/** What becomes of an attempt a stop cut off, after its verdict: a resumed run runs it, in the CLI. */
export function runsAgain(origin: RunOrigin | undefined): string {
  return origin === "cli" ? ", and a resumed run runs it again" : "";
}
