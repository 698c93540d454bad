import { isIP, connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { clearTimeout, setTimeout } from "../clock.js";

// A small Redis client (RESP2 over TCP or TLS) with the surface BullMQ 6 wraps as a "send"
// client (`send`, `connected`, `onconnect`/`onclose`, `duplicate`): BullMQ brings the Redis
// commands and Lua scripts, this brings the socket, so the queue needs no Redis driver package.

/** Where and how to connect, read from a `redis://` or `rediss://` URL. */
export interface RedisTarget {
  host: string;
  port: number;
  tls: boolean;
  username?: string;
  password?: string;
  db?: number;
}

/** A Redis error reply (`-ERR …`, `-NOSCRIPT …`). */
export class RedisReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReplyError";
  }
}

/** Bytes that are no Redis reply: what answered at that address is not a Redis server. */
export class RedisProtocolError extends Error {
  constructor(answered: Buffer) {
    const line = answered.toString("latin1").split(/\r?\n/, 1)[0] ?? "";
    // Printable ASCII only, and a bounded line: a binary protocol shows as dots.
    const shown = line.slice(0, 80).replace(/[^\x20-\x7e]/g, ".");
    super(`it does not speak the Redis protocol (it answered "${shown}")`);
    this.name = "RedisProtocolError";
  }
}

type Reply = string | number | null | RedisReplyError | Reply[];
interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

const CRLF = Buffer.from("\r\n");
/** The first byte of each RESP2 reply: + - : $ *. */
const REPLY_TYPES = new Set([0x2b, 0x2d, 0x3a, 0x24, 0x2a]);

