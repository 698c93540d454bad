// The small Redis client of the queue (src/queue/resp.ts) against a real redis-server: replies of
// tens of megabytes, as an attempt's record with a large output comes back, read in linear time.
// And its RESP parser fed a reply recorded from redis-server, cut into chunks every way: at each
// byte position, a byte at a time, and at random. Each way gives the same replies, copies each
// byte a bounded number of times (a parser that re-read a partial array from its start on each
// chunk copied it once per chunk) and holds no more than the item under way and one chunk.
import { createConnection } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisReplyError, ReplyParser, RespConnection } from "../../src/queue/resp.js";
import { redisCommand, startRedis, type TestRedis } from "../support/redis.js";

let redis: TestRedis;

beforeAll(async () => {
  redis = await startRedis();
}, 120_000);

afterAll(async () => {
  await redis?.stop();
});

describe("RespConnection", () => {
  it("reads a 48 MB reply, and an array of such, in seconds (not minutes)", async () => {
    const connection = new RespConnection({ host: "127.0.0.1", port: redis.port, tls: false });
    await connection.connect();
    try {
      const big = "x".repeat(48 * 1024 * 1024);
      await connection.send("SET", ["big", big]);
      await connection.send("HSET", ["job", "returnvalue", big, "name", "attempt"]);
      // Each chunk joined to all before it took about 30 s for one such reply on two cores, and
      // over two minutes for both (this test's time limit); the figure belongs to a benchmark.
      const value = await connection.get("big");
      const fields = await connection.send<string[]>("HGETALL", ["job"]);
      expect(value?.length).toBe(big.length);
      // A hash this large is kept in no particular order: compared field by field.
      const byField = new Map<string, number>();
      for (let i = 0; i < fields.length; i += 2) byField.set(fields[i]!, fields[i + 1]!.length);
      expect(byField).toEqual(
        new Map([
          ["returnvalue", big.length],
          ["name", 7],
        ]),
      );
      // Small replies after it still come back in order.
      expect(await connection.send("PING")).toBe("PONG");
    } finally {
      connection.close();
    }
  }, 120_000);
});

/** Encode a command as RESP, as a client sends it. */
function command(...args: string[]): string {
  return `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")}`;
}

/** The raw bytes redis-server answers to `args` then QUIT (whose "+OK" closes the recording). */
function record(port: number, ...args: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("error", reject);
    socket.once("connect", () => socket.write(command(...args) + command("QUIT")));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.once("end", () => resolve(Buffer.concat(chunks)));
  });
}

/** Error replies as plain objects, so replies compare with toEqual. */
function plain(reply: unknown): unknown {
  if (reply instanceof RedisReplyError) return { error: reply.message };
  return Array.isArray(reply) ? reply.map(plain) : reply;
}

/** Feed `chunks` to a new parser, taking replies after each; checks what it holds meanwhile. */
function parse(chunks: readonly Buffer[], maxHeld: number): { replies: unknown[]; copied: number } {
  const parser = new ReplyParser();
  const replies: unknown[] = [];
  for (const chunk of chunks) {
    parser.push(chunk);
    for (let reply = parser.next(); reply; reply = parser.next()) replies.push(plain(reply.value));
    expect(parser.buffered).toBeLessThanOrEqual(maxHeld + chunk.length);
  }
  expect(parser.buffered).toBe(0);
  return { replies, copied: parser.copied };
}

/** A seeded generator (mulberry32), so a failing chunking is the same on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function cut(bytes: Buffer, at: readonly number[]): Buffer[] {
  const ends = [...at, bytes.length];
  return ends.map((end, i) => bytes.subarray(i === 0 ? 0 : ends[i - 1], end));
}

// Items of every shape a list gives: empty, multibyte, holding CRLF, long, many short.
const ITEMS = [
  "",
  "é",
  "a\r\nb",
  "\r\n",
  "x".repeat(700),
  "日本語",
  ...Array.from({ length: 120 }, (_, i) => String(i * 7919)),
];
// Nested arrays, an empty one, integers, a nil, and an error reply inside an array.
const SCRIPT = `return {redis.call('LRANGE', KEYS[1], 0, -1), {1, {2, 'x', {}}, -7}, redis.pcall('INCR', KEYS[2]), false, redis.call('LRANGE', KEYS[1], 0, 2)}`;
const EXPECTED = [
  [
    ITEMS,
    [1, [2, "x", []], -7],
    { error: "ERR value is not an integer or out of range" },
    null,
    ITEMS.slice(0, 3),
  ],
  "OK",
];
/** The largest item with its header: what the parser may hold besides one chunk. */
const LARGEST = 700 + "$700\r\n\r\n".length;

describe("ReplyParser over a recorded reply", () => {
  it("gives the same replies however the bytes are cut, copying each byte a few times", async () => {
    await redisCommand(redis.port, "DEL", "items");
    await redisCommand(redis.port, "RPUSH", "items", ...ITEMS);
    await redisCommand(redis.port, "SET", "word", "not a number");
    const bytes = await record(redis.port, "EVAL", SCRIPT, "2", "items", "word");
    expect(bytes.length).toBeGreaterThan(1500);

    const chunkings: Buffer[][] = [[bytes]];
    for (let at = 1; at < bytes.length; at++) chunkings.push(cut(bytes, [at]));
    chunkings.push(
      cut(
        bytes,
        Array.from({ length: bytes.length - 1 }, (_, i) => i + 1),
      ),
    );
    const next = random(20_260_101);
    for (let n = 0; n < 300; n++) {
      const at: number[] = [];
      for (
        let end = 1 + Math.floor(next() * 64);
        end < bytes.length;
        end += 1 + Math.floor(next() * 64)
      )
        at.push(end);
      chunkings.push(cut(bytes, at));
    }
    for (const chunks of chunkings) {
      const { replies, copied } = parse(chunks, LARGEST);
      expect(replies).toEqual(EXPECTED);
      expect(copied).toBeLessThanOrEqual(3 * bytes.length);
    }
  }, 120_000);

  it("reads an array of 200,000 short items in 64 KiB chunks copying it a few times, not once per chunk", async () => {
    const count = 200_000;
    await redisCommand(redis.port, "DEL", "many");
    const values = Array.from({ length: count }, (_, i) => `v${i}`);
    for (let i = 0; i < count; i += 10_000)
      await redisCommand(redis.port, "RPUSH", "many", ...values.slice(i, i + 10_000));
    const bytes = await record(redis.port, "LRANGE", "many", "0", "-1");
    const at: number[] = [];
    for (let end = 65_536; end < bytes.length; end += 65_536) at.push(end);
    const { replies, copied } = parse(cut(bytes, at), 32);
    expect(replies).toEqual([values, "OK"]);
    // Joined at each chunk from the reply's start, it was copied about chunks / 2 times over.
    expect(copied).toBeLessThanOrEqual(3 * bytes.length);
  }, 120_000);
});
