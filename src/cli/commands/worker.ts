import { NiceevalError } from "../../errors.js";
import { closeAnswerStores } from "../../judge/cache.js";
import { configureJudges } from "../../judge/config.js";
import { keepListener } from "../../process-listeners.js";
import { probeRedis, redactRedisUrl } from "../../queue/connection.js";
import { inProcessWorkerExecutor } from "../../queue/in-process.js";
import { DEFAULT_QUEUE_NAME } from "../../queue/job.js";
import { type QueueWorker, type RunningAttempt, startQueueWorker } from "../../queue/worker.js";
import { supervisedExecutor } from "../../supervisor/index.js";
import type { WorkerArgs } from "../args.js";
import { discoverEvalFiles } from "../discover.js";
import { sayExitAs } from "../exit-guard.js";
import { readGitState } from "../git-state.js";
import type { CliIO } from "../io.js";
import { loadEvals } from "../load-evals.js";

/**
 * `niceeval worker`: load the eval files, take attempt jobs from the queue until SIGINT or
 * SIGTERM (the first lets running attempts finish, a second abandons them to other workers).
 * Attempts run in a supervised eval process, which alone imports the eval files (as in
 * `niceeval run`), unless `--no-supervise` runs them in this process.
 */
export async function workerCommand(args: WorkerArgs, io: CliIO): Promise<number> {
  if (args.store !== undefined) {
    throw new NiceevalError(
      "USAGE",
      "niceeval worker stores nothing: every attempt goes back to the `niceeval run --queue` that enqueued it, which writes its store (SQLite or PostgreSQL) and report; pass --store to that run",
    );
  }
  // An unreachable Redis is said before the eval files are loaded.
  await probeRedis(args.queue, undefined, args.queueFrom);
  const files = await discoverEvalFiles(args.paths, { cwd: io.cwd, exclude: args.exclude });
  if (files.length === 0) {
    throw new NiceevalError(
      "USAGE",
      `no eval files found in ${args.paths.length ? args.paths.join(", ") : "./evals or ./examples"}; give the worker the run's eval files`,
    );
  }
  if (!args.cache) configureJudges({ cache: false });
  let worker: QueueWorker | undefined;
  sayExitAs((code, at) => workerExitNotice(code, at, worker?.running()));
  const executor = args.supervise
    ? supervisedExecutor({
        files,
        cwd: io.cwd,
        judgeCache: args.cache,
        hangTimeoutMs: args.hangTimeoutMs,
        stdoutFd: io.stdoutFd,
        stderr: io.stderr,
        start: true,
        onRunError: ({ message }) =>
          io.stderr(
            `niceeval worker: ${message}; an error in the eval process that no attempt of it owns, said here only: the worker cannot tell whose run it belongs to, so no run is marked failed for it\n`,
          ),
      })
    : inProcessWorkerExecutor();
  try {
    const loaded = await loadEvals(executor, files, io.cwd, args.hangTimeoutMs);
    for (const error of loaded.errors)
      io.stderr(`niceeval worker: ${error.file}: ${error.message}\n`);
    if (loaded.entries.length === 0) {
      throw new NiceevalError("USAGE", "no eval loaded; the worker has nothing to run");
    }
    const log = (line: string) => io.stderr(`niceeval worker: ${line}\n`);
    const commit = (await readGitState(io.cwd))?.commit;
    worker = await startQueueWorker({
      url: args.queue,
      source: args.queueFrom,
      ...(commit ? { commit } : {}),
      ...(args.queueName !== undefined ? { queueName: args.queueName } : {}),
      executor,
      entries: loaded.entries,
      files,
      loadErrors: loaded.errors,
      cwd: io.cwd,
      concurrency: args.concurrency,
      ...(args.rateLimit ? { rateLimit: args.rateLimit } : {}),
      ...(args.lockDurationMs !== undefined ? { lockDurationMs: args.lockDurationMs } : {}),
      ...(args.stalledIntervalMs !== undefined
        ? { stalledIntervalMs: args.stalledIntervalMs }
        : {}),
      log,
    });
    const queueName = args.queueName ?? DEFAULT_QUEUE_NAME;
    log(
      `ready: ${loaded.entries.length} eval(s) from ${files.length} file(s), queue ${queueName} on ${redactRedisUrl(args.queue)}, concurrency ${args.concurrency}${args.supervise ? "" : ", attempts in this process (--no-supervise)"}`,
    );
    await untilStopped(worker, log);
    log(`stopped after ${worker.completed} attempt(s)`);
    return 0;
  } finally {
    // Ends the eval process: at once after a second signal, once its attempts ended after a first.
    await executor.close();
    await closeAnswerStores();
  }
}

/**
 * Resolves once the worker stopped: after the first SIGINT or SIGTERM, when its running attempts
 * have finished; at the second, at once (their jobs go to other workers once their locks expire).
 */
function untilStopped(worker: QueueWorker, log: (line: string) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      const force = stopping;
      stopping = true;
      log(
        force
          ? "stopping now; the running attempts go back to the queue"
          : `${signal}: finishing the running attempts (again to stop now)`,
      );
      // A second close waits for the first, which waits for the running attempts: not waited for.
      if (force) resolve();
      void worker.close(force).then(() => resolve());
    };
    keepListener("SIGINT", stop);
    keepListener("SIGTERM", stop);
  });
}

/**
 * What a worker says when code it loaded (`--no-supervise`) called `process.exit(code)`: the
 * attempts it was running (undefined: it was still loading the eval files), that it exits, and
 * that the queue hands their jobs to another worker.
 */
export function workerExitNotice(
  code: number,
  at: string | undefined,
  running: readonly RunningAttempt[] | undefined,
): string {
  const where = at ? ` at ${at}` : "";
  const head = `niceeval worker: code loaded by the worker called process.exit(${code})${where}`;
  if (running === undefined)
    return `${head} while it loaded the eval files; the worker exits (exit 1) before taking a job\n`;
  if (running.length === 0)
    return `${head} while it ran no attempt; the worker exits (exit 1) and held no job\n`;
  const named = running.slice(0, 5).map(attemptNamed).join(", ");
  const more = running.length > 5 ? ` and ${running.length - 5} more` : "";
  const what =
    running.length === 1
      ? `while it ran ${named}`
      : `while it ran ${running.length} attempts (${named}${more}; which of them called it is not known)`;
  const them = running.length === 1 ? "its job" : "their jobs";
  return `${head} ${what}; the worker exits (exit 1), and the queue takes back ${them} once the lock expires (--lock-duration), for another worker to run (a job whose workers die twice is errored). Without --no-supervise, attempts run in an eval process, whose exit costs only the attempt that caused it\n`;
}

/** A running attempt as the exit notice names it: its job, eval, case and trial. */
function attemptNamed({ jobId, evalId, caseId, trial }: RunningAttempt): string {
  return `job ${jobId} (eval "${evalId}", case "${caseId}"${trial > 0 ? `, trial ${trial}` : ""})`;
}
