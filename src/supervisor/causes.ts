// What the supervisor says about an eval process that ended or hung, and about the attempts it
// errors because of that: the words only, decided elsewhere (executor.ts).
import { trialLabel } from "../eval/trial-label.js";
import type { EvalProcess } from "./eval-process.js";

/** Crashes an attempt may be in flight for before it is errored instead of run again. */
export const MAX_STRIKES = 2;
/** Loading eval files may block longer than a case: this is its floor, ms. */
const STARTUP_TIMEOUT_MS = 30_000;
/**
 * What helps an attempt whose code held the thread past --hang-timeout: code that yields lets
 * the eval process answer between its steps; code that must hold the thread that long needs a
 * longer limit.
 */
const HANG_ADVICE =
  "make its code yield (await between its steps), or raise --hang-timeout if it must hold the thread longer";

/** An attempt as a crash notice names it: "ev/c3", or "ev/c3 [trial 2]" when its eval has trials. */
export function attemptLabel(
  evalId: string,
  caseId: string,
  trial: number,
  trials: number,
): string {
  return `${evalId}/${caseId}${trialLabel(trial, trials)}`;
}

/** Names, at most five, then how many more. */
function listed(names: readonly string[], more = 0): string {
  const rest = Math.max(0, names.length - 5) + more;
  return `${names.slice(0, 5).join(", ")}${rest > 0 ? ` and ${rest} more` : ""}`;
}

/**
 * What a crash of the eval process is said as: its cause, what was in flight (`inFlight`, named),
 * what had just ended (`afterEnd`: when it exited, those whose records had not left), what runs
 * again.
 */
export function crashMessage(
  cause: string,
  crash: {
    inFlight: readonly string[];
    afterEnd?: readonly string[];
    struckAhead: number;
    rerun: number;
    ready: boolean;
    /** The eval file it was importing, when it crashed while loading one. */
    loading?: string;
    /** No new eval process is started: the run gives up on the attempts left. */
    last?: boolean;
  },
): string {
  const during = whenItCrashed(crash);
  if (crash.last)
    return `niceeval: ${cause}${during}; no eval process could load the eval files, so the run's attempts are errored\n`;
  const again = crash.rerun ? `; running ${crash.rerun} of them again, one at a time` : "";
  return `niceeval: ${cause}${during}${again}; starting a new eval process\n`;
}

/**
 * An exit of the eval process that belongs to no attempt, as the run's error: `crash` as for
 * {@link crashMessage}; those in flight (`rerun`) ran again alone and none ended it again.
 */
export function exitOfNoAttempt(cause: string, crash: Parameters<typeof crashMessage>[1]): string {
  const during = whenItCrashed(crash);
  const none =
    crash.rerun === 0
      ? "no attempt was running"
      : crash.rerun === 1
        ? "the attempt in flight did not end it again when it ran alone"
        : `none of the ${crash.rerun} attempts in flight ended it again when each ran alone`;
  return `${cause}${during}: ${none}, so the exit is the run's, not an attempt's`;
}

/**
 * What a crash of the eval process after the run's stop reached it (its grace period) is said as:
 * nothing runs again, so the `cut` attempts it was running are errored as cut off (not run again
 * alone to tell whose the crash was); `open`: it exited on its own, and whose exit it was is not
 * known; `resumable`: a resumed run runs them.
 */
export function crashAfterStop(
  cause: string,
  crash: Parameters<typeof crashMessage>[1],
  cut: number,
  open: boolean,
  resumable: boolean,
): string {
  const during = whenItCrashed(crash);
  if (cut === 0) return `niceeval: ${cause}${during}, after the run was stopped\n`;
  const them = cut === 1 ? "1 attempt it was running is" : `${cut} attempts it was running are`;
  const whose = open ? ", so whose exit it was is not known" : "";
  const again = resumable ? `; a resumed run runs ${cut === 1 ? "it" : "them"} again` : "";
  return `niceeval: ${cause}${during}, after the run was stopped: ${them} errored as cut off, not run again alone${whose}${again}\n`;
}

