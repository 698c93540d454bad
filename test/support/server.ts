import type { ChildProcess } from "node:child_process";
import { createServer } from "node:net";

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

/**
 * Start a server process on a free loopback port and wait until it answers; a port taken in
 * between, or a server that exits or stays silent, is retried on another port (5 tries).
 * Throws with the end of the server's output when it never answers.
 */
export async function startOnFreePort(options: {
  name: string;
  spawn: (port: number) => ChildProcess;
  ready: (port: number) => Promise<boolean>;
  timeoutMs: number;
  pollMs: number;
  logChars: number;
}): Promise<{ child: ChildProcess; port: number }> {
  let log = "";
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const proc = options.spawn(port);
    const keep = (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-options.logChars);
    };
    proc.stdout?.on("data", keep);
    proc.stderr?.on("data", keep);
    let exited = false;
    proc.once("exit", () => {
      exited = true;
    });
    const deadline = Date.now() + options.timeoutMs;
    while (!exited && Date.now() < deadline && !(await options.ready(port)))
      await new Promise((r) => setTimeout(r, options.pollMs));
    if (!exited && Date.now() < deadline) return { child: proc, port };
    if (!exited) proc.kill("SIGKILL");
  }
  throw new Error(`${options.name} did not start:\n${log}`);
}
