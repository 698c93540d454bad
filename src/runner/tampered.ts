import {
  type RemovedListener,
  removedListenersMessage,
  restoreListeners,
} from "../process-listeners.js";
import { endAttempt, replacedGlobalsMessage, restoreGlobals } from "./globals.js";

/**
 * What code under test changed in the process that the engine relies on, put back after each
 * attempt: watched globals it replaced (globals.ts) and process listeners niceeval keeps that it
 * removed (process-listeners.ts).
 */
export interface Tampered {
  globals?: readonly string[] | undefined;
  listeners?: readonly RemovedListener[] | undefined;
}

/** Puts back what was changed; `ended`: the attempt ended (see {@link endAttempt}). */
export function putBack(ended: boolean): Tampered | undefined {
  const globals = ended ? endAttempt() : restoreGlobals();
  // After the globals: a replaced Function.prototype.call or Array.prototype.push is back.
  const listeners = restoreListeners();
  return globals || listeners ? { globals, listeners } : undefined;
}

/** What was found while an attempt ran and as it ended, together. */
export function together(a: Tampered | undefined, b: Tampered | undefined): Tampered | undefined {
  if (!a || !b) return a ?? b;
  const globals = [...new Set([...(a.globals ?? []), ...(b.globals ?? [])])];
  const listeners = [...(a.listeners ?? [])];
  for (const removed of b.listeners ?? []) {
    if (!listeners.some((r) => r.event === removed.event && r.node === removed.node)) {
      listeners.push(removed);
    }
  }
  return { globals: globals.length ? globals : undefined, listeners };
}

/** Why an attempt is errored for what it changed. */
export function tamperedMessage(tampered: Tampered): string {
  const parts: string[] = [];
  if (tampered.globals?.length) parts.push(replacedGlobalsMessage(tampered.globals));
  if (tampered.listeners?.length) parts.push(removedListenersMessage(tampered.listeners));
  return parts.join("; and ");
}
