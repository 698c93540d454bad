// A real redis-server on loopback for tests: Debian's package (installed with apt-get when
// missing and running as root), a free port on 127.0.0.1, a temp dir, no persistence.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { createConnection } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { startOnFreePort } from "./server.js";

/** A running test server. */
export interface TestRedis {
  readonly port: number;
  /** `redis://127.0.0.1:port`. */
  readonly url: string;
  /** Stop it as `redis-cli SHUTDOWN NOSAVE` does (SIGTERM; no persistence: its data is gone). */
  halt(): Promise<void>;
  /** Start a halted server again on the same port, once it answers PING. */
  restart(): Promise<void>;
  /** SIGSTOP or SIGCONT the server: connections stay open, unanswered while it is stopped. */
  freeze(signal: "SIGSTOP" | "SIGCONT"): void;
  stop(): Promise<void>;
}

function findRedisServer(): string {
  const which = () => {
    try {
      return execFileSync("which", ["redis-server"], { encoding: "utf8" }).trim() || undefined;
    } catch {
      return undefined;
    }
  };
  const found = which();
  if (found) return found;
  if (userInfo().uid === 0) {
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    const install = () =>
      execFileSync("apt-get", ["install", "-y", "--no-install-recommends", "redis-server"], {
        stdio: "ignore",
        env,
      });
    try {
      install();
    } catch {
      execFileSync("apt-get", ["update"], { stdio: "ignore", env });
      install();
    }
    const installed = which();
    if (installed) return installed;
  }
  throw new Error("no redis-server for the tests: run `apt-get install redis-server`");
}

export { freePort } from "./server.js";

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("error", () => resolve(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (chunk) => {
      socket.destroy();
      resolve(chunk.toString().startsWith("+PONG"));
    });
  });
}

/** One command to the server at `port`, its reply as the raw RESP text ("+OK", ":3"). */
export function redisCommand(port: number, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("error", reject);
    socket.once("connect", () =>
      socket.write(
        `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")}`,
      ),
    );
    socket.once("data", (chunk) => {
      socket.destroy();
      resolve(chunk.toString().trim());
    });
  });
}

/** Empty every database of the server at `port` (FLUSHALL), as a restart without persistence does. */
export async function flushAll(port: number): Promise<void> {
  const reply = await redisCommand(port, "FLUSHALL");
  if (reply !== "+OK") throw new Error(`FLUSHALL answered ${reply}`);
}

/**
 * Start a throwaway redis-server; `args` are more of its options (`--replicaof 127.0.0.1 6379`).
 *
 * @example
 * const redis = await startRedis();
 * afterAll(() => redis.stop());
 */
export function startRedis(args: readonly string[] = []): Promise<TestRedis> {
  return startServer((port, dir) => [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    dir,
    "--save",
    "",
    "--appendonly",
    "no",
    ...args,
  ]);
}

/** Start a throwaway Redis Sentinel watching the server at `primaryPort` as "mymaster". */
export function startSentinel(primaryPort: number): Promise<TestRedis> {
  return startServer((port, dir) => {
    // A Sentinel needs a config file it can rewrite.
    const config = join(dir, "sentinel.conf");
    writeFileSync(config, `sentinel monitor mymaster 127.0.0.1 ${primaryPort} 1\n`);
    return [config, "--sentinel", "--port", String(port), "--bind", "127.0.0.1", "--dir", dir];
  });
}

async function startServer(args: (port: number, dir: string) => string[]): Promise<TestRedis> {
  const bin = findRedisServer();
  const dir = mkdtempSync(join(tmpdir(), "niceeval-redis-"));
  let started: { child: ChildProcess; port: number };
  try {
    started = await startOnFreePort({
      name: `redis-server (${bin})`,
      spawn: (port) => spawn(bin, args(port, dir), { stdio: ["ignore", "pipe", "pipe"] }),
      ready: answersPing,
      timeoutMs: 10_000,
      pollMs: 50,
      logChars: 4000,
    });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const { child, port } = started;
  let server = child;
  const stopOnExit = () => server.kill("SIGKILL");
  process.once("exit", stopOnExit);
  const running = () => server.exitCode === null && server.signalCode === null;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async halt() {
      const exited = new Promise((r) => server.once("exit", r));
      server.kill("SIGTERM");
      await exited;
    },
    async restart() {
      server = spawn(bin, args(port, dir), { stdio: "ignore" });
      while (!(await answersPing(port))) {
        if (!running()) throw new Error("redis-server did not start again");
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    freeze(signal) {
      if (running()) server.kill(signal);
    },
    async stop() {
      process.off("exit", stopOnExit);
      if (running()) {
        server.kill("SIGCONT");
        const exited = new Promise((r) => server.once("exit", r));
        server.kill("SIGTERM");
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 5000)))]);
        clearTimeout(timer);
        if (server.exitCode === null && server.signalCode === null) server.kill("SIGKILL");
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
