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
      const started = performance.now();
      const value = await connection.get("big");
      const fields = await connection.send<string[]>("HGETALL", ["job"]);
      const elapsed = performance.now() - started;
      expect(value?.length).toBe(big.length);
      expect(fields.map((f) => f.length)).toEqual([11, big.length, 4, 7]);
      // Each chunk joined to all before it took about 30 s for one such reply on two cores.
      expect(elapsed).toBeLessThan(8000);
      // Small replies after it still come back in order.
      expect(await connection.send("PING")).toBe("PONG");
    } finally {
      connection.close();
    }
  }, 120_000);
});
