// What one signal has waiting for export, bounded by making the run wait instead of dropping.
import type { Exporter } from "./guard.js";

/**
 * Spans or log records handed to the SDK's batch processor and not yet taken into an export.
 * The processor's own queue is left unbounded (it would drop what does not fit, however healthy
 * the collector); this queue bounds it instead: once `limit` wait, {@link room} makes the run
 * wait (the engine starts no new attempt) until the processor takes the next batch. While the
 * signal's exports keep failing (`failing`), the run never waits for them: what does not fit is
 * dropped ({@link admit}), and the guard's count says so at the end.
 */
export class ExportQueue {
  private given = 0;
  private taken = 0;
  private wait: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(
    readonly limit: number,
    private readonly failing: () => boolean,
  ) {}

  /** Handed to the processor and not yet taken into an export. */
  get waiting(): number {
    return this.given - this.taken;
  }

  /** Whether to hand the next item to the processor; false drops it (full, while exports fail). */
  admit(): boolean {
    if (this.waiting >= this.limit && this.failing()) return false;
    this.given++;
    return true;
  }

  /**
   * A wait until there is room, while the queue is full and the collector takes what it is sent;
   * the same promise for every caller until it settles. Undefined when there is room.
   */
  room(): Promise<void> | undefined {
    if (this.hasRoom()) return undefined;
    this.wait ??= new Promise<void>((resolve) => {
      this.wake = resolve;
    });
    return this.wait;
  }

  /**
   * The exporter that counts what the processor takes from its queue (each `export` call, sent
   * or dropped by the guard) and, as each export ends, ends the wait once there is room or the
   * exports are failing.
   */
  counting<T, R>(inner: Exporter<T, R>): Exporter<T, R> & { forceFlush(): Promise<void> } {
    return {
      export: (items, done) => {
        this.taken += items.length;
        this.check();
        inner.export(items, (result) => {
          done(result);
          this.check();
        });
      },
      shutdown: () => inner.shutdown(),
      forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
    };
  }

  private hasRoom(): boolean {
    return this.waiting < this.limit || this.failing();
  }

  private check(): void {
    if (this.wake === undefined || !this.hasRoom()) return;
    const wake = this.wake;
    this.wait = undefined;
    this.wake = undefined;
    wake();
  }
}
