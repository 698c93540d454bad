// Shared by the queue tests: `niceeval worker` processes of the built CLI, started and stopped.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { cliPath } from "../support/project.js";

export interface Worker {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<number | null>;
}

/**
 * Start `niceeval worker` on `queue` with the test defaults (short lock and stalled interval);
 * `url` undefined gives no `--queue` (the worker then reads NICEEVAL_QUEUE from `options.env`).
 */
export function startWorker(
  cwd: string,
  url: string | undefined,
  queue: string,
  mark: string,
  options: { args?: readonly string[]; env?: Record<string, string> } = {},
): Promise<Worker> {
  const child = spawn(
    process.execPath,
    [
      cliPath,
      "worker",
      ...(url === undefined ? [] : ["--queue", url]),
      "--queue-name",
      queue,
      "evals",
      "--concurrency",
      "2",
      "--lock-duration",
      "1000",
      "--stalled-interval",
      "500",
      ...(options.args ?? []),
    ],
    {
      cwd,
      env: { ...process.env, CI: "true", NO_COLOR: "1", MARK: mark, ...options.env },
      stdio: "pipe",
    },
  );
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return new Promise((resolve, reject) => {
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      if (stderr.includes("ready:")) resolve({ child, stderr: () => stderr, exited });
    });
    void exited.then((code) => reject(new Error(`worker exited with ${code}:\n${stderr}`)));
  });
}

export async function stopAll(workers: readonly Worker[]): Promise<void> {
  for (const { child } of workers) if (child.exitCode === null) child.kill("SIGTERM");
  await Promise.all(workers.map((w) => w.exited));
}

/** One line a target appended to $MARK when an attempt started: "<pid> <case> <epoch ms>". */
export interface Start {
  pid: string;
  caseId: string;
  at: number;
}

export function readStarts(mark: string): Start[] {
  if (!existsSync(mark)) return [];
  return readFileSync(mark, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [pid = "", caseId = "", at = "NaN"] = line.split(" ");
      return { pid, caseId, at: Number(at) };
    });
}

export interface JsonReport {
  records: { evalId: string; caseId: string; verdict: string; error?: { message: string } }[];
}
