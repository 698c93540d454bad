// An uncaught error that came while attempts ran in an eval process that did not yet follow
// callbacks to their attempts (child.ts): nobody can tell whose it is, so each of those attempts
// runs again alone. One that then throws an uncaught error of its own owns it (it is on that
// attempt's record, not the run's too); if none does, it is the run's (a timer of top-level code,
// one an earlier attempt left behind, or a flaky throw). An exit of the eval process is placed the
// same way (executor.ts): the attempts in flight run again alone, and one that ends the process
// again owns it; if none does, it is the run's (a timer of top-level code that calls process.exit).
// When the run's stop comes before those attempts all ran again alone (nothing new starts after a
// stop), it is neither: whose it was is not known, and it is said so, not put on the run.
import type { AttemptRecord } from "../eval/record.js";

/** An uncaught error in the eval process that no single attempt owned. */
export interface RunError {
  message: string;
  where: string;
}

/** How an {@link Unplaced} is decided. */
export interface Placing {
  /** It is the run's: every attempt run again for it ran alone, and none owned it. */
  runError: (error: RunError) => void;
  /** The run's stop came before its attempts all ran again alone: whose it was is not known. */
  open: () => void;
  /** The record of an attempt run again alone that owns it (default: an uncaught error). */
  owns?: (record: AttemptRecord) => boolean;
}

/** An error waiting for the attempts that run again alone to say whose it is. */
export class Unplaced {
  #owned = false;
  #open = false;
  #done = false;

  /**
   * `left`: the attempts that run again for it (each calls {@link settled} once); `decide` is told
   * once, if none of them owns it.
   */
  constructor(
    private readonly error: RunError,
    private left: number,
    private readonly decide: Placing,
  ) {
    if (left === 0) this.end();
  }

  /** More attempts run again for it (before the last of the others settled). */
  expect(more: number): void {
    this.left += more;
  }

  /** An attempt owns it (one errored for it now, without running again). */
  own(): void {
    this.#owned = true;
  }

  /**
   * One of its attempts run again has its record. One the run's stop cut off (`error.interrupted`:
   * it did not run again, or did not run to its end) cannot say it was not its own.
   */
  settled(record: AttemptRecord): void {
    if ((this.decide.owns ?? isUncaught)(record)) this.#owned = true;
    else if (record.error?.interrupted === true) this.#open = true;
    if (--this.left <= 0) this.end();
  }

  /** One of its attempts will not run again (the supervisor had given up on it). */
  gone(): void {
    if (--this.left <= 0) this.end();
  }

  /** The run ends (or gives up) before all of its attempts ran again: decide with what came. */
  end(): void {
    if (this.#done) return;
    this.#done = true;
    if (this.#owned) return;
    if (this.#open) this.decide.open();
    else this.decide.runError(this.error);
  }

  /** The run's stop came before all of its attempts ran again alone (none will now): decide. */
  cutOff(): void {
    if (this.left > 0) this.#open = true;
    this.end();
  }
}

/**
 * A record errored because the eval process exited on its own (not killed, not out of memory)
 * while its attempt ran alone again: it was in flight at that exit too (causes.ts, struckOut).
 */
export function exitedAgain(record: AttemptRecord): boolean {
  const message = record.error?.message ?? "";
  return (
    message.startsWith("the eval process exited with code ") ||
    // The exit that follows a process.disconnect() (causes.ts, exitCause).
    message.startsWith("the code under test called process.disconnect()")
  );
}

/** A record errored by an uncaught error thrown in its attempt's own async context (child.ts). */
function isUncaught(record: AttemptRecord): boolean {
  const message = record.error?.message ?? "";
  return (
    message.startsWith("uncaught exception in user code: ") ||
    message.startsWith("unhandled rejection in user code: ")
  );
}
