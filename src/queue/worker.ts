import { hostname } from "node:os";
import { relative, resolve } from "node:path";
import { type Job, Queue, UnrecoverableError, Worker } from "bullmq";
import { fileHash } from "../cli/manifest.js";
import { realDateNow } from "../clock.js";
import type { AttemptRecord } from "../eval/record.js";
import type { AttemptContext, CaseSpec } from "../eval/runnable.js";
import { safeStringify } from "../json-safe.js";
import { onJudgePushBack } from "../judge/retries.js";
import type { RunEntry } from "../runner/entry.js";
import type { Executor } from "../runner/executor.js";
import { crashed } from "../runner/source.js";
import type { LoadError } from "../runner/summary.js";
import { copiedCases } from "../supervisor/wire.js";
import { probeRedis, type QueueSource, RedisClients, redactRedisUrl } from "./connection.js";
import { type AttemptJobData, attemptJobSchema, caseContent, DEFAULT_QUEUE_NAME } from "./job.js";

/** A fleet-wide rate limit: at most `max` attempts start per `durationMs`, across all workers. */
export interface QueueRateLimit {
  max: number;
  durationMs: number;
}

/** Options of {@link startQueueWorker}. */
export interface QueueWorkerOptions {
  url: string;
  /** Where the URL was given, named by messages about it (default --queue). */
  source?: QueueSource;
  queueName?: string;
  /**
   * Where each job's attempt runs: the supervised executor whose eval process loaded `entries`
   * (`niceeval worker`), or one in this process (`--no-supervise`, `inProcessWorkerExecutor`).
   * The worker does not close it.
   */
  executor: Executor;
  /** The evals this worker loaded (through `executor`, when supervised), and their files. */
  entries: readonly RunEntry[];
  files: readonly string[];
  /**
   * Why files failed to load here (paths relative to `cwd`): a job of one of their evals is
   * refused with that error, not as an eval this worker was not given.
   */
  loadErrors?: readonly LoadError[];
  cwd: string;
  /** Attempts this worker runs at once (default 8). */
  concurrency?: number;
  /** BullMQ's job lock, ms: a worker silent this long has its job handed to another (default 30000). */
  lockDurationMs?: number;
  /** How often workers look for jobs whose worker died, ms (default 30000). */
  stalledIntervalMs?: number;
  rateLimit?: QueueRateLimit;
  /** Longest pause a judge's push-back imposes on the fleet, ms (default 60000). */
  maxPushBackMs?: number;
  /** One line per event worth telling (ready, a refused job, a push-back). */
  log?: (line: string) => void;
  /**
   * The git commit of the worker's checkout, when it has one: a job from a run on another commit
   * is refused (undefined, or a job without one: only the eval files' hashes are compared).
   */
  commit?: string;
}

/** A running worker. */
export interface QueueWorker {
  /** Stop taking jobs and wait for the running ones (`force`: abandon them to another worker). */
  close(force?: boolean): Promise<void>;
  /** Attempts finished so far. */
  readonly completed: number;
  /** The attempts running now, in the order they started. */
  running(): readonly RunningAttempt[];
}

/** An attempt a worker is running, as its notices name it. */
export interface RunningAttempt {
  jobId: string;
  evalId: string;
  caseId: string;
  trial: number;
}

// Without a configured limit the limiter is never reached, but it must exist: BullMQ only
// honours a manual rate limit (a 429 pausing the fleet) on a queue that has one.
const UNLIMITED: QueueRateLimit = { max: 1_000_000_000, durationMs: 1000 };

/**
 * Take attempt jobs from the queue and run each with the executor it is given; the record is the
 * job's result, so the run that enqueued it stays the single writer of its store and report. A
 * job whose eval file differs from this worker's (by hash), whose case has other content here
 * (same id, other input, expected or metadata: by hash), or that a run on another git commit
 * enqueued, is refused with a message saying so; the job fails with it and the run records the
 * attempt as errored.
 *
 * @example
 * const worker = await startQueueWorker({ url, executor, entries, files, cwd, concurrency: 8 });
 * process.once("SIGTERM", () => worker.close());
 */
