import { constants, fstatSync, openSync, writeSync } from "node:fs";
import { isClosedOutput } from "../errors.js";

// Node makes a pipe it has a stream for non-blocking (process.stdout touched by anyone, a child
// given the same pipe), so a synchronous write to a full pipe fails with EAGAIN instead of
// waiting for the reader. Sleeping and retrying wastes the time between the reader's reads (a
// 100,000-case report piped into `cat` or `tee` spent two thirds of its run asleep). On Linux a
// pipe opened again through /proc/self/fd is a new open file description of the same pipe, with
// its own flags: blocking, so the kernel wakes the writer as soon as there is room.

/** The blocking descriptor opened for a non-blocking pipe, by the fd it stands for (-1: none can be). */
const blocking = new Map<number, number>();

/** Pause between retries when no blocking descriptor could be opened, ms. */
const RETRY_MS = 0.5;

/** Writes `length` bytes of `bytes` from `offset` to `fd`, waiting while a pipe is full. */
export function writeFully(fd: number, bytes: Uint8Array, offset: number, length: number): void {
  const known = blocking.get(fd);
  let target = known !== undefined && known >= 0 ? known : fd;
  let at = offset;
  const end = offset + length;
  while (at < end) {
    try {
      at += writeSync(target, bytes, at, end - at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
      const reopened = blockingTwin(fd);
      if (reopened >= 0) target = reopened;
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_MS);
    }
  }
}

/** A blocking descriptor of the pipe `fd` writes to, opened once; -1 when there is none. */
function blockingTwin(fd: number): number {
  const known = blocking.get(fd);
  if (known !== undefined) return known;
  let twin = -1;
  try {
    if (fstatSync(fd).isFIFO()) twin = openSync(`/proc/self/fd/${fd}`, constants.O_WRONLY);
  } catch {
    // No /proc, or not a pipe that can be opened by path (a socket): retry after a pause.
  }
  blocking.set(fd, twin);
  return twin;
}

/**
 * Writes `text` to `fd` as {@link writeFully} does; false when its output is gone (the reader
 * closed the pipe, EPIPE, as after `| head`; or the descriptor is closed, EBADF), which is no
 * failure of the run.
 */
export function writeText(fd: number, text: string): boolean {
  const bytes = Buffer.from(text);
  try {
    writeFully(fd, bytes, 0, bytes.length);
    return true;
  } catch (error) {
    if (isClosedOutput(error)) return false;
    throw error;
  }
}