/** Encode one command as a RESP array of bulk strings. */
function encode(command: string, args: readonly unknown[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length + 1}\r\n`)];
  for (const arg of [command, ...args]) {
    const value = Buffer.isBuffer(arg) ? arg : Buffer.from(String(arg ?? ""));
    parts.push(Buffer.from(`$${value.length}\r\n`), value, CRLF);
  }
  return Buffer.concat(parts);
}

/** An array reply being read: the items read so far, and how many it has. */
interface Frame {
  items: Reply[];
  count: number;
}

/**
 * Incremental RESP2 parser: feed bytes, take whole replies. Items already read stay read (an
 * array under way keeps its items on a stack), so no byte is read twice over; and chunks are
 * joined only once the item being read can be whole (a bulk string says its length, a line ends
 * with a newline), so a reply of many megabytes, or of many small items, arriving in 64 KiB
 * chunks is copied a few times, not once per chunk. What is held is the item under way and the
 * chunks not read yet.
 */
export class ReplyParser {
  /** Bytes copied joining chunks, for tests and benchmarks: linear parsing keeps it near the bytes fed. */
  copied = 0;
  private buffer: Buffer = Buffer.alloc(0);
  private offset = 0;
  /** Chunks not joined to `buffer` yet, and their bytes. */
  private chunks: Buffer[] = [];
  private chunked = 0;
  /** How long `buffer` must be (with the chunks) before the item under way is read again. */
  private needed = 0;
  /** The item under way waits for the end of its line: set once a chunk brings a newline. */
  private waitsForLine = false;
  private newline = false;
  /** The arrays the item under way is in, outermost first. */
  private readonly stack: Frame[] = [];

  /** Bytes held and not yet read as a whole reply or item. */
  get buffered(): number {
    return this.buffer.length - this.offset + this.chunked;
  }

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.chunked += chunk.length;
    if (this.waitsForLine && !this.newline) this.newline = chunk.includes(0x0a);
  }

  /** The next whole reply, or `undefined` when more bytes are needed. */
  next(): { value: Reply } | undefined {
    if (this.buffer.length + this.chunked < this.needed) return undefined;
    if (this.waitsForLine && !this.newline) return undefined;
    this.join();
    for (;;) {
      const item = this.item();
      if (item === undefined) return undefined;
      const value = this.nest(item);
      if (value !== undefined) return value;
    }
  }

  /** Join the unread bytes with the chunks, dropping what was read. */
  private join(): void {
    if (this.chunks.length === 0) return;
    this.buffer = Buffer.concat([this.buffer.subarray(this.offset), ...this.chunks]);
    this.copied += this.buffer.length;
    this.needed -= this.offset;
    this.offset = 0;
    this.chunks = [];
    this.chunked = 0;
  }

  /** Put an item read in the array under way; the whole reply once its outermost array is full. */
  private nest(item: Reply | Frame): { value: Reply } | undefined {
    if (isFrame(item)) {
      if (item.count > 0) {
        this.stack.push(item);
        return undefined;
      }
      item = [];
    }
    let value: Reply = item;
    for (let top = this.stack.at(-1); top; top = this.stack.at(-1)) {
      top.items.push(value);
      if (top.items.length < top.count) return undefined;
      this.stack.pop();
      value = top.items;
    }
    return { value };
  }

  /** Wait for more bytes: the item from `start` is not whole before `needed` bytes, or a newline. */
  private wait(start: number, needed: number, line: boolean): undefined {
    this.offset = start;
    this.needed = needed;
    this.waitsForLine = line;
    this.newline = false;
    return undefined;
  }

  private line(): string | undefined {
    const end = this.buffer.indexOf(CRLF, this.offset);
    if (end === -1) return undefined;
    const text = this.buffer.toString("utf8", this.offset + 1, end);
    this.offset = end + 2;
    return text;
  }

  /** One scalar reply, or the header of an array (a Frame, no items yet); undefined if not whole. */
  private item(): Reply | Frame | undefined {
    const start = this.offset;
    if (start >= this.buffer.length) return this.wait(start, 0, false);
    const type = this.buffer[start];
    // Checked before a whole line is there: another protocol may send none.
    if (!REPLY_TYPES.has(type ?? 0)) throw new RedisProtocolError(this.buffer.subarray(start));
    const text = this.line();
    if (text === undefined) return this.wait(start, this.buffer.length + 1, true);
    this.needed = 0;
    this.waitsForLine = false;
    switch (type) {
      case 0x2b: // +
        return text;
      case 0x2d: // -
        return new RedisReplyError(text);
      case 0x3a: // :
        return Number(text);
      case 0x24: {
        // $
        const length = Number(text);
        if (length < 0) return null;
        const end = this.offset + length;
        if (this.buffer.length < end + 2) return this.wait(start, end + 2, false);
        const value = this.buffer.toString("utf8", this.offset, end);
        this.offset = end + 2;
        return value;
      }
      default: {
        // *
        const count = Number(text);
        return count < 0 ? null : { items: [], count };
      }
    }
  }
}

function isFrame(item: Reply | Frame): item is Frame {
  return typeof item === "object" && item !== null && "count" in item && !Array.isArray(item);
}

/** Error replies nested in an array (EXEC) stay values; a top-level one rejects. */
function settle(pending: Pending, reply: Reply): void {
  if (reply instanceof RedisReplyError) pending.reject(reply);
  else pending.resolve(reply);
}

/**
 * One Redis connection. Replies arrive in request order, so commands are pipelined through a
 * FIFO of pending promises. Closing (or losing) the socket rejects what is pending with
 * "Connection closed", the message BullMQ treats as a closed connection.
 */
export class RespConnection {
  connected = false;
  onconnect: (() => void) | null = null;
  onclose: ((error?: Error) => void) | null = null;
  onerror: ((error: Error) => void) | null = null;
  private socket: Socket | undefined;
  private readonly pending: Pending[] = [];
  private closing = false;
  /** Set once the other end sent what is no Redis reply: commands are refused with it. */
  private notRedis: Error | undefined;

  constructor(
    private readonly target: RedisTarget,
    private readonly connectTimeoutMs = 10_000,
  ) {}

  /** Open the socket, authenticate and select the database. */
  async connect(): Promise<void> {
    if (this.socket) return;
    this.closing = false;
    const { host, port } = this.target;
    // A TLS server name is a host name (an IP address there is refused by TLS, and Node warns).
    const socket = this.target.tls
      ? tlsConnect({ host, port, ...(isIP(host) ? {} : { servername: host }) })
      : netConnect({ host, port });
    this.socket = socket;
    socket.setNoDelay(true);
    const parser = new ReplyParser();
    socket.on("data", (chunk: Buffer) => {
      parser.push(chunk);
      try {
        for (let reply = parser.next(); reply; reply = parser.next()) {
          const waiter = this.pending.shift();
          if (waiter) settle(waiter, reply.value);
        }
      } catch (error) {
        // Not Redis at the other end: what waits is told so, and the socket is dropped.
        this.notRedis = error as Error;
        for (const waiter of this.pending.splice(0)) waiter.reject(error as Error);
        socket.destroy(error as Error);
      }
    });
    let reached = false;
    socket.once("connect", () => {
      reached = true;
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        socket.destroy(
          new Error(
            this.target.tls && reached
              ? `it took the connection but gave no TLS handshake within ${this.connectTimeoutMs} ms; is it a Redis without TLS? (rediss:// is for TLS, redis:// for plain connections)`
              : `no answer within ${this.connectTimeoutMs} ms`,
          ),
        );
      }, this.connectTimeoutMs);
      socket.once(this.target.tls ? "secureConnect" : "connect", () => {
        clearTimeout(timer);
        resolve();
      });
      socket.once("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
    }).catch((error: Error) => {
      this.socket = undefined;
      socket.destroy();
      this.onclose?.(error);
      throw error;
    });
    socket.on("error", (error) => this.onerror?.(error));
    socket.on("close", () => {
      this.connected = false;
      this.socket = undefined;
      for (const waiter of this.pending.splice(0)) waiter.reject(new Error("Connection closed"));
      this.onclose?.(this.closing ? undefined : new Error("Connection closed"));
    });
    this.connected = true;
    const { username, password, db } = this.target;
    if (password !== undefined) {
      await this.send("AUTH", username ? [username, password] : [password]);
    }
    if (db) await this.send("SELECT", [String(db)]);
    this.onconnect?.();
  }

  /** Send one command; resolves to its reply, rejects with an error reply. */
  send<T = unknown>(command: string, args: readonly unknown[] = []): Promise<T> {
    const socket = this.socket;
    if (!socket || !this.connected)
      return Promise.reject(this.notRedis ?? new Error("Connection closed"));
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ resolve: resolve as (value: unknown) => void, reject });
      socket.write(encode(command, args));
    });
  }

  get(key: string): Promise<string | null> {
    return this.send<string | null>("GET", [key]);
  }

  smembers(key: string): Promise<unknown[]> {
    return this.send<unknown[]>("SMEMBERS", [key]);
  }

  incr(key: string): Promise<number> {
    return this.send<number>("INCR", [key]);
  }

  close(): void {
    this.closing = true;
    this.socket?.destroy();
  }

  /** A new, unconnected connection to the same server. */
  async duplicate(): Promise<RespConnection> {
    return new RespConnection(this.target, this.connectTimeoutMs);
  }
}
