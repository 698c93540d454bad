import { relative, resolve } from "node:path";
import { Job, Queue, QueueEvents } from "bullmq";
import { shellWord } from "../cli/command-words.js";
import { fileHash } from "../cli/manifest.js";
import { clearInterval, realNow, setInterval } from "../clock.js";
import type { AttemptRecord } from "../eval/record.js";
import { trialLabel } from "../eval/trial-label.js";
import { type AttemptJob, type Executor, replayJudgments } from "../runner/executor.js";
import { crashed } from "../runner/source.js";
import { probeRedis, type QueueSource, RedisClients, redactRedisUrl } from "./connection.js";
import {
  ATTEMPT_JOB,
  type AttemptJobData,
  attemptJobId,
  caseContent,
  DEFAULT_QUEUE_NAME,
} from "./job.js";

/** Options of {@link openQueueExecutor}. */
export interface QueueExecutorOptions {
  /** `redis://[user:password@]host:port[/db]`. */
  url: string;
  /** Where the URL was given, named by messages about it (default --queue). */
  source?: QueueSource;
  queueName?: string;
  /** The run's eval files (their hashes travel with each job). */
  files: readonly string[];
  /**
   * The paths and `--exclude`s the run was given, which the `niceeval worker` it advises when no
   * worker listens is given too (none: the worker looks where the run did by default).
   */
  paths?: readonly string[];
  exclude?: readonly string[];
  cwd: string;
  /** How often attempts whose result event may have been missed are looked up, ms (default 2000). */
  sweepMs?: number;
  /** Told when no worker listens on the queue yet. */
  stderr?: (text: string) => void;
  /** The run's git commit (read while the run starts), sent with each job. */
  commit?: Promise<string | undefined>;
  /**
   * A continuation of a run (`--resume`, `--retry-errors`): its attempts' jobs may still be in
   * Redis from the first time. A finished one is reused, but not one that errored or failed:
   * that job is removed and the attempt enqueued again, so a retry runs it rather than reading
   * the old error back.
   */
  continuation?: boolean;
}

/** The executor of `niceeval run --queue`: attempts run on workers, records come back here. */
export interface QueueExecutor extends Executor {
  /** Every attempt not finished resolves now, errored with `reason`; waiting jobs are removed. */
  interrupt(reason: string): void;
  close(): Promise<void>;
  /** How long the run waits for an attempt: long, as it may wait in the queue (workers bound it). */
  readonly waitLimitMs: number;
  /** Always empty: a worker's own crashes belong to the attempts it held. */
  readonly runErrors: readonly { message: string; where: string }[];
}

interface Waiting {
  readonly job: AttemptJob;
  /** What was enqueued, to enqueue it again if its job vanishes from Redis. */
  readonly data: AttemptJobData;
  readonly resolve: (record: AttemptRecord) => void;
  /** When its job was enqueued (Infinity until then, so the sweep leaves it alone). */
  since: number;
}

/** Jobs stay this long after they finish, so enqueueing the same attempt again is a no-op, s. */
const KEEP_COMPLETED_S = 3600;
const KEEP_FAILED_S = 24 * 3600;

/**
 * Enqueue each attempt as one BullMQ job and resolve with the record a worker returns. Redis is
 * checked first (QUEUE_UNREACHABLE before any case runs); results arrive as QueueEvents, with a
 * periodic look-up of long-waiting jobs in case an event was missed (a reconnect, a trimmed stream).
 *
 * @example
 * const executor = await openQueueExecutor({ url: "redis://127.0.0.1:6379", files, cwd });
 * await runEvals(entries, { executor, concurrency: 256 });
 * await executor.close();
 */