export async function startQueueWorker(options: QueueWorkerOptions): Promise<QueueWorker> {
  const target = await probeRedis(options.url, undefined, options.source);
  const name = options.queueName ?? DEFAULT_QUEUE_NAME;
  const log = options.log ?? (() => {});
  const clients = new RedisClients(target);
  const queue = new Queue(name, { connection: clients.client() });
  queue.on("error", () => {});
  const jobs = new AttemptJobs(options, log);
  const limit = options.rateLimit ?? UNLIMITED;
  const worker = new Worker<AttemptJobData, AttemptRecord>(
    name,
    (job, _token, signal) => jobs.process(job, signal),
    {
      connection: clients.client(),
      concurrency: options.concurrency ?? 8,
      limiter: { max: limit.max, duration: limit.durationMs },
      lockDuration: options.lockDurationMs ?? 30_000,
      stalledInterval: options.stalledIntervalMs ?? 30_000,
      maxStalledCount: 1,
      autorun: false,
    },
  );
  worker.on("error", queueErrors(log, Date.now, `Redis at ${redactRedisUrl(options.url)}`));
  const unsubscribe = pauseOnPushBack(queue, options.maxPushBackMs ?? 60_000, log);
  void worker.run();
  await worker.waitUntilReady();
  return {
    get completed() {
      return jobs.completed;
    },
    running: () => [...jobs.running.values()],
    async close(force = false) {
      unsubscribe();
      await worker.close(force).catch(() => {});
      await queue.close().catch(() => {});
      await clients.close();
    },
  };
}

/** How often a Redis that stays away is said again, ms. */
const AWAY_REPEAT_MS = 30_000;
/** A connection error this long after the last one is a new outage (the client retries faster). */
const NEW_OUTAGE_MS = 10_000;

/**
 * What the worker says of BullMQ's errors: a lost connection once, then at most every 30 s with
 * how many attempts to reach Redis failed meanwhile (the client retries on its own; errors 10 s
 * apart or more are separate outages); a job whose
 * lock Redis no longer holds in words an operator can act on, once per job; anything else as it
 * came.
 */
export function queueErrors(
  log: (line: string) => void,
  now = Date.now,
  /** The server, as messages name it: "Redis at redis://host:port" (the password masked). */
  redis = "Redis",
): (error: Error) => void {
  const other = repeatedErrors(log, now);
  let awaySince: number | undefined;
  let saidAt = 0;
  let lastAt = 0;
  let failures = 0;
  /** Jobs whose unsaved result was said: BullMQ reports each twice. */
  const unsaved = new Set<string>();
  return (error) => {
    const { message } = error;
    const unrenewed = /^could not renew lock for job (\S+)/.exec(message)?.[1];
    if (unrenewed !== undefined) {
      if (unsaved.has(`renew ${unrenewed}`)) return;
      if (unsaved.size >= 1024) unsaved.clear();
      unsaved.add(`renew ${unrenewed}`);
      log(
        `the lock of job ${unrenewed} could not be renewed: Redis did not answer in time (paused, overloaded or away); the attempt goes on here, and if Redis stays away past --lock-duration another worker may run it again`,
      );
      return;
    }
    const lost = unsavedResult(message);
    if (lost) {
      if (unsaved.has(lost.job)) return;
      // Bounded: a long outage may take many locks.
      if (unsaved.size >= 1024) unsaved.clear();
      unsaved.add(lost.job);
      log(`the result of job ${lost.job} could not be saved: ${lost.why}`);
      return;
    }
    const code = (error as NodeJS.ErrnoException).code;
    const connection =
      code === "ECONNREFUSED" ||
      code === "ECONNRESET" ||
      code === "ETIMEDOUT" ||
      /Connection (is )?closed|ECONNREFUSED|ECONNRESET/.test(message);
    if (!connection) {
      awaySince = undefined;
      other(message);
      return;
    }
    failures++;
    const at = now();
    if (at - lastAt >= NEW_OUTAGE_MS) awaySince = undefined;
    lastAt = at;
    if (awaySince === undefined) {
      awaySince = saidAt = at;
      failures = 0;
      log(`lost the connection to ${redis} (${message}); retrying until it answers`);
    } else if (at - saidAt >= AWAY_REPEAT_MS) {
      saidAt = at;
      log(
        `${redis} still does not answer after ${Math.round((at - awaySince) / 1000)} s (${failures} failed attempts to reach it; ${message})`,
      );
      failures = 0;
    }
  };
}

/**
 * BullMQ's words for a finished job's result it could not save (its lock or its key gone, or
 * the job taken by another worker since), as the job and why, in words an operator can act on.
 */
function unsavedResult(message: string): { job: string; why: string } | undefined {
  const lock = /^Missing lock for job (\S+?)\.? \w+/.exec(message);
  if (lock)
    return {
      job: lock[1]!,
      why: "Redis no longer holds its lock (restarted, flushed, or the job ran past --lock-duration without renewing it); the attempt runs again",
    };
  const mismatch = /^Lock mismatch for job (\S+?)\.? Cmd/.exec(message);
  if (mismatch)
    return {
      job: mismatch[1]!,
      why: "another worker holds it now (its lock expired while Redis was away or past --lock-duration); the attempt runs there",
    };
  const key = /^Missing key for job (\S+?)\.? \w+/.exec(message);
  if (key)
    return {
      job: key[1]!,
      why: "Redis no longer has the job (restarted without its data, flushed or evicted); the run enqueues it again",
    };
  return undefined;
}

