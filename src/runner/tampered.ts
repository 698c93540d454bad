import { pinCacheBase } from "../judge/config.js";
import { pinJudgeEnvironment } from "../judge/environment.js";
import {
  type RemovedListener,
  removedListenersMessage,
  restoreListeners,
} from "../process-listeners.js";
import { captureMessage, holdCapture, readHostCapture, removeCapture } from "./capture.js";
import {
  endAttempt,
  holdGlobals,
  replacedGlobalsMessage,
  restoreGlobals,
  watchAttempt as watchGlobalsAttempt,
  watchRun as watchGlobalsRun,
} from "./globals.js";

/**
 * What code under test changed in the process that the engine relies on, put back after each
 * attempt: watched globals it replaced (globals.ts), process listeners niceeval keeps that it
 * removed (process-listeners.ts) and an uncaught-exception capture callback it left (capture.ts).
 */
export interface Tampered {
  globals?: readonly string[] | undefined;
  listeners?: readonly RemovedListener[] | undefined;
  capture?: true | undefined;
  /**
   * Not a change to error the attempt for: the clock and timers its synchronous part replaced,
   * which it may keep until it ends (globals.ts, holdGlobals); given back to {@link putBack}.
   */
  held?: readonly string[] | undefined;
  /** Likewise, the uncaught-exception capture callback its synchronous part set (capture.ts). */
  holdsCapture?: true | undefined;
}

/**
 * A run starts: what its attempts must leave as they found it is read (globals.ts, capture.ts).
 * Returns what to call once its attempts are done.
 */
export function watchRun(): () => void {
  return watchGlobalsRun(readHost);
}

/** An attempt starts in this process (outside any run, the first one reads as a run would). */
export function watchAttempt(): void {
  watchGlobalsAttempt(readHost);
}

/**
 * What the host has as a run starts: its capture callback, its current directory, which the
 * judge cache stays under whatever directory attempts move to (judge/config.ts), and the
 * environment variables judges read, which stay as found whatever attempts set (judge/environment.ts).
 */
function readHost(): void {
  readHostCapture();
  pinCacheBase();
  pinJudgeEnvironment();
}

/**
 * Puts back what was changed. `ended` false: the attempt's synchronous part returned and it goes
 * on, and what it may keep until it ends (the clock and timers, a capture callback) is held for
 * it, as the result says; true: it ended, `during` being what the call for its synchronous part
 * returned (see {@link endAttempt}).
 */
export function putBack(ended: false): Tampered | undefined;
export function putBack(ended: true, during: Tampered | undefined): Tampered | undefined;
export function putBack(ended: boolean, during?: Tampered): Tampered | undefined {
  const globals = ended ? endAttempt(during?.held) : restoreGlobals(false);
  const held = ended ? undefined : holdGlobals();
  // After the globals: a replaced Function.prototype.call or Array.prototype.push is back.
  const listeners = restoreListeners();
  const capture = (ended && removeCapture(during?.holdsCapture === true)) || undefined;
  const holdsCapture = (!ended && holdCapture()) || undefined;
  return globals || listeners || capture || held || holdsCapture
    ? { globals, listeners, capture, held, holdsCapture }
    : undefined;
}

/** What was found while an attempt ran and as it ended, together (undefined: nothing to say). */
export function together(a: Tampered | undefined, b: Tampered | undefined): Tampered | undefined {
  if (!a && !b) return undefined;
  const globals = [...new Set([...(a?.globals ?? []), ...(b?.globals ?? [])])];
  const listeners = [...(a?.listeners ?? [])];
  for (const removed of b?.listeners ?? []) {
    if (!listeners.some((r) => r.event === removed.event && r.node === removed.node)) {
      listeners.push(removed);
    }
  }
  const capture = a?.capture || b?.capture;
  if (globals.length === 0 && listeners.length === 0 && !capture) return undefined;
  return {
    globals: globals.length ? globals : undefined,
    listeners: listeners.length ? listeners : undefined,
    capture,
  };
}

/** Why an attempt is errored for what it changed. */
export function tamperedMessage(tampered: Tampered): string {
  const parts: string[] = [];
  if (tampered.globals?.length) parts.push(replacedGlobalsMessage(tampered.globals));
  if (tampered.listeners?.length) parts.push(removedListenersMessage(tampered.listeners));
  if (tampered.capture) parts.push(captureMessage());
  return parts.join("; and ");
}