export async function openQueueExecutor(options: QueueExecutorOptions): Promise<QueueExecutor> {
  const { name, clients, queue, events, workers } = await connectQueue(options);

  const dataOf = jobDataOf(options);
  const waiting = new Map<string, Waiting>();
  let stopped: string | undefined;
  /** Removals of jobs no worker took, which close() waits for. */
  const removing: Promise<unknown>[] = [];
  const takeBack = (ids: readonly string[]) => {
    for (const id of ids) removing.push(queue.remove(id).catch(() => 0));
  };

  const settle = (jobId: string, record: (job: AttemptJob) => AttemptRecord) => {
    const entry = waiting.get(jobId);
    if (!entry) return;
    waiting.delete(jobId);
    entry.resolve(record(entry.job));
  };
  events.on("completed", ({ jobId, returnvalue }) =>
    settle(jobId, (job) => asRecord(returnvalue, job)),
  );
  events.on("failed", ({ jobId, failedReason }) => settle(jobId, failed(failedReason)));
  sayStalls(events, waiting, options.stderr);

  /** A job that finished: its record, or its failure. */
  const settleFrom = (id: string, job: Job<AttemptJobData, AttemptRecord>) => {
    if (job.failedReason) settle(id, failed(job.failedReason));
    else settle(id, (attempt) => asRecord(job.returnvalue, attempt));
  };
  const enqueue = (id: string, data: AttemptJobData) =>
    queue.add(ATTEMPT_JOB, data, {
      jobId: id,
      removeOnComplete: { age: KEEP_COMPLETED_S },
      removeOnFail: { age: KEEP_FAILED_S },
    });
  const sweep = sweepLongWaits(
    queue,
    waiting,
    options.sweepMs ?? 2000,
    sweepFindings(options, name, workers, { waiting, settleFrom, enqueue }),
  );

  return {
    runErrors: [],
    waitLimitMs: 2 ** 31 - 1 - 1000,
    async execute(job) {
      if (stopped !== undefined) return notStarted(stopped)(job);
      const { entry, spec, trial, context } = job;
      const id = attemptJobId(context.runId, entry.eval.id, spec.id, trial);
      const data = await dataOf(job);
      const result = new Promise<AttemptRecord>((done) => {
        waiting.set(id, { job, data, resolve: done, since: Number.POSITIVE_INFINITY });
      });
      try {
        if (options.continuation) await dropErroredJob(queue, id);
        await enqueue(id, data);
        const entry = waiting.get(id);
        if (entry) entry.since = realNow();
        // Stopped while it was being enqueued: the removal may have come first.
        if (stopped !== undefined) takeBack([id]);
      } catch (error) {
        settle(id, failed(`enqueueing the attempt failed: ${(error as Error).message}`));
      }
      // The run stopped (a signal): a job no worker took yet is taken back at once, so the
      // grace period waits only for the attempts that run; a running one is locked and stays.
      const unwatch = onAbort(context.signal, () => {
        void withdrawJob(queue, id)
          .then((outcome) => {
            if (outcome === "removed") settle(id, notStarted(stopReason(context.signal)));
            else if (outcome) settleFrom(id, outcome);
          })
          .catch(() => {});
      });
      const record = await result;
      unwatch();
      // Judgments decided on the worker reach this run's realtime sinks when the record arrives.
      replayJudgments(context, record);
      return record;
    },
    interrupt(reason) {
      stopped ??= reason;
      const ids = [...waiting.keys()];
      for (const id of ids) settle(id, failed(reason));
      // Jobs no worker took yet are taken back; those running finish on their worker, unread.
      // close() waits for this, so no job is left in the queue for a later worker to run.
      takeBack(ids);
    },
    async close() {
      clearInterval(sweep);
      await Promise.all(removing);
      await events.close().catch(() => {});
      await queue.close().catch(() => {});
      await clients.close();
    },
  };
}

/**
 * A worker that died holding a job: another worker's stalled check put it back (workers take a
 * job at most twice: maxStalledCount 1 in worker.ts), which the run says, naming the attempt.
 */
function sayStalls(
  events: QueueEvents,
  waiting: ReadonlyMap<string, Waiting>,
  stderr: ((text: string) => void) | undefined,
): void {
  const stalls = new Map<string, number>();
  events.on("stalled", ({ jobId }) => {
    const entry = waiting.get(jobId);
    if (!entry) return;
    const count = (stalls.get(jobId) ?? 0) + 1;
    stalls.set(jobId, count);
    stderr?.(stalledMessage(entry.job, count > 1));
  });
}