/**
 * Other queue errors as they come, but one that repeats (BullMQ tries again at once: a Redis that
 * turned replica answers READONLY to each try) once, then at most every 30 s with its count.
 */
function repeatedErrors(log: (line: string) => void, now: () => number): (message: string) => void {
  const said = new Map<string, { at: number; since: number }>();
  return (message) => {
    const at = now();
    const last = said.get(message);
    if (last && at - last.at < AWAY_REPEAT_MS) {
      last.since++;
      return;
    }
    const again = last?.since
      ? ` (${last.since} more times in the last ${Math.round((at - last.at) / 1000)} s)`
      : "";
    log(`queue error: ${message}${again}`);
    // Bounded: messages that name a job each are many, and each is said once anyway.
    if (said.size >= 256) said.clear();
    said.set(message, { at, since: 0 });
  };
}

/** A judge's push-back here pauses job starts on every worker of the queue, up to `maxPause` ms. */
function pauseOnPushBack(queue: Queue, maxPause: number, log: (line: string) => void): () => void {
  let pausedUntil = 0;
  return onJudgePushBack((event) => {
    const ms = Math.min(maxPause, Math.max(100, event.retryAfterMs ?? 1000));
    const until = realDateNow() + ms;
    if (until <= pausedUntil) return;
    pausedUntil = until;
    log(
      `judge ${event.endpoint} pushed back (${event.status ?? "rate limited"}): pausing the queue's workers for ${ms} ms`,
    );
    queue.rateLimit(ms).catch(() => {});
  });
}

/**
 * What a worker does with one job: checks it against its own evals (the eval, its file's hash,
 * the case at its index and its content's hashes), runs it through the worker's executor and
 * gives back its record as JSON. A job it cannot run fails for good (UnrecoverableError) with a
 * message saying why.
 */
class AttemptJobs {
  completed = 0;
  /** The attempts running now, by job id. */
  readonly running = new Map<string, RunningAttempt>();
  private readonly byId: Map<string, RunEntry>;
  private readonly fileOf: Map<string, { path: string; hash: string }>;
  private readonly cases = new Map<string, CaseLookup>();

  constructor(
    private readonly options: QueueWorkerOptions,
    private readonly log: (line: string) => void,
  ) {
    this.byId = new Map(options.entries.map((entry) => [entry.eval.id, entry]));
    this.fileOf = new Map(
      options.files.map((file) => {
        const path = resolve(options.cwd, file);
        return [path, { path: relative(options.cwd, path) || path, hash: fileHash(path) }] as const;
      }),
    );
  }

  async process(job: Job<AttemptJobData, AttemptRecord>, signal?: AbortSignal) {
    const { data, entry, spec } = await this.check(job);
    const context: AttemptContext = {
      runId: data.runId,
      signal: signal ?? new AbortController().signal,
      // Jobs come from `niceeval run --queue`: errors advise its flags.
      origin: "cli",
      ...(data.trial > 0 ? { trial: data.trial } : {}),
      ...(data.keepOutput ? { keepOutput: true } : {}),
      ...(data.timeoutMs !== undefined ? { timeoutMs: data.timeoutMs } : {}),
    };
    let record: AttemptRecord;
    const jobId = job.id ?? `${data.evalId}/${data.caseId}`;
    this.running.set(jobId, { jobId, evalId: data.evalId, caseId: spec.id, trial: data.trial });
    try {
      record = await this.options.executor.execute({ entry, spec, trial: data.trial, context });
    } catch (error) {
      record = crashed(
        entry.eval,
        spec,
        `eval "${entry.eval.id}" crashed on case "${spec.id}": ${(error as Error).message}`,
      );
    } finally {
      this.running.delete(jobId);
    }
    this.completed++;
    // What BullMQ stores is JSON: a record that cannot be serialised as is still comes back.
    return JSON.parse(safeStringify(record)) as AttemptRecord;
  }

