// The real timers: an attempt may keep fake ones installed while reports are written in its
// process (runner/globals.ts, holdGlobals), and a fake flush timer, dropped as they are
// uninstalled, would hold every line after it until the buffer filled or the run ended.
import { clearTimeout, setTimeout } from "../clock.js";
import { writeFully } from "./write-fd.js";

/**
 * Buffered synchronous writer: reports of 100,000 cases stay fast (few syscalls) and bounded
 * (nothing queues in memory behind a slow pipe). What is buffered reaches the file or pipe within
 * `maxDelayMs` (default 250 ms), so a run that is killed, or that hangs, has shown what it did.
 * Text is encoded into the buffer as it is written, so the strings of a line die young instead
 * of being kept (as a long concatenation) until the next flush. Lines can also be put together in
 * place from {@link Part}s encoded once and short text ({@link putPart}, {@link putText}).
 */
/** Every LineWriter made, so that another writer to the same descriptor can let theirs go first. */
const writers = new Set<WeakRef<LineWriter>>();

/**
 * Write out what the LineWriters of `fd` hold, before another writer writes to it directly (the
 * GitHub reporter's commands on standard output beside the console's report): lines then come out
 * in the order they were made. A writer that fails here says so at its own next write.
 */
export function flushLineWriters(fd: number): void {
  for (const ref of writers) {
    const writer = ref.deref();
    if (writer === undefined) writers.delete(ref);
    else if (writer.fd === fd) writer.flushKeepingFailure();
  }
}

export class LineWriter {
  // Short text gathers in `pending` (a few KB, so its concatenation is small and dies young) and is
  // encoded into `bytes` in one call; `bytes` goes out when full, at the delay, or on flush().
  private pending = "";
  private readonly bytes: Buffer;
  private used = 0;
  /** Characters written since the last flush. */
  private chars = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /**
   * Why a write the timer made failed (`| head` closed the pipe): thrown to the next caller, a
   * report hook, which the run's sinks handle (SinkSet), instead of out of a timer, where it
   * was an uncaught exception that failed the run.
   */
  private failure: { error: unknown } | undefined;
  private readonly flushLater = (): void => {
    try {
      this.flush();
    } catch (error) {
      this.failure = { error };
    }
  };
  /** The last part put, not yet copied: the part that follows may be joined to it. */
  private carry: Part | undefined;
  /** Parts that link to parts that followed them, and the bytes spent on links and joins. */
  private linked: Part[] = [];
  private linkBytes = 0;
  /** @param limit characters buffered before they are written (0: every write goes out at once) */
  constructor(
    readonly fd: number,
    private readonly limit = 64 * 1024,
    private readonly maxDelayMs = 250,
  ) {
    writers.add(new WeakRef(this));
    // The slack past the limit holds the lines that reach it, so they leave whole.
    this.bytes = Buffer.allocUnsafe(Math.max(PENDING_LIMIT * 3, limit) + LINE_SLACK);
  }

  line(text = ""): void {
    this.write(`${text}\n`);
  }

  write(text: string): void {
    if (this.carry !== undefined) this.putCarry();
    this.pending += text;
    this.chars += text.length;
    if (this.chars >= this.limit) {
      this.flush();
      return;
    }
    if (this.pending.length >= PENDING_LIMIT) this.encodePending();
    if (this.timer === undefined) {
      this.timer = setTimeout(this.flushLater, this.maxDelayMs);
      this.timer.unref();
    }
  }

  /**
   * Appends a part of a line encoded once. A part that followed this one before is joined to it
   * (once, on its second time), so a run of constant lines is copied in one call.
   */
  putPart(part: Part): void {
    if (this.pending !== "") this.encodePending();
    this.chars += part.bytes.length;
    const last = this.carry;
    this.carry = part;
    if (last === undefined) return;
    let joined: Part | undefined;
    if (last.next === part) {
      joined = last.joined ?? this.join(last, part, 1);
    } else if (last.other === part) {
      joined = last.otherJoined ?? this.join(last, part, 2);
    } else {
      // Two parts that followed it are remembered, the last two (a verdict that alternates).
      if (last.next === undefined) this.link(last);
      last.other = last.next;
      last.otherJoined = last.joined;
      last.next = part;
      last.joined = undefined;
    }
    if (joined !== undefined) this.carry = joined;
    else this.putBytes(last.bytes);
  }

  /** Appends text, encoded in place: ASCII without a native call (an id, a number, a reason). */
  putText(text: string): void {
    if (this.carry !== undefined) this.putCarry();
    const length = text.length;
    if (length > PUT_TEXT_LIMIT) {
      this.pending += text;
      this.chars += length;
      this.encodePending();
      return;
    }
    if (this.pending !== "") this.encodePending();
    if (this.used + length * 3 > this.bytes.length) this.spill();
    const bytes = this.bytes;
    let at = this.used;
    for (let i = 0; i < length; i++) {
      const code = text.charCodeAt(i);
      if (code > 0x7f) {
        // Not ASCII: the rest is Buffer's to encode (surrogate pairs, lone surrogates alike).
        at += bytes.write(i === 0 ? text : text.slice(i), at);
        break;
      }
      bytes[at++] = code;
    }
    this.used = at;
    this.chars += length;
  }

