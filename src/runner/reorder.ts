/**
 * Hands items on in the order they were reserved, whatever order they complete in. The window
 * bounds how far the producer may run ahead of the oldest unfinished item, so memory is bounded
 * by the window, not by the run.
 */
export class ReorderBuffer<T> {
  private readonly done = new Map<number, T>();
  private next = 0;
  private released = 0;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly window: number,
    private readonly release: (item: T) => void,
  ) {}

  /** Take the next position in the order. */
  reserve(): number {
    return this.next++;
  }

  /** Settle a reserved position; releases every item that is now in order. */
  complete(seq: number, item: T): void {
    this.done.set(seq, item);
    for (;;) {
      const ready = this.done.get(this.released);
      if (ready === undefined) break;
      this.done.delete(this.released);
      this.released++;
      this.release(ready);
    }
    if (this.waiters.length > 0 && this.hasRoom()) {
      const waiters = this.waiters;
      this.waiters = [];
      for (const wake of waiters) wake();
    }
  }

  /** Resolves when there is room in the window (immediately when there is). */
  room(): Promise<void> | undefined {
    if (this.hasRoom()) return undefined;
    return new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  private hasRoom(): boolean {
    return this.next - this.released < this.window;
  }
}
