// A real redis-server on loopback for tests: Debian's package (installed with apt-get when
// missing and running as root), a free port on 127.0.0.1, a temp dir, no persistence.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { createConnection, createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

/** A running test server. */
export interface TestRedis {
  readonly port: number;
  /** `redis://127.0.0.1:port`. */
  readonly url: string;
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

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address
          ? resolve(address.port)
          : reject(new Error("no port")),
      );
    });
  });
}

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

/**
 * Start a throwaway redis-server.
 *
 * @example
 * const redis = await startRedis();
 * afterAll(() => redis.stop());
 */
export async function startRedis(): Promise<TestRedis> {
  const bin = findRedisServer();
  const dir = mkdtempSync(join(tmpdir(), "niceeval-redis-"));
  let child: ChildProcess | undefined;
  let port = 0;
  let log = "";
  for (let attempt = 0; attempt < 5 && !child; attempt++) {
    port = await freePort();
    const proc = spawn(
      bin,
      [
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
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const keep = (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-4000);
    };
    proc.stdout?.on("data", keep);
    proc.stderr?.on("data", keep);
    let exited = false;
    proc.once("exit", () => {
      exited = true;
    });
    const deadline = Date.now() + 10_000;
    while (!exited && Date.now() < deadline && !(await answersPing(port)))
      await new Promise((r) => setTimeout(r, 50));
    if (!exited && Date.now() < deadline) child = proc;
    else if (!exited) proc.kill("SIGKILL");
  }
  if (!child) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`redis-server did not start (${bin}):\n${log}`);
  }
  const server = child;
  const stopOnExit = () => server.kill("SIGKILL");
  process.once("exit", stopOnExit);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      process.off("exit", stopOnExit);
      if (server.exitCode === null && server.signalCode === null) {
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
