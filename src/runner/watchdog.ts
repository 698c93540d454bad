import { NiceevalError } from "../errors.js";

/**
 * A last-resort limit on whole attempts, with one timer for the run rather than one per
 * attempt (cheaper at 100,000 cases). Its timer also keeps the process alive while an attempt
 * is pending, so a promise that never settles is reported as a timeout, not lost in a silent exit.
 */
export class Watchdog {
  private readonly deadlines = new Map<number, { at: number; reject: (error: Error) => void }>();
  private readonly timer: ReturnType<typeof setInterval>;
  private nextKey = 0;

  constructor(private readonly limitMs: number) {
    this.timer = setInterval(() => this.sweep(), Math.max(5, Math.min(1000, limitMs / 4)));
  }

  /** Run `work`, rejecting with a timeout error if it outlives the limit. */
  guard<T>(work: () => Promise<T>): Promise<T> {
    return this.guardFromStart((start) => {
      start();
      return work();
    });
  }

  /**
   * Like {@link guard}, but the limit counts from when `work` calls `start` (an attempt that waits
   * in an executor's queue first); until then nothing can time out. Later calls are ignored.
   */
  guardFromStart<T>(work: (start: () => void) => Promise<T>): Promise<T> {
    const key = this.nextKey++;
    return new Promise<T>((resolve, reject) => {
      // Armed once: not again after it settled, nor after its deadline passed.
      let armed = false;
      const start = () => {
        if (armed) return;
        armed = true;
        this.deadlines.set(key, { at: performance.now() + this.limitMs, reject });
      };
      const settle = () => {
        armed = true;
        this.deadlines.delete(key);
      };
      work(start).then(
        (value) => {
          settle();
          resolve(value);
        },
        (error: unknown) => {
          settle();
          reject(error);
        },
      );
    });
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sweep(): void {
    const now = performance.now();
    for (const [key, deadline] of this.deadlines) {
      if (now < deadline.at) continue;
      this.deadlines.delete(key);
      deadline.reject(
        new NiceevalError(
          "TIMEOUT",
          `the attempt timed out after ${this.limitMs} ms; raise --timeout or the eval's timeoutMs, or make it faster`,
        ),
      );
    }
  }
}
