/**
 * Hands items on in the order they were reserved, whatever order they complete in. The window
 * bounds how far the producer may run ahead of the oldest unfinished item, so memory is bounded
 * by the window, not by the run.
 */
export class ReorderBuffer<T> {
  // Positions from `released` to `next` live in a ring (seq & mask), grown when more are reserved.
  private slots: (T | undefined)[];
  private mask: number;
  private next = 0;
  private released = 0;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly window: number,
    private readonly release: (item: T) => void,
  ) {
    let size = 16;
    while (size < window) size *= 2;
    this.slots = new Array<T | undefined>(size).fill(undefined);
    this.mask = size - 1;
  }

  /** Take the next position in the order. */
  reserve(): number {
    if (this.next - this.released >= this.slots.length) this.grow();
    return this.next++;
  }

  /** Settle a reserved position; releases every item that is now in order. */
  complete(seq: number, item: T): void {
    this.slots[seq & this.mask] = item;
    for (;;) {
      const at = this.released & this.mask;
      const ready = this.slots[at];
      if (ready === undefined) break;
      this.slots[at] = undefined;
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

  private grow(): void {
    const old = this.slots;
    const slots = new Array<T | undefined>(old.length * 2).fill(undefined);
    const mask = slots.length - 1;
    for (let seq = this.released; seq < this.next; seq++) slots[seq & mask] = old[seq & this.mask];
    this.slots = slots;
    this.mask = mask;
  }

  private hasRoom(): boolean {
    return this.next - this.released < this.window;
  }
}
