import { errorMessage } from "../errors.js";
import { type OutageHooks, shownOutage, storeOutageMs } from "../store/outage.js";
import type { CliIO } from "./io.js";

/**
 * What a run says on stderr while its store cannot be reached: once when a write first fails
 * (naming the store, why, and how long the run waits), and once when a write goes through again,
 * or when a stop signal (Ctrl-C) ends the wait.
 */
export function storeOutageHooks(
  location: string,
  io: CliIO,
  stopSignals: NonNullable<OutageHooks["stopSignals"]>,
): Required<OutageHooks> {
  return {
    stopSignals,
    onStopped: (signal) =>
      io.stderr(
        `niceeval: ${signal}: the run no longer waits for the store ${location}; the attempts it has not written are counted below as not stored\n`,
      ),
    onOutage: (error) => {
      const said = errorMessage(error).replace(/\.$/, "");
      io.stderr(
        `niceeval: the store ${location} did not take a write (${said}); the run keeps its attempts and tries again for up to ${shownOutage(storeOutageMs())}, then says how many were not stored\n`,
      );
    },
    onBack: () =>
      io.stderr(
        `niceeval: the store ${location} answers again; the attempts kept meanwhile are written\n`,
      ),
  };
}
