import { NiceevalError } from "../errors.js";
import type { Store } from "./types.js";

/**
 * `store`, to read only: a write is refused with `STORE_READ_ONLY` (a store read from a copy would
 * lose it). `location` is what messages name; `onClose` runs once the store is closed.
 */
export function readOnlyStore(
  store: Store,
  options: { location?: string; onClose?: () => void } = {},
): Store {
  const location = options.location ?? store.location;
  const refuse = (): Promise<never> =>
    Promise.reject(
      new NiceevalError(
        "STORE_READ_ONLY",
        `the store ${location} was opened to read only; open it without readOnly to write runs to it.`,
      ),
    );
  return {
    location,
    beginRun: refuse,
    appendAttempts: refuse,
    finishRun: refuse,
    listRuns: (...args) => store.listRuns(...args),
    getRun: (...args) => store.getRun(...args),
    streamAttempts: (...args) => store.streamAttempts(...args),
    queryAttempts: (...args) => store.queryAttempts(...args),
    attemptKeys: (...args) => store.attemptKeys(...args),
    attemptHistory: (...args) => store.attemptHistory(...args),
    async close() {
      try {
        await store.close();
      } finally {
        options.onClose?.();
      }
    },
  };
}
