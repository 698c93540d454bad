import { clearTimeout, realNow, setTimeout } from "../clock.js";
// Attempts the eval process gave up on without being able to stop them. After an uncaught error
// that no attempt can be told from, each attempt in flight runs again alone (child.ts); their
// first runs go on in the process, since nothing can stop user code. Their records no longer
// count, but they still hold their slots: until their records come, no attempt starts, so an
// attempt run again is alone (an exit of a first run is not put on it) and an eval's concurrency
// cap still holds. A first run whose record does not come in FIRST_RUNS_WAIT_MS stops holding
// anything (the run goes on). Code of a first run can outlive its record (a time limit, a timer
// left behind): child.ts makes every error from outside an attempt the run's from then on.

/** Longest the attempts to run again wait for the first runs to end, ms. */
export const FIRST_RUNS_WAIT_MS = 10_000;

export class FirstRuns<Slot> {
  /** Each first run's slot, and whether it still holds it (false once waited for no longer). */
  readonly #slots = new Map<Slot, boolean>();
  #until = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * `free` gives a first run's slot back (its eval's share of the cap) once it ends or is waited
   * for no longer; `wake` is called when attempts may start again.
   */
  constructor(
    private readonly free: (slot: Slot) => void,
    private readonly wake: () => void,
    private readonly waitMs = FIRST_RUNS_WAIT_MS,
  ) {}

  /** These attempts' records will not count: they run again once these runs end. */
  add(slots: Iterable<Slot>): void {
    for (const slot of slots) this.#slots.set(slot, true);
    if (this.#slots.size === 0) return;
    this.#until = realNow() + this.waitMs;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#giveUp(), this.waitMs);
    this.#timer.unref?.();
  }

  /** A first run ended (true), or this is not one (false). */
  ended(slot: Slot): boolean {
    const holds = this.#slots.get(slot);
    if (holds === undefined) return false;
    this.#slots.delete(slot);
    if (holds) this.free(slot);
    if (this.#slots.size === 0) {
      clearTimeout(this.#timer);
      this.wake();
    }
    return true;
  }

  /** Attempts wait: first runs are still going, and not for too long. */
  holding(): boolean {
    return this.#slots.size > 0 && realNow() < this.#until;
  }

  /** First runs whose records have not come. */
  get size(): number {
    return this.#slots.size;
  }

  #giveUp(): void {
    for (const [slot, holds] of this.#slots) {
      if (holds) this.free(slot);
      this.#slots.set(slot, false);
    }
    this.#until = 0;
    this.wake();
  }
}
