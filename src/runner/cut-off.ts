import type { AttemptRecord } from "../eval/record.js";
import { runsAgain } from "../eval/run-origin.js";
import type { AttemptContext, CaseSpec, Runnable } from "../eval/runnable.js";
import { abortReason, isAborted } from "../signal-state.js";
import { crashed } from "./source.js";

/**
 * The record to keep of an attempt that has just ended: the same one, unless the run was stopped
 * (the context's `signal`, the run's, is aborted now). One that errored then is marked interrupted: its error
 * is most likely the abort itself (the signal's reason, or an AbortError from a `fetch` given
 * `ctx.signal`), and a resumed run runs it again. One that ended without an error or a skip: its
 * target or adapter was then told to stop and may have given up early with whatever it had (a
 * partial answer, an empty one), and a judge call it made was cut short: its verdict would judge
 * the interruption, not the application. It is errored as cut off (`error.interrupted`, as one
 * that threw on the abort is), keeping the judgments it got as evidence and the usage it spent,
 * its score unavailable (left out of the mean, as missing evidence is) and the run's pass rate (it
 * was not judged); a resumed run runs it again, and its message says so where the run can be
 * resumed: the stop says whether (the signal's reason, `resumableStop`), not under --no-store.
 */
export function keptRecord(
  record: AttemptRecord,
  { signal }: Pick<AttemptContext, "signal">,
): AttemptRecord {
  // A skip is the test's own decision, made before the work it skips.
  if (!isAborted(signal) || record.verdict === "skipped") return record;
  if (record.error) return { ...record, error: { ...record.error, interrupted: true } };
  const reason = stopReason(signal);
  const where = `eval "${record.evalId}", case "${record.caseId}"`;
  const message = `the run was stopped (${reason}) while this attempt ran; its ${record.verdict} verdict is not kept${runsAgain(abortReason(signal))}`;
  return {
    ...record,
    verdict: "errored",
    score: {
      ...record.score,
      state: "unavailable",
      reasons: [...record.score.reasons, `${where}: ${message}`],
    },
    error: { message, where, interrupted: true },
  };
}

/**
 * The record of an attempt the run's stop came before, while it waited to start in an eval
 * process: errored as not started. The engine leaves out one it was not told had started (not
 * recorded, as one the engine itself had not started), and marks the others interrupted; either
 * way a resumed run runs it.
 */
export function stoppedBeforeStart(
  of: Pick<Runnable, "id" | "maxPoints">,
  spec: CaseSpec,
  signal: AbortSignal,
): AttemptRecord {
  return crashed(of, spec, `${stopReason(signal)} before the attempt started`);
}

/** Why the run stopped, in words: its signal's reason ("interrupted by SIGINT"). */
function stopReason(signal: AbortSignal): string {
  const reason = abortReason(signal);
  return reason instanceof Error ? reason.message : String(reason);
}