  /** The job's data, eval and case, once they agree with this worker's; else it is refused. */
  private async check(job: Job<AttemptJobData, AttemptRecord>) {
    const parsed = attemptJobSchema.safeParse(job.data);
    if (!parsed.success) return this.refuse(job, "the job is not a niceeval attempt (version 1)");
    const data = parsed.data;
    const entry = this.byId.get(data.evalId);
    if (!entry) {
      const failed = data.file && this.failedToLoad(data.file.path);
      if (failed)
        return this.refuse(
          job,
          `eval file ${data.file!.path} failed to load on worker ${hostname()} (${failed.message}), so it has no eval "${data.evalId}": give the worker what the file needs there (its environment variables, its dependencies) and restart it`,
        );
      return this.refuse(
        job,
        `worker ${hostname()} has no eval "${data.evalId}"${data.file ? ` (the run loaded it from ${data.file.path})` : ""}; start the worker with the run's eval files`,
      );
    }
    const { commit } = this.options;
    if (data.commit && commit && data.commit !== commit) {
      return this.refuse(
        job,
        `worker ${hostname()} is on commit ${commit.slice(0, 12)}, the run on ${data.commit.slice(0, 12)}: what the eval files import may differ; deploy the run's commit to every worker`,
      );
    }
    const mine = entry.file ? this.fileOf.get(resolve(this.options.cwd, entry.file)) : undefined;
    if (data.file && mine && mine.hash !== data.file.hash) {
      return this.refuse(
        job,
        `eval file ${data.file.path} differs from the run's: worker ${hostname()} loaded ${mine.path} with hash ${mine.hash}, the run has ${data.file.hash}; give every worker the same eval files as the run`,
      );
    }
    return { data, entry, spec: await this.checkCase(job, data, entry) };
  }

  /** This worker's error loading the run's eval file `path` (relative to the run's and its own cwd). */
  private failedToLoad(path: string): LoadError | undefined {
    const wanted = resolve(this.options.cwd, path);
    return this.options.loadErrors?.find(
      (error) => error.leftOut === undefined && resolve(this.options.cwd, error.file) === wanted,
    );
  }

  /** The job's case as this worker reads it, once its id and content are the run's; else refused. */
  private async checkCase(
    job: Job<AttemptJobData, AttemptRecord>,
    data: AttemptJobData,
    entry: RunEntry,
  ): Promise<CaseSpec> {
    const lookup = this.cases.get(entry.eval.id) ?? new CaseLookup(entry);
    this.cases.set(entry.eval.id, lookup);
    const spec = await lookup.find(data.caseIndex);
    if (!spec || spec.id !== data.caseId) {
      return this.refuse(
        job,
        `case ${data.caseIndex} of eval "${data.evalId}" is ${spec ? `"${spec.id}"` : "missing"} on worker ${hostname()}, "${data.caseId}" in the run; the eval's dataset differs`,
      );
    }
    // A case the eval process could send only as a copy (it holds a function, which its hash
    // reads by source and the copy lacks) is not compared by content: it would always differ.
    if (!data.content || copiedCases.has(spec)) return spec;
    const mine = caseContent(spec);
    const run = data.content;
    const differs = (["input", "expected", "metadata"] as const).filter((p) => mine[p] !== run[p]);
    if (differs.length > 0)
      return this.refuse(
        job,
        `case "${data.caseId}" of eval "${data.evalId}" has another ${differs.join(" and ")} on worker ${hostname()} than in the run (hash ${differs.map((p) => `${mine[p]} here, ${run[p]} in the run`).join("; ")}): the eval's dataset differs although its file does not (cases read from a file, a database or the environment that differ between machines); give every worker the run's dataset`,
      );
    return spec;
  }

  private refuse(job: Job, message: string): never {
    this.log(`refused attempt ${job.id}: ${message}`);
    throw new UnrecoverableError(message);
  }
}

/**
 * Finds a case of an eval by index, reading its cases once, on demand, and remembering those
 * read (jobs of one eval arrive roughly in case order).
 */
class CaseLookup {
  private readonly seen = new Map<number, CaseSpec>();
  private iterator: AsyncIterator<CaseSpec> | Iterator<CaseSpec> | undefined;
  private done = false;
  private reading: Promise<void> = Promise.resolve();

  constructor(private readonly entry: RunEntry) {}

  async find(index: number): Promise<CaseSpec | undefined> {
    const next = this.reading.then(() => this.readUntil(index));
    this.reading = next.then(
      () => {},
      () => {},
    );
    await next;
    return this.seen.get(index);
  }

  private async readUntil(index: number): Promise<void> {
    if (this.seen.has(index) || this.done) return;
    if (!this.iterator) {
      const cases = this.entry.eval.cases();
      this.iterator =
        Symbol.asyncIterator in cases
          ? (cases as AsyncIterable<CaseSpec>)[Symbol.asyncIterator]()
          : (cases as Iterable<CaseSpec>)[Symbol.iterator]();
    }
    while (!this.seen.has(index)) {
      const step = await this.iterator.next();
      if (step.done) {
        this.done = true;
        return;
      }
      this.seen.set(step.value.index, step.value);
    }
  }
}