/** Redis checked (QUEUE_UNREACHABLE), the queue and its events ready, a missing fleet said. */
async function connectQueue(options: QueueExecutorOptions) {
  const target = await probeRedis(options.url, undefined, options.source);
  const name = options.queueName ?? DEFAULT_QUEUE_NAME;
  const clients = new RedisClients(target);
  const queue = new Queue<AttemptJobData, AttemptRecord>(name, { connection: clients.client() });
  const events = new QueueEvents(name, { connection: clients.client() });
  queue.on("error", () => {});
  events.on("error", () => {});
  await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
  const workers = await queue.getWorkersCount().catch(() => 1);
  if (workers === 0 && options.stderr) {
    const shown = redactRedisUrl(options.url);
    options.stderr(
      `niceeval: no worker listens on queue ${name} at ${shown} yet; the attempts wait for one: ${workerCommand(shown, name, options)}\n`,
    );
  }
  return { name, clients, queue, events, workers };
}

/**
 * Removes the job of an attempt when it finished errored (its record) or failed (its worker
 * died or stalled), so that adding it again runs it: BullMQ ignores a job id it still holds.
 */
async function dropErroredJob(
  queue: Queue<AttemptJobData, AttemptRecord>,
  id: string,
): Promise<void> {
  const job = await Job.fromId<AttemptJobData, AttemptRecord>(queue, id);
  if (!job?.finishedOn) return;
  const record = job.returnvalue as Partial<AttemptRecord> | null | undefined;
  if (job.failedReason || record?.verdict === "errored") await job.remove();
}

/**
 * Take an attempt's job back at a stop when no worker has it yet: "removed" then; its job when
 * it already finished (a result whose event was not read yet is kept, not thrown away);
 * undefined when a worker runs it (locked: it stays, and the grace period waits for it).
 */
async function withdrawJob(
  queue: Queue<AttemptJobData, AttemptRecord>,
  id: string,
): Promise<"removed" | Job<AttemptJobData, AttemptRecord> | undefined> {
  const job = await Job.fromId<AttemptJobData, AttemptRecord>(queue, id);
  if (job?.finishedOn) return job.failedReason ? undefined : job;
  const state = job ? await job.getState() : "unknown";
  if (state !== "waiting" && state !== "delayed" && state !== "prioritized" && state !== "unknown")
    return undefined;
  return (await queue.remove(id)) === 1 ? "removed" : undefined;
}

/** Calls `then` once `signal` aborts (now, if it has); returns how to stop watching. */
function onAbort(signal: AbortSignal, then: () => void): () => void {
  if (signal.aborted) {
    then();
    return () => {};
  }
  signal.addEventListener("abort", then, { once: true });
  return () => signal.removeEventListener("abort", then);
}

function stalledMessage({ entry, spec, trial }: AttemptJob, again: boolean): string {
  const then = again
    ? "the second time, so the attempt is errored (the case may crash its process)"
    : "the attempt runs again on a worker";
  return `niceeval: the worker running ${entry.eval.id}/${spec.id}${trialLabel(trial, undefined)} stopped renewing its lock (it died, was killed or lost Redis); ${then}\n`;
}

function vanishedMessage(count: number, queueName: string): string {
  const jobs = count === 1 ? "the job of 1 attempt" : `the jobs of ${count} attempts`;
  return `niceeval: ${jobs} vanished from queue ${queueName} (Redis restarted without its data, flushed or evicted it); enqueued again\n`;
}

/**
 * Says once when the last worker is gone while attempts wait (two sweeps in a row found none,
 * so a worker reconnecting is not taken for one gone), and again if workers come back and leave
 * again: without it, a run whose workers all died waits in silence.
 */
function watchFleet(atStart: number, say: (waiting: number) => void): SweepFindings["fleet"] {
  // A run that started without workers has said so already: only a fleet that left is news.
  let seen = atStart > 0;
  let empty = 0;
  return (workers, waiting) => {
    if (workers > 0) {
      seen = true;
      empty = 0;
    } else if (seen && ++empty === 2) {
      seen = false;
      say(waiting);
    }
  };
}

/**
 * The `niceeval worker` that takes this run's jobs, in the words the run's URL was given in: its
 * Redis, its queue when not the default, and the run's own paths and `--exclude`s, shell-quoted.
 */
