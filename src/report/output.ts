import { writeSync } from "node:fs";

/**
 * Buffered synchronous writer: reports of 100,000 cases stay fast (few syscalls) and bounded
 * (nothing queues in memory behind a slow pipe). What is buffered reaches the file or pipe within
 * `maxDelayMs` (default 250 ms), so a run that is killed, or that hangs, has shown what it did.
 */
export class LineWriter {
  private buffer = "";
  private timer: ReturnType<typeof setTimeout> | undefined;
  constructor(
    private readonly fd: number,
    private readonly limit = 64 * 1024,
    private readonly maxDelayMs = 250,
  ) {}

  line(text = ""): void {
    this.write(text + "\n");
  }

  write(text: string): void {
    this.buffer += text;
    if (this.buffer.length >= this.limit) this.flush();
    else if (this.timer === undefined) {
      this.timer = setTimeout(() => this.flush(), this.maxDelayMs);
      this.timer.unref();
    }
  }

  flush(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (!this.buffer) return;
    const data = this.buffer;
    this.buffer = "";
    let offset = 0;
    const bytes = Buffer.from(data);
    while (offset < bytes.length) {
      try {
        offset += writeSync(this.fd, bytes, offset);
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
