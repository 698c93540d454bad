// The small Redis client of the queue (src/queue/resp.ts) against a real redis-server: replies of
// tens of megabytes, as an attempt's record with a large output comes back, read in linear time.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RespConnection } from "../../src/queue/resp.js";
import { startRedis, type TestRedis } from "../support/redis.js";

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
