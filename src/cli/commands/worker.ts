import { NiceevalError } from "../../errors.js";
import { closeAnswerStores } from "../../judge/cache.js";
import { configureJudges } from "../../judge/config.js";
import { keepListener } from "../../process-listeners.js";
import { probeRedis, redactRedisUrl } from "../../queue/connection.js";
import { inProcessWorkerExecutor } from "../../queue/in-process.js";
import { DEFAULT_QUEUE_NAME } from "../../queue/job.js";
import { type QueueWorker, startQueueWorker } from "../../queue/worker.js";
import { supervisedExecutor } from "../../supervisor/index.js";
import type { WorkerArgs } from "../args.js";
import { discoverEvalFiles } from "../discover.js";
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
    const worker = await startQueueWorker({
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
