import { realNow, setImmediate } from "../clock.js";

/**
 * Attempts that settle without I/O (a synchronous target and scorers) chain promise after
 * promise, and Node runs every queued promise before it turns its event loop: timers (the
 * store's flush, the progress line), signals and messages from other threads would wait for
 * the whole run. The engine asks this between attempts; past `sliceMs` without a turn it gets a
 * promise that resolves on the next one.
 */
export function eventLoopTurns(sliceMs = 10): { due(): Promise<void> | undefined } {
  let since = realNow();
  let turn: Promise<void> | undefined;
  return {
    due() {
      if (turn) return turn;
      if (realNow() - since < sliceMs) return undefined;
      turn = new Promise((resolve) =>
        setImmediate(() => {
          turn = undefined;
          since = realNow();
          resolve();
        }),
      );
      return turn;
    },
  };
}
