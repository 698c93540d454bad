import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { cliPath } from "../support/project.js";

/** Stored attempts of the store at `path` (0 before it exists). */
export function storedAttempts(path: string): number {
  if (!existsSync(path)) return 0;
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare("SELECT count(*) AS n FROM attempts").get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return 0; // not yet created, or being created
  }
}

/**
 * Start the CLI in its own process group and SIGKILL the whole group once the store holds at
 * least `atLeast` attempts: the supervisor and its child die at once, as on a machine that dies.
 * `env` is added to the CLI's environment.
 */
export async function killWhenStored(
  args: readonly string[],
  cwd: string,
  store: string,
  atLeast: number,
  env: Record<string, string> = {},
): Promise<number> {
  const child = spawn(process.execPath, [cliPath, ...args, "--store", store], {
    cwd,
    detached: true,
    env: { ...process.env, CI: "true", NO_COLOR: "1", ...env },
    stdio: "ignore",
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    const n = storedAttempts(join(cwd, store));
    if (n >= atLeast || Date.now() > deadline) {
      process.kill(-child.pid!, "SIGKILL");
      await exited;
      return storedAttempts(join(cwd, store));
    }
  }
}