  /** Ends what {@link putPart} and {@link putText} put together: one line or several. */
  endLine(): void {
    if (this.chars >= this.limit) {
      this.flush();
      return;
    }
    if (this.timer === undefined) {
      this.timer = setTimeout(this.flushLater, this.maxDelayMs);
      this.timer.unref();
    }
  }

  /** {@link flush}, a failure kept for the writer's next write to throw, as its timer does. */
  flushKeepingFailure(): void {
    try {
      this.flush();
    } catch (error) {
      this.failure ??= { error };
    }
  }

  flush(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.throwFailure();
    this.chars = 0;
    if (this.carry !== undefined) this.putCarry();
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
      this.spill();
      if (text.length * 3 > this.bytes.length) {
        const encoded = Buffer.from(text);
        this.writeOut(encoded, encoded.length);
        return;
      }
    }
    this.used += this.bytes.write(text, this.used);
  }

  private putCarry(): void {
    const carry = this.carry!;
    this.carry = undefined;
    this.putBytes(carry.bytes);
  }

  private putBytes(chunk: Uint8Array): void {
    const length = chunk.length;
    if (this.used + length > this.bytes.length) {
      this.spill();
      if (length > this.bytes.length) {
        this.writeOut(chunk, length);
        return;
      }
    }
    // A few bytes are copied faster by hand than by a call into the engine.
    if (length <= 12) {
      const bytes = this.bytes;
      let at = this.used;
      for (let i = 0; i < length; i++) bytes[at++] = chunk[i]!;
      this.used = at;
      return;
    }
    this.bytes.set(chunk, this.used);
    this.used += length;
  }

  /** The part of `first` then `second`, kept in `first`'s slot (undefined when too long). */
  private join(first: Part, second: Part, slot: 1 | 2): Part | undefined {
    const length = first.bytes.length + second.bytes.length;
    if (length > MAX_JOINED) return undefined;
    if (this.linkBytes + length > LINK_BUDGET) {
      this.unlink();
      return undefined;
    }
    const bytes = new Uint8Array(length);
    bytes.set(first.bytes);
    bytes.set(second.bytes, first.bytes.length);
    const joined = new Part(bytes);
    if (slot === 1) first.joined = joined;
    else first.otherJoined = joined;
    this.linkBytes += length;
    return joined;
  }

  private link(part: Part): void {
    if (this.linkBytes + LINK_COST > LINK_BUDGET) this.unlink();
    this.linked.push(part);
    this.linkBytes += LINK_COST;
  }

  /** Forgets every link and join, so what they hold is bounded (a report that keeps changing). */
  private unlink(): void {
    for (const part of this.linked) {
      part.next = undefined;
      part.joined = undefined;
      part.other = undefined;
      part.otherJoined = undefined;
    }
    this.linked = [];
    this.linkBytes = 0;
  }

  /** Writes out what the buffer holds, to make room. */
  private spill(): void {
    if (this.used === 0) return;
    const length = this.used;
    this.used = 0;
    this.writeOut(this.bytes, length);
  }

  private writeOut(bytes: Uint8Array, length: number): void {
    this.throwFailure();
    writeFully(this.fd, bytes, 0, length);
  }

  private throwFailure(): void {
    if (this.failure === undefined) return;
    const { error } = this.failure;
    this.failure = undefined;
    throw error;
  }
}

/** Characters gathered before they are encoded. */
const PENDING_LIMIT = 4096;

/** Room in the buffer past its limit, for the lines that reach it. */
const LINE_SLACK = 16 * 1024;

/** Text longer than this goes through `pending` (one native call) rather than putText's loop. */
const PUT_TEXT_LIMIT = 1024;

/** Joined parts stay at most this long (a case and its judgment lines, about). */
const MAX_JOINED = 1024;

/** Bytes of joins (and a little per link) after which a writer forgets them all and starts over. */
const LINK_BUDGET = 1024 * 1024;
const LINK_COST = 64;

/**
 * Bytes encoded once, to be put in many lines ({@link LineWriter.putPart}); it remembers the two
 * parts that last followed it, each with the two joined once it followed a second time.
 */
export class Part {
  next: Part | undefined;
  joined: Part | undefined;
  other: Part | undefined;
  otherJoined: Part | undefined;
  constructor(readonly bytes: Uint8Array) {}
}

/** The part of constant text (a verdict's mark, a judgment line up to its reason). */
export function part(text: string): Part {
  return new Part(Buffer.from(text));
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
