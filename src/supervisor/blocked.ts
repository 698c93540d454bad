// An eval process whose event loop stopped answering while an attempt ran past its time limit:
// that limit is a timer in the same thread, which cannot fire until the code running yields, so
// nothing in the process will stop the attempt. The supervisor does not wait for --hang-timeout
// (nor let the engine's last-resort limit call it a timeout to raise): it kills the process once
// the loop has missed a few heartbeats past the limit. The one attempt running then is errored
// with what happened and what helps; with several, each runs again alone, and one that blocks
// the loop again when alone is errored so.
import type { Pending } from "./eval-process.js";

/** Heartbeats an eval process may miss before its event loop counts as blocked. */
export const BLOCKED_BEATS = 3;

/**
 * Whether this started attempt was running when the loop, silent since `lastSeen`, should have
 * let its time limit fire (at `now`). One run again alone after such a block with others gets its
 * whole limit again, from when it was sent: its own synchronous work within it is no block.
 */
export function blockedPastLimit(pending: Pending, lastSeen: number, now: number): boolean {
  const limit = pending.blockedLimitMs ?? pending.job.context.timeoutMs;
  if (limit === undefined) return false;
  return lastSeen < pending.sentAt + limit && now >= pending.sentAt + limit;
}

/**
 * Why an attempt that blocked the event loop past its time limit is errored; `rerun`: it was in
 * flight with others at such a block before, and blocked the loop again when run alone. `hangMs`
 * (--hang-timeout) is advised only when it stops such code sooner than this time limit does.
 */
export function blockedMessage(
  silentMs: number,
  limitMs: number,
  rerun: boolean,
  hangMs: number,
): string {
  const ms = Math.round(silentMs);
  const what = rerun
    ? `the event loop was blocked past this attempt's ${limitMs} ms time limit while it ran with others, and again for ${ms} ms when it ran alone`
    : `the event loop was blocked for ${ms} ms by this attempt (the only one running), past its ${limitMs} ms time limit`;
  const helps =
    hangMs < limitMs
      ? `make it yield (await between its steps), or set --hang-timeout lower (now ${hangMs} ms) to stop such code sooner`
      : "make it yield (await between its steps)";
  return `${what}: synchronous code cannot be timed out (the limit can only stop it when it yields), so the eval process was killed; ${helps}`;
}

/**
 * Why an eval process is killed when its event loop was blocked past the time limit of `past` of
 * the `running` attempts in flight: which of them blocked it is not known (the crash notice names
 * them; each runs again alone).
 */
export function blockedCause(silentMs: number, past: number, running: number): string {
  const whose =
    past === running
      ? running === 1
        ? "the time limit of the attempt in flight"
        : `the time limits of the ${running} attempts in flight`
      : `the time limit${past === 1 ? "" : "s"} of ${past} of the ${running} attempts in flight`;
  return `the event loop was blocked for ${Math.round(silentMs)} ms, past ${whose} (synchronous code cannot be timed out, and which of them blocked it is not known), so the eval process was killed`;
}