/**
 * What an uncaught error no attempt could be tied to (`message`) is said as when it was thrown
 * after the run's stop reached the eval process: nothing runs again, so the `inFlight` attempts
 * then running are errored as cut off, and whose it was is not known (not put on the run);
 * `resumable`: a resumed run runs them.
 */
export function thrownAfterStop(message: string, inFlight: number, resumable: boolean): string {
  const some = inFlight === 1 ? "1 attempt was" : `${inFlight} attempts were`;
  const them = inFlight === 1 ? "it is" : "they are";
  const again = resumable ? `; a resumed run runs ${inFlight === 1 ? "it" : "them"} again` : "";
  return `niceeval: ${message}, thrown while ${some} in flight, after the run was stopped: ${them} errored as cut off, not run again alone, so whose it is is not known and it is not put on the run${again}\n`;
}

/** An exit of the eval process and when it came, as {@link leftOpen} names it. */
export function exitWhat(cause: string, crash: Parameters<typeof crashMessage>[1]): string {
  return `${cause}${whenItCrashed(crash)}`;
}

/**
 * An uncaught error or an exit of the eval process (`what`, and when) that the attempts then in
 * flight were to run again alone for, when the run's stop came before they all had: whose it was
 * is not known, and it is not put on the run.
 */
export function leftOpen(what: string, resumable: boolean): string {
  const again = resumable ? "; a resumed run runs them again" : "";
  return `${what}: the run was stopped before the attempts then in flight had all run again alone, so whose it was is not known and it is not put on the run; those the stop cut off are errored so${again}`;
}

/**
 * Why an attempt is errored that was in flight when `why` happened (a crash's cause, an error no
 * attempt could be tied to) and was to run again alone, once the run's stop (`stop`) came first:
 * a stopped run starts nothing, so it is cut off.
 */
export function cutBeforeRerun(why: string, stop: string | undefined): string {
  const by = stop === undefined ? "" : ` (${stop})`;
  return `this attempt was in flight when ${why}, and the run was stopped${by} before it ran again alone, so whether it caused that is not known; it is errored as cut off by the stop`;
}

/** An uncaught error no attempt could be tied to, as {@link cutBeforeRerun} names it. */
export function unplacedThrown(message: string): string {
  return `an error no attempt could be tied to was thrown (${message})`;
}

/** What the eval process was doing when it crashed, as a crash notice says it. */
function whenItCrashed(crash: Parameters<typeof crashMessage>[1]): string {
  const { inFlight, struckAhead } = crash;
  const after = crash.afterEnd?.length ? ` just after ${listed(crash.afterEnd)} ended` : "";
  const during = inFlight.length
    ? listed(inFlight, struckAhead)
    : struckAhead
      ? `${struckAhead} attempt${struckAhead === 1 ? "" : "s"} run ahead`
      : "";
  if (during) return ` during ${during}${after && `,${after}`}`;
  if (after) return after;
  return crash.ready ? "" : ` while loading ${crash.loading ?? "the eval files"}`;
}

/**
 * Why an attempt in flight at MAX_STRIKES crashes is errored; `afterEnd`: the last came just after
 * it ended, before its record left. When that crash was a kill for a silent event loop (`hangMs`,
 * --hang-timeout: {@link hangCause}), what to do is said too, as a time limit's error says it.
 */
export function struckOut(cause: string, hangMs: number, afterEnd = false): string {
  const advice = cause === blockedLoop(hangMs) ? `; ${HANG_ADVICE}` : "";
  return afterEnd
    ? `${cause} just after this case ended, before its record left; it was in flight at ${MAX_STRIKES} crashes of the eval process, so it is not run again${advice}`
    : `${cause} during this case; it was running at ${MAX_STRIKES} crashes of the eval process, so it is not run again${advice}`;
}

/**
 * Why an eval's cases stop where a read of them was under way at MAX_STRIKES crashes; for a kill
 * for a silent event loop (`hangMs`, as in {@link struckOut}), what to do with the dataset's code.
 */
export function casesStruckOut(cause: string, hangMs: number): string {
  const advice =
    cause === blockedLoop(hangMs)
      ? "; make the dataset's code yield (await between its steps), or raise --hang-timeout if reading a case must hold the thread longer"
      : "";
  return `${cause} while it read them; that read was under way at ${MAX_STRIKES} crashes of the eval process, so the cases after it are not read${advice}`;
}