function workerCommand(
  shown: string,
  queueName: string,
  run: Pick<QueueExecutorOptions, "source" | "paths" | "exclude">,
): string {
  const queue = queueName === DEFAULT_QUEUE_NAME ? "" : ` --queue-name ${shellWord(queueName)}`;
  const words = [
    ...(run.paths ?? []).map(shellWord),
    ...(run.exclude ?? []).flatMap((path) => ["--exclude", shellWord(path)]),
  ];
  const paths = words.length > 0 ? ` ${words.join(" ")}` : "";
  return run.source === "NICEEVAL_QUEUE"
    ? `NICEEVAL_QUEUE=${shown} niceeval worker${queue}${paths}`
    : `niceeval worker --queue ${shown}${queue}${paths}`;
}

function noWorkerLeftMessage(
  waiting: number,
  queueName: string,
  run: Pick<QueueExecutorOptions, "url" | "source" | "paths" | "exclude">,
): string {
  const shown = redactRedisUrl(run.url);
  return `niceeval: no worker listens on queue ${queueName} at ${shown} any more; ${waiting === 1 ? "1 attempt waits" : `${waiting} attempts wait`} for one: start one (${workerCommand(shown, queueName, run)}), or stop the run (Ctrl-C)\n`;
}

function unreachableMessage(url: string, sinceMs: number): string {
  return `niceeval: Redis at ${redactRedisUrl(url)} has not answered for ${Math.round(sinceMs / 1000)} s; the run waits for it (Ctrl-C stops it)\n`;
}

/** Why the run stopped, for the record of an attempt no worker took before it did. */
function stopReason(signal: AbortSignal): string {
  const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason);
  return `${reason} before a worker took the attempt`;
}

/** What the run does with what a sweep finds: it settles, enqueues again, and says. */
function sweepFindings(
  options: Pick<QueueExecutorOptions, "stderr" | "url" | "source" | "paths" | "exclude">,
  name: string,
  workersAtStart: number,
  run: {
    waiting: ReadonlyMap<string, Waiting>;
    settleFrom: SweepFindings["finished"];
    enqueue: (id: string, data: AttemptJobData) => Promise<unknown>;
  },
): SweepFindings {
  return {
    finished: run.settleFrom,
    vanished: (ids) => {
      options.stderr?.(vanishedMessage(ids.length, name));
      for (const id of ids) {
        const entry = run.waiting.get(id);
        if (entry) void run.enqueue(id, entry.data).catch(() => {});
      }
    },
    unreachable: (since) => options.stderr?.(unreachableMessage(options.url, since)),
    fleet: watchFleet(workersAtStart, (count) =>
      options.stderr?.(noWorkerLeftMessage(count, name, options)),
    ),
  };
}

/** What {@link sweepLongWaits} finds. */
interface SweepFindings {
  /** A job that finished, whose event was missed. */
  finished(id: string, job: Job<AttemptJobData, AttemptRecord>): void;
  /** Jobs Redis no longer has though no result came (a restart without persistence, a flush). */
  vanished(ids: string[]): void;
  /** Redis has not answered a look-up for this long, ms (said once until it answers again). */
  unreachable(sinceMs: number): void;
  /** How many workers listen, looked up while attempts have waited a sweep or longer. */
  fleet(workers: number, waiting: number): void;
}

/** After this long without an answer from Redis, the run says it is waiting for it, ms. */
const UNREACHABLE_AFTER_MS = 10_000;

/**
 * A missed event must not leave an attempt waiting forever: every `sweepMs`, the jobs waited for
 * longer than that are looked up; each that finished goes to `finished`, those Redis lost to
 * `vanished` (so they are enqueued again), and a Redis that stays away is said once.
 */
