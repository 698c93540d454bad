import type { AttemptRecord } from "./record.js";

/** A case's limit under Vitest and the test's timeout it stays under, ms (see `caseLimit`). */
interface TestLimit {
  ms: number;
  testTimeout: number;
}

/**
 * Vitest fails a test that ends past its timeout, whatever held the thread (it checks the time
 * as the test ends, its own timer being unable to fire while the thread is held). A case that
 * niceeval kept can still end so: cases or items run side by side (concurrently), the thread was
 * held past its limit, and which of them held it is not known, so none was blamed (see
 * `Deadline.passed`). Such a case, whose test would end without failing, is errored here saying
 * so, so its meta, the summary and the failure Vitest shows agree with Vitest's verdict. False
 * when the case ended in time, or fails already (a part timed out, threw or was unavailable).
 */
export function endedPastTestTimeout(
  record: AttemptRecord,
  endedMs: number,
  limit: TestLimit,
  targetName: string,
): boolean {
  if (endedMs < limit.testTimeout || record.error !== undefined) return false;
  if (record.judgments.some((j) => j.state === "errored" || j.state === "unavailable"))
    return false;
  record.verdict = "errored";
  record.error = {
    message: `${targetName} and its scorers ended at ${Math.round(endedMs)} ms, past the test's timeout (${limit.testTimeout} ms), which fails the test whatever held the thread: the thread was held past niceeval's limit (${limit.ms} ms) while other cases or items ran beside this one, and which of them held it is not known in one process (synchronous code cannot be timed out: a limit stops only code that yields); make the code that holds it yield (await between its steps), run these tests one at a time, or raise the timeout`,
    where: `case "${record.caseId}" in eval "${record.evalId}"`,
  };
  return true;
}
