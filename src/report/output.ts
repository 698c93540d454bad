import { writeSync } from "node:fs";

/**
 * Buffered synchronous writer: reports of 100,000 cases stay fast (few syscalls) and bounded
 * (nothing queues in memory behind a slow pipe). What is buffered reaches the file or pipe within
 * `maxDelayMs` (default 250 ms), so a run that is killed, or that hangs, has shown what it did.
 * Text is encoded into the buffer as it is written, so the strings of a line die young instead
 * of being kept (as a long concatenation) until the next flush.
 */
export class LineWriter {
  // Short text gathers in `pending` (a few KB, so its concatenation is small and dies young) and is
  // encoded into `bytes` in one call; `bytes` goes out when full, at the delay, or on flush().
  private pending = "";
  private readonly bytes: Buffer;
  private used = 0;
  /** Characters written since the last flush. */
  private chars = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** @param limit characters buffered before they are written (0: every write goes out at once) */
  constructor(
    private readonly fd: number,
    private readonly limit = 64 * 1024,
    private readonly maxDelayMs = 250,
  ) {
    this.bytes = Buffer.allocUnsafe(Math.max(PENDING_LIMIT * 3, limit));
  }

  line(text = ""): void {
    this.write(`${text}\n`);
  }

  write(text: string): void {
    this.pending += text;
    this.chars += text.length;
    if (this.chars >= this.limit) {
      this.flush();
      return;
    }
    if (this.pending.length >= PENDING_LIMIT) this.encodePending();
    if (this.timer === undefined) {
      this.timer = setTimeout(() => this.flush(), this.maxDelayMs);
      this.timer.unref();
    }
  }

  flush(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.chars = 0;
    this.encodePending();
    if (this.used === 0) return;
    const length = this.used;
    this.used = 0;
    this.writeOut(this.bytes, length);
  }

  private encodePending(): void {
    const text = this.pending;
    if (text === "") return;
    this.pending = "";
    // UTF-8 takes at most 3 bytes per UTF-16 unit: make room for the worst case first.
    if (this.used + text.length * 3 > this.bytes.length) {
      if (this.used > 0) {
        const length = this.used;
        this.used = 0;
        this.writeOut(this.bytes, length);
      }
      if (text.length * 3 > this.bytes.length) {
        const encoded = Buffer.from(text);
        this.writeOut(encoded, encoded.length);
        return;
      }
    }
    this.used += this.bytes.write(text, this.used);
  }

  private writeOut(bytes: Buffer, length: number): void {
    let offset = 0;
    while (offset < length) {
      try {
        offset += writeSync(this.fd, bytes, offset, length - offset);
      } catch (error) {
        // A non-blocking pipe that is full: wait briefly and retry.
        if ((error as NodeJS.ErrnoException).code === "EAGAIN") {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
          continue;
        }
        throw error;
      }
    }
  }
}

/** Characters gathered before they are encoded. */
const PENDING_LIMIT = 4096;

/** ANSI styling, off when colour is not wanted. */
export function palette(enabled: boolean) {
  const wrap = (open: number, close: number) => (text: string) =>
    enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    green: wrap(32, 39),
    red: wrap(31, 39),
    yellow: wrap(33, 39),
    magenta: wrap(35, 39),
    dim: wrap(2, 22),
    bold: wrap(1, 22),
  };
}
export type Palette = ReturnType<typeof palette>;