function sweepLongWaits(
  queue: Queue<AttemptJobData, AttemptRecord>,
  waiting: ReadonlyMap<string, Waiting>,
  sweepMs: number,
  found: SweepFindings,
): ReturnType<typeof setInterval> {
  let sweeping = false;
  /** When Redis last answered a look-up (or the sweep last found nothing to look up). */
  let answeredAt = realNow();
  let warned = false;
  const answered = () => {
    answeredAt = realNow();
    warned = false;
  };
  // Each look-up is timed, not the sweep: a healthy sweep of many jobs may take long.
  const stillAway = () => {
    const since = realNow() - answeredAt;
    if (!warned && since >= UNREACHABLE_AFTER_MS) {
      warned = true;
      found.unreachable(since);
    }
  };
  const sweep = setInterval(async () => {
    // A look-up that does not come back (commands wait while the client reconnects) is Redis away.
    if (sweeping) {
      stillAway();
      return;
    }
    sweeping = true;
    try {
      const now = realNow();
      const lost: string[] = [];
      let asked = false;
      for (const [id, entry] of waiting) {
        // Not enqueued yet (since is set once it is), or not waited for long.
        if (now - entry.since < sweepMs) continue;
        asked = true;
        const job = await Job.fromId<AttemptJobData, AttemptRecord>(queue, id);
        answered();
        if (job?.finishedOn) found.finished(id, job);
        else if (!job && waiting.has(id)) lost.push(id);
      }
      if (!asked) answered();
      if (lost.length > 0) found.vanished(lost);
      if (asked) found.fleet(await queue.getWorkersCount(), waiting.size);
    } catch {
      // Redis away: the next sweep tries again; after a while, the run says it waits.
      stillAway();
    } finally {
      sweeping = false;
    }
  }, sweepMs);
  sweep.unref();
  return sweep;
}

/**
 * What a worker is told of each attempt of this run: its case (with hashes of its content), its
 * eval file and every file of the run with their hashes (hashed once), and the run's commit.
 */
function jobDataOf(
  options: Pick<QueueExecutorOptions, "files" | "cwd" | "commit">,
): (job: AttemptJob) => Promise<AttemptJobData> {
  const files = options.files.map((file) => {
    const path = resolve(options.cwd, file);
    return { absolute: path, path: relative(options.cwd, path) || path, hash: fileHash(path) };
  });
  const manifestFiles = files.map(({ path, hash }) => ({ path, hash }));
  const fileOf = new Map(files.map((f) => [f.absolute, { path: f.path, hash: f.hash }]));
  return async (job) => {
    const file = job.entry.file ? fileOf.get(resolve(options.cwd, job.entry.file)) : undefined;
    const commit = await options.commit;
    return { ...jobData(job, file, manifestFiles), ...(commit ? { commit } : {}) };
  };
}

/** What a worker is told of an attempt: which case of which eval file, and how to run it. */
function jobData(
  job: AttemptJob,
  file: { path: string; hash: string } | undefined,
  files: AttemptJobData["files"],
): AttemptJobData {
  const { entry, spec, trial, context } = job;
  return {
    v: 1,
    runId: context.runId,
    evalId: entry.eval.id,
    caseId: spec.id,
    caseIndex: spec.index,
    content: caseContent(spec),
    trial,
    ...(file ? { file } : {}),
    files,
    ...(context.timeoutMs !== undefined ? { timeoutMs: context.timeoutMs } : {}),
    ...(context.keepOutput ? { keepOutput: true } : {}),
  };
}

/** A job result that is not a record (another program on the queue) is an errored attempt. */
function asRecord(value: unknown, job: AttemptJob): AttemptRecord {
  if (typeof value === "object" && value !== null && "verdict" in value && "score" in value)
    return value as AttemptRecord;
  return crashed(job.entry.eval, job.spec, "the worker returned no attempt record");
}

/** The record of an attempt whose job failed (or could not be run), with `reason`. */
const failed = (reason: string) => (job: AttemptJob) =>
  crashed(job.entry.eval, job.spec, describeFailure(reason));

/** The record of an attempt the stop came before a worker took it: none of it ran. */
const notStarted = (reason: string) => (job: AttemptJob) => {
  const record = crashed(job.entry.eval, job.spec, reason);
  return {
    ...record,
    error: { ...record.error!, interrupted: true as const, notStarted: true as const },
  };
};

/** BullMQ's words for a job whose workers died, in the run's words. */
function describeFailure(reason: string): string {
  if (/stalled more than allowable limit/i.test(reason))
    return `the workers running this attempt died or stalled too often (${reason}); the case may crash its process`;
  return reason;
}
