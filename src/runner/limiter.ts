/** Per-key caps on work in flight (an eval's own `concurrency`). */
export class KeyedLimiter {
  private readonly running: number[];
  private readonly waiting: (() => void)[][];

  constructor(private readonly caps: readonly (number | undefined)[]) {
    this.running = caps.map(() => 0);
    this.waiting = caps.map(() => []);
  }

  /** Resolves once key `key` is under its cap; undefined when it already is. */
  acquire(key: number): Promise<void> | undefined {
    const cap = this.caps[key];
    if (cap === undefined || !(cap > 0) || this.running[key]! < cap) {
      this.running[key]!++;
      return undefined;
    }
    return new Promise<void>((resolve) =>
      this.waiting[key]!.push(() => {
        this.running[key]!++;
        resolve();
      }),
    );
  }

  release(key: number): void {
    this.running[key]!--;
    this.waiting[key]!.shift()?.();
  }
}