/** Why an attempt asked for after an interrupt did not run. */
export function notStarted(signal: AbortSignal, reason: string): string {
  const cause = signal.aborted ? (signal.reason as Error | undefined)?.message : undefined;
  return cause ? `${cause} before the attempt started` : reason;
}

const OUT_OF_MEMORY = /heap out of memory|Reached heap limit|ERR_WORKER_OUT_OF_MEMORY/;

/**
 * The eval process ended with an exit code of its own (a `process.exit` in user code, say): not
 * killed, by the supervisor or a signal, nor out of memory.
 */
export function exitedOnItsOwn(from: EvalProcess): boolean {
  const { code, signal } = from.exit ?? { code: null, signal: null };
  return (
    from.killedFor === undefined &&
    signal === null &&
    code !== null &&
    !OUT_OF_MEMORY.test(from.stderrTail)
  );
}

/** Why an eval process ended, in words: killed for a reason, out of memory, a signal, a code. */
export function exitCause(from: EvalProcess): string {
  if (from.killedFor !== undefined) return from.killedFor;
  const { code, signal } = from.exit ?? { code: null, signal: null };
  if (OUT_OF_MEMORY.test(from.stderrTail))
    return "the eval process ran out of memory (JavaScript heap out of memory)";
  if (signal) return `the eval process was killed by ${signal}`;
  if (from.disconnectCalledAt !== undefined) return disconnected(from.disconnectCalledAt, code);
  const where = from.exitCalledAt ? ` (process.exit called at ${from.exitCalledAt})` : "";
  return `the eval process exited with code ${code ?? "unknown"}${where}`;
}

/** Where user code ended the eval process, for an error put on the run: the call's place. */
export function exitWhere(from: EvalProcess): string {
  return from.disconnectCalledAt || from.exitCalledAt || "the eval process";
}

/**
 * The eval process ended because user code called `process.disconnect()` (at `at`, "" when not
 * known): the channel it is sent attempts and sends records on is gone for good.
 */
function disconnected(at: string, code: number | null): string {
  const where = at ? ` at ${at}` : "";
  return `the code under test called process.disconnect()${where}, which cut the eval process off from niceeval (it is sent its attempts and sends their records over that channel; do not call it in code under test), so the eval process exited with code ${code ?? "unknown"}`;
}

/**
 * Why an eval process is to be killed as hung at `now`: its event loop has not answered for longer
 * than `hangMs` (or, while it loads the eval files, the startup floor); undefined while it answers.
 */
/** Why a file whose import kept an eval process busy past the loading limit fails to load. */
export function loadHung(limitMs: number): string {
  return `the file did not finish loading within ${formatMs(limitMs)} (--hang-timeout, and at least 30 s while files load): its top-level code kept the eval process busy without end (a loop that never ends, or a synchronous wait), so that process was stopped and the other files run; make that code end, or raise --hang-timeout if loading is that slow`;
}

/** Why a file whose import ended two eval processes (`cause`: how the last one ended) fails to load. */
export function loadCrashed(cause: string): string {
  return `the eval process ended each time it imported the file (${cause}), so the file fails to load and a new eval process runs the others`;
}

/** How long an eval process that is loading the eval files may go without a heartbeat, ms. */
export const loadingLimitMs = (hangMs: number): number => Math.max(hangMs, STARTUP_TIMEOUT_MS);

export function hangCause(from: EvalProcess, now: number, hangMs: number): string | undefined {
  const limit = from.ready ? hangMs : loadingLimitMs(hangMs);
  if (now - from.lastSeen <= limit) return undefined;
  return from.ready
    ? blockedLoop(hangMs)
    : `the eval process did not finish loading the eval files within ${formatMs(limit)} and was killed`;
}

/** A kill for an event loop silent past --hang-timeout (`hangMs`), as {@link hangCause} says it. */
function blockedLoop(hangMs: number): string {
  return `the event loop was blocked for ${formatMs(hangMs)} (no heartbeat from the eval process, which was killed)`;
}

function formatMs(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
