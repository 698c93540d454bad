import type { ChildProcess } from "node:child_process";
import { type AttemptRecord, type Judgment, unreportedUsage } from "../eval/record.js";
import type { CaseSpec } from "../eval/runnable.js";
import type { AttemptJob, Executor } from "../runner/executor.js";
import { crashed } from "../runner/source.js";
import { AheadRun } from "./ahead-run.js";
import { DeltaDecoder } from "./delta.js";
import {
  type AheadPlan,
  type ChildEvent,
  type ChildJob,
  type ChildMessage,
  type JobBatch,
  type JobSettings,
  PACKED,
  type ParentMessage,
  RECORD_FLAGS,
} from "./protocol.js";
import { aheadClaims, hasClaimsFile, releaseClaims, takeEvalProcess, takenCount } from "./spawn.js";
import { isPlainJson } from "./wire.js";

/** Default limit on an eval process whose event loop does not answer, ms. */
export const DEFAULT_HANG_TIMEOUT_MS = 60_000;
/** Loading eval files may block longer than a case: this is its floor, ms. */
const STARTUP_TIMEOUT_MS = 30_000;
/** Crashes an attempt may be in flight for before it is errored instead of run again. */
const MAX_STRIKES = 2;
/**
 * Attempts the supervisor asks for beyond the run's concurrency: they wait in the eval process,
 * which starts the next one as soon as one ends instead of waiting for this process to answer.
 */
export const DEFAULT_PREFETCH = 256;
/**
 * Attempts asked for beyond the run's concurrency when the eval process runs ahead: their records
 * are mostly there already, and an attempt waiting for its record costs this process more than
 * the wait.
 */
const AHEAD_PREFETCH = 64;
/** Cases waiting in the eval process take at most about this much (large inputs wait here). */
const MAX_QUEUED_BYTES = 8 * 1024 * 1024;
/**
 * Crashes an attempt may wait through in the child's queue, never started, before it counts as in
 * flight anyway (a bound, should the word that it started ever be lost with the process).
 */
const MAX_REQUEUES = 8;
/** How long the messages an exited eval process wrote may take to arrive, ms. */
const EXIT_DRAIN_MS = 1000;

/** Options of {@link supervisedExecutor}. */
export interface SupervisorOptions {
  /** The eval files the child loads (the same the run's entries came from). */
  files: readonly string[];
  cwd: string;
  /** False under `--no-cache`. Default true. */
  judgeCache?: boolean;
  /** Kill the eval process when its event loop stays blocked this long, ms (default 60 s). */
  hangTimeoutMs?: number;
  /** Where the child's stdout goes (default: this process's). */
  stdoutFd?: number;
  /** Crashes, restarts and the child's own stderr. Default: process.stderr. */
  stderr?: (text: string) => void;
  /** Start the child now rather than at the first attempt (it loads while the caller does). */
  start?: boolean;
  /** Attempts queued in the eval process beyond the run's concurrency (default 256; 0: none). */
  prefetch?: number;
}

/** An uncaught error in the eval process that no single attempt owned. */
export interface RunError {
  message: string;
  where: string;
}

/** The supervised executor: attempts run in a child process this one watches and replaces. */
export interface SupervisedExecutor extends Executor {
  /**
   * Let the eval process run the run's attempts on its own, ahead of the engine's asking
   * (AheadPlan): the run's engine must then select the same attempts from the same files. Until
   * a crash; attempts are asked for one by one from then on.
   */
  runAhead(plan: AheadPlan, evalIds: readonly string[]): void;
  takeFinished: NonNullable<Executor["takeFinished"]>;
  /** Give up on every attempt not finished: each is errored with `reason`; the child is killed. */
  interrupt(reason: string): void;
  close(): Promise<void>;
  /** Uncaught errors in the eval process that belonged to no one attempt. */
  readonly runErrors: readonly RunError[];
}

interface Pending {
  readonly id: number;
  readonly job: AttemptJob;
  readonly resolve: (record: AttemptRecord) => void;
  strikes: number;
  /** Runs with no other attempt in flight (after a crash, or an error no one could be tied to). */
  alone: boolean;
  /** When it was sent, then when it started. */
  sentAt: number;
  /** The eval process said it starts this attempt: a crash from then on may be its doing. */
  started: boolean;
  /** Crashes that sent it back to the queue before it started. */
  requeues: number;
  /** Its share of the JSON it was sent in, while it waits in the child's queue. */
  bytes: number;
  /** Its place among the jobs sent to its child (which takes them from its queue in order). */
  pos: number;
}

interface Child {
  readonly process: ChildProcess;
  /** Sent to it and not finished: started, or waiting in its queue. */
  readonly inFlight: Map<number, Pending>;
  /** How many of those run alone. */
  alone: number;
  /** Bytes of the jobs waiting in its queue (those sent as JSON). */
  queuedBytes: number;
  /** Jobs sent to it so far. */
  sent: number;
  /** After it ended: how many of them it had taken from its queue (its claims file). */
  taken?: number | undefined;
  /** Its records arrive as changes against earlier ones. */
  readonly decoder: DeltaDecoder;
  /** The attempts it had started ahead (AheadPlan), as its claims file says after it ended. */
  claimedAhead?: number[] | undefined;
  ready: boolean;
  /** The evals it loaded, in order (from its ready message). */
  evals: readonly string[];
  /** How it ended; its last messages may still be arriving. */
  exit?: { code: number | null; signal: NodeJS.Signals | null };
  lastSeen: number;
  stderrTail: string;
  /** Why the supervisor killed it, when it did. */
  killedFor?: string;
}

/**
 * Runs attempts in a child process (`child.ts`) that loads the same eval files. It is handed
 * `prefetch` attempts beyond the run's concurrency, which wait in the child's queue: the child
 * runs at most the concurrency at once and starts the next as soon as one ends, while this process
 * handles the records, so the two work at the same time instead of taking turns. The child sends
 * a heartbeat; when it exits, crashes, runs out of memory or stops answering for longer than
 * the hang timeout, the attempts in flight run again one at a time in a fresh child, those only
 * waiting in its queue run again as they were, and an attempt in flight at two crashes is errored
 * with the cause. Records come back to this process (as changes against earlier ones, delta.ts),
 * so the report and the store are written here whatever the child does.
 */
export function supervisedExecutor(options: SupervisorOptions): SupervisedExecutor {
  const hangMs = options.hangTimeoutMs ?? DEFAULT_HANG_TIMEOUT_MS;
  const beatMs = Math.max(10, Math.min(1000, Math.floor(hangMs / 4)));
  const stderr = options.stderr ?? ((text: string) => process.stderr.write(text));
  const fresh: Pending[] = [];
  // Attempts in flight at a crash: each runs alone, so a second crash names its culprit.
  const suspects: Pending[] = [];
  const runErrors: RunError[] = [];
  const watched = new WeakSet<AbortSignal>();
  let child: Child | undefined;
  let nextId = 0;
  let scheduled = false;
  let startupFailures = 0;
  let broken: string | undefined;
  let stopped: string | undefined;
  let aborted: string | undefined;
  let closing = false;
  let monitor: ReturnType<typeof setInterval> | undefined;
  // A child reported an uncaught error it could not place: children from now on track attempts.
  let track = false;
  let lastCheck = performance.now();
  // The eval process may run the run's attempts ahead of the engine (AheadPlan).
  let planned = false;
  const ahead = new AheadRun<Pending, Child>({
    ask: (pending) => {
      fresh.push(pending);
      schedule();
    },
    isolate: (pending) => {
      pending.alone = true;
      suspects.push(pending);
      schedule();
    },
    strike: (pending, strikes, cause) => {
      if (!strike(pending, strikes, cause)) return;
      suspects.push(pending);
      schedule();
    },
    post: (message) => {
      if (child && ahead.owns(child) && !child.exit) post(child, message);
    },
    warn: stderr,
  });

  const fail = (pending: Pending, message: string) =>
    pending.resolve({
      ...crashed(pending.job.entry.eval.id, pending.job.spec, message),
      elapsedMs: pending.sentAt ? performance.now() - pending.sentAt : 0,
    });

  const spawn = (): Child => {
    const proc = takeEvalProcess(options.cwd, options.stdoutFd);
    const created: Child = {
      process: proc,
      inFlight: new Map(),
      alone: 0,
      queuedBytes: 0,
      sent: 0,
      decoder: new DeltaDecoder(),
      ready: false,
      evals: [],
      lastSeen: performance.now(),
      stderrTail: "",
    };
    proc.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr(chunk);
      created.stderrTail = (created.stderrTail + chunk).slice(-4096);
    });
    proc.on("message", (message: ChildMessage) => onMessage(created, message));
    proc.on("exit", (code, signal) => {
      created.taken = takenCount(proc);
      if (ahead.owns(created)) created.claimedAhead = aheadClaims(proc);
      releaseClaims(proc);
      onExit(created, code, signal);
    });
    proc.on("disconnect", () => {
      if (created.exit) replace(created);
    });
    proc.on("error", () => {
      // A failed spawn or a send to a dead child: the exit that follows says what happened.
    });
    post(created, {
      t: "init",
      files: options.files,
      cwd: options.cwd,
      judgeCache: options.judgeCache ?? true,
      beatMs,
      ...(aborted !== undefined ? { aborted } : {}),
      ...(track ? { track: true as const } : {}),
      ...(hasClaimsFile(proc) ? { claims: true as const } : {}),
    });
    monitor ??= setInterval(check, Math.max(5, Math.min(1000, Math.floor(hangMs / 4))));
    monitor.unref();
    return created;
  };

  const post = (target: Child, message: ParentMessage): boolean => {
    try {
      target.process.send(message);
      return true;
    } catch {
      return false;
    }
  };

  const toChildJob = (pending: Pending, withSpec: boolean): ChildJob => {
    const { job } = pending;
    const out: ChildJob = withSpec
      ? { id: pending.id, evalId: job.entry.eval.id, spec: job.spec }
      : { id: pending.id, evalId: job.entry.eval.id, caseId: job.spec.id, index: job.spec.index };
    if (job.trial > 0) out.trial = job.trial;
    return out;
  };

  const send = (target: Child, batch: Pending[]) => {
    const now = performance.now();
    for (const pending of batch) {
      pending.sentAt = now;
      // Started counts per process: a rerun has not started in this one until it says so.
      pending.started = false;
      pending.pos = target.sent++;
      target.inFlight.set(pending.id, pending);
      if (pending.alone) target.alone++;
    }
    // One message per run of jobs with the same settings (one in all, unless runs share this).
    let from = 0;
    for (let i = 1; i <= batch.length; i++) {
      if (i < batch.length && sameSettings(batch[i]!.job, batch[from]!.job)) continue;
      sendBatch(target, from === 0 && i === batch.length ? batch : batch.slice(from, i));
      from = i;
    }
  };

  const sendBatch = (target: Child, batch: Pending[]) => {
    const settings = settingsOf(batch[0]!.job);
    const jobs = batch.map((p) => toChildJob(p, true));
    if (batch.every((p) => isPlainSpec(p.job.spec))) {
      const json = JSON.stringify({ ...settings, jobs } satisfies JobBatch);
      const share = Math.ceil(json.length / batch.length);
      for (const pending of batch) pending.bytes = share;
      target.queuedBytes += share * batch.length;
      post(target, json);
      return;
    }
    if (post(target, { t: "jobs", ...settings, jobs })) return;
    // A case value structured clone cannot carry: the child looks that case up by id instead.
    for (const pending of batch) {
      if (!post(target, { t: "jobs", ...settings, jobs: [toChildJob(pending, true)] }))
        post(target, { t: "jobs", ...settings, jobs: [toChildJob(pending, false)] });
    }
  };

  const unqueue = (from: Child, pending: Pending) => {
    from.queuedBytes -= pending.bytes;
    pending.bytes = 0;
  };

  const dispatch = () => {
    scheduled = false;
    // Attempts waiting for a record run ahead need an eval process too (one that will run ahead).
    const wanted = fresh.length + suspects.length + ahead.waitingCount;
    if (stopped !== undefined || closing || wanted === 0) return;
    child ??= spawn();
    if (!child.ready || child.exit || child.alone > 0) return;
    if (suspects.length > 0) {
      // A suspect runs alone: nothing more starts ahead, and it waits for what did.
      // It may start attempts ahead until it says it ended: the suspect waits for that.
      if (ahead.mayStart(child)) {
        ahead.stop();
        return;
      }
      if (child.inFlight.size === 0 && ahead.runningFor(child) === 0)
        send(child, [suspects.shift()!]);
      return;
    }
    // Large cases: no more waits in the child until some of what waits there has started.
    if (child.queuedBytes >= MAX_QUEUED_BYTES) return;
    send(child, fresh.splice(0));
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(dispatch);
  };

  const onStarted = (from: Child, id: number, now: number) => {
    const pending = from.inFlight.get(id);
    if (!pending || pending.started) return;
    pending.started = true;
    pending.sentAt = now;
    unqueue(from, pending);
    pending.job.queue?.started();
  };

  const onRecord = (from: Child, id: number, record: AttemptRecord, flags: number) => {
    if (id < 0) {
      if (!ahead.owns(from)) return;
      if (flags & RECORD_FLAGS.unreported)
        record.usage = { app: unreportedUsage(), judge: record.usage.judge };
      return ahead.onRecord(id, record);
    }
    const pending = from.inFlight.get(id);
    if (!pending) return;
    from.inFlight.delete(id);
    if (pending.alone) from.alone--;
    unqueue(from, pending);
    // What the child left off (RECORD_FLAGS), put back.
    if (flags & RECORD_FLAGS.caseId) record.caseId = pending.job.spec.id;
    if (flags & RECORD_FLAGS.unreported)
      record.usage = { app: unreportedUsage(), judge: record.usage.judge };
    pending.resolve(record);
  };

  const onRerun = (from: Child, id: number) => {
    if (id < 0) {
      track = true;
      if (ahead.owns(from)) ahead.onRerun(id);
      return;
    }
    const pending = from.inFlight.get(id);
    if (!pending) return;
    from.inFlight.delete(id);
    if (pending.alone) from.alone--;
    unqueue(from, pending);
    track = true;
    pending.alone = true;
    suspects.push(pending);
  };

  const afterEvents = (from: Child) => {
    if (fresh.length > 0) schedule();
    if (suspects.length > 0 && from.inFlight.size === 0 && ahead.runningFor(from) === 0) schedule();
  };

  // A batch sent by structured clone (it holds a value JSON cannot carry).
  const onEvents = (from: Child, events: readonly ChildEvent[]) => {
    const now = performance.now();
    for (const event of events) {
      switch (event.t) {
        case "started":
          for (const id of event.ids) onStarted(from, id, now);
          break;
        case "delta":
          // Every delta is decoded, in order, whoever it is for: the next ones build on it.
          onRecord(from, event.id, from.decoder.decode(event) as AttemptRecord, event.f ?? 0);
          break;
        case "record":
          onRecord(from, event.id, event.record, event.f ?? 0);
          break;
        case "judgment":
          from.inFlight.get(event.id)?.job.context.onJudgment?.(event.judgment);
          break;
        case "rerun":
          onRerun(from, event.id);
          break;
        case "began":
          if (ahead.owns(from)) ahead.onBegan(event.keys, 0, event.keys.length, now);
          break;
        case "ahead-end":
          if (ahead.owns(from)) ahead.onEnd();
          break;
        case "ahead-stalled":
          if (ahead.owns(from)) ahead.onStalled();
          break;
      }
    }
    afterEvents(from);
  };

  // A packed batch (PACKED in protocol.ts): one flat array, read in place.
  const onPacked = (from: Child, packed: readonly unknown[]) => {
    const now = performance.now();
    const { decoder } = from;
    let i = 0;
    while (i < packed.length) {
      const kind = packed[i] as number;
      const id = packed[i + 1] as number;
      if (kind === PACKED.delta) {
        const count = packed[i + 4] as number;
        const record = decoder.decodeChanges(packed[i + 3] as number, packed, i + 5, count);
        onRecord(from, id, record as AttemptRecord, packed[i + 2] as number);
        i += 5 + count;
      } else if (kind === PACKED.whole) {
        const record = decoder.decodeBase(packed[i + 3] as number, packed[i + 4]);
        onRecord(from, id, record as AttemptRecord, packed[i + 2] as number);
        i += 5;
      } else if (kind === PACKED.started) {
        // Here the second field is the count of ids that follow.
        for (let j = i + 2; j < i + 2 + id; j++) onStarted(from, packed[j] as number, now);
        i += 2 + id;
      } else if (kind === PACKED.judgment) {
        from.inFlight.get(id)?.job.context.onJudgment?.(packed[i + 2] as Judgment);
        i += 3;
      } else if (kind === PACKED.rerun) {
        onRerun(from, id);
        i += 2;
      } else if (kind === PACKED.began) {
        // The second field is the count of numbers that follow.
        if (ahead.owns(from)) ahead.onBegan(packed, i + 2, id, now);
        i += 2 + id;
      } else if (kind === PACKED.aheadEnd) {
        if (ahead.owns(from)) ahead.onEnd();
        i += 2;
      } else if (kind === PACKED.aheadStalled) {
        if (ahead.owns(from)) ahead.onStalled();
        i += 2;
      } else {
        throw new Error(`unknown event kind ${String(kind)} from the eval process`);
      }
    }
    afterEvents(from);
  };

  const onMessage = (from: Child, message: ChildMessage) => {
    from.lastSeen = performance.now();
    if (from !== child) return;
    if (typeof message === "string") {
      onPacked(from, JSON.parse(message) as unknown[]);
      return;
    }
    switch (message.t) {
      case "ready":
        from.ready = true;
        from.evals = message.evals;
        startupFailures = 0;
        if (planned) ahead.start(from, message.evals);
        schedule();
        break;
      case "events":
        onEvents(from, message.events);
        break;
      case "run-error":
        runErrors.push({ message: message.message, where: message.where });
        stderr(`niceeval: ${message.message} (not tied to one case; the run is marked failed)\n`);
        break;
      case "beat":
        break;
    }
  };

  const onExit = (from: Child, code: number | null, signal: NodeJS.Signals | null) => {
    if (from !== child) return;
    from.exit = { code, signal };
    // What it wrote before it ended (records, attempts it started) may still be on the way.
    if (!from.process.connected) replace(from);
    else setTimeout(() => replace(from), EXIT_DRAIN_MS).unref();
  };

  /** After a child ended: its attempts run again, or are errored, in a new one. */
  const replace = (from: Child) => {
    if (from !== child) return;
    child = undefined;
    if (closing || stopped !== undefined) return;
    const { code, signal } = from.exit!;
    const cause = from.killedFor ?? describeExit(code, signal, from.stderrTail);
    const inFlight: Pending[] = [];
    const rerun: Pending[] = [];
    const requeued: Pending[] = [];
    for (const pending of from.inFlight.values()) {
      // Waiting in its queue, never started (the child writes how far it got before it starts
      // any, or says so by message): not a suspect, no strike; back to the queue as it was.
      const started = pending.started || (from.taken !== undefined && pending.pos < from.taken);
      if (!started && pending.requeues < MAX_REQUEUES) {
        pending.requeues++;
        requeued.push(pending);
        continue;
      }
      inFlight.push(pending);
      if (strike(pending, pending.strikes + 1, cause)) rerun.push(pending);
    }
    for (const pending of requeued) {
      pending.sentAt = 0;
      pending.bytes = 0;
    }
    const struckAhead = ahead.owns(from) ? strikeAhead(from, cause, inFlight, rerun) : 0;
    // A suspect that had not started yet waits its turn to run alone again, the rest as before.
    fresh.unshift(...requeued.filter((p) => !p.alone));
    suspects.unshift(...requeued.filter((p) => p.alone));
    suspects.push(...rerun);
    if (!from.ready) startupFailures++;
    stderr(crashMessage(cause, { inFlight, struckAhead, rerun: rerun.length, ready: from.ready }));
    if (startupFailures >= MAX_STRIKES) {
      broken = `the eval process could not start: ${cause} while loading the eval files`;
      for (const pending of [...suspects.splice(0), ...fresh.splice(0), ...ahead.drain()])
        fail(pending, broken);
      return;
    }
    schedule();
  };

  /**
   * The attempts an eval process that crashed was running ahead: each is struck like one in
   * flight; one the engine waits for joins `inFlight` (and `rerun`, or is failed), the others are
   * struck for when it asks. Whatever else the engine waits for is asked for from now on.
   */
  /**
   * An attempt in flight at `strikes` crashes, the last for `cause`: errored at MAX_STRIKES, else
   * to run again alone (true).
   */
  const strike = (pending: Pending, strikes: number, cause: string): boolean => {
    pending.strikes = strikes;
    if (strikes >= MAX_STRIKES) {
      fail(pending, struckOut(cause));
      return false;
    }
    pending.alone = true;
    return true;
  };

  const strikeAhead = (from: Child, cause: string, inFlight: Pending[], rerun: Pending[]) => {
    const struck = ahead.crashed(cause, from.claimedAhead);
    for (const pending of struck.inFlight) {
      inFlight.push(pending);
      if (strike(pending, pending.strikes + 1, cause)) rerun.push(pending);
    }
    return struck.notAsked;
  };

  const check = () => {
    const now = performance.now();
    const interval = Math.max(5, Math.min(1000, Math.floor(hangMs / 4)));
    // This process itself was blocked (a long synchronous write): no heartbeat could arrive.
    if (child && now - lastCheck > interval * 2 + 1000) child.lastSeen = now;
    lastCheck = now;
    if (!child || child.killedFor !== undefined || child.exit) return;
    const limit = child.ready ? hangMs : Math.max(hangMs, STARTUP_TIMEOUT_MS);
    if (now - child.lastSeen <= limit) return;
    child.killedFor = child.ready
      ? `the event loop was blocked for ${formatMs(hangMs)} (no heartbeat from the eval process, which was killed)`
      : `the eval process did not finish loading the eval files within ${formatMs(limit)} and was killed`;
    child.process.kill("SIGKILL");
  };

  const watchAbort = (signal: AbortSignal) => {
    if (watched.has(signal)) return;
    watched.add(signal);
    const forward = () => {
      aborted = String((signal.reason as Error | undefined)?.message ?? "aborted");
      if (child) post(child, { t: "abort", reason: aborted });
    };
    if (signal.aborted) forward();
    else signal.addEventListener("abort", forward, { once: true });
  };

  if (options.start) child = spawn();
  return {
    // Read when a run starts: one run ahead needs few asked for in advance (most are there).
    get prefetch() {
      if (planned) return AHEAD_PREFETCH;
      return Math.max(0, options.prefetch ?? DEFAULT_PREFETCH);
    },
    runErrors,
    runAhead(plan, evalIds) {
      planned = true;
      ahead.configure(plan, evalIds);
      if (child?.ready) ahead.start(child, child.evals);
    },
    takeFinished(entry, spec, trial) {
      return ahead.take(entry, spec, trial);
    },
    execute(job) {
      const finished = this.takeFinished(job.entry, job.spec, job.trial);
      if (finished) return Promise.resolve(finished);
      return new Promise<AttemptRecord>((resolve) => {
        const pending: Pending = {
          id: nextId++,
          job,
          resolve,
          strikes: 0,
          alone: false,
          sentAt: 0,
          started: false,
          requeues: 0,
          bytes: 0,
          pos: 0,
        };
        const refusal = stopped !== undefined ? notStarted(job.context.signal, stopped) : broken;
        if (refusal !== undefined) return fail(pending, refusal);
        watchAbort(job.context.signal);
        if (ahead.claim(pending)) {
          // An eval process must exist to run it ahead (or to be sent it, after a fallback).
          schedule();
          return;
        }
        fresh.push(pending);
        schedule();
      });
    },
    interrupt(reason) {
      if (stopped !== undefined) return;
      stopped = reason;
      const current = child;
      child = undefined;
      if (current) {
        current.process.kill("SIGKILL");
        for (const pending of current.inFlight.values()) fail(pending, reason);
      }
      for (const pending of ahead.drain()) fail(pending, reason);
      for (const pending of [...suspects.splice(0), ...fresh.splice(0)]) fail(pending, reason);
    },
    async close() {
      closing = true;
      if (monitor) clearInterval(monitor);
      const current = child;
      child = undefined;
      if (!current || current.process.exitCode !== null || current.process.signalCode !== null)
        return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => current.process.kill("SIGKILL"), 5000);
        current.process.once("exit", () => {
          clearTimeout(timer);
          resolve();
        });
        if (!post(current, { t: "close" })) current.process.kill("SIGKILL");
      });
    },
  };
}

/** What a crash of the eval process is said as: its cause, what was in flight, what runs again. */
function crashMessage(
  cause: string,
  crash: { inFlight: readonly Pending[]; struckAhead: number; rerun: number; ready: boolean },
): string {
  const { inFlight, struckAhead } = crash;
  const names = inFlight
    .slice(0, 5)
    .map((p) => `${p.job.entry.eval.id}/${p.job.spec.id}`)
    .join(", ");
  const more = Math.max(0, inFlight.length - 5) + struckAhead;
  const during = inFlight.length
    ? ` during ${names}${more > 0 ? ` and ${more} more` : ""}`
    : struckAhead
      ? ` during ${struckAhead} attempt${struckAhead === 1 ? "" : "s"} run ahead`
      : crash.ready
        ? ""
        : " while loading the eval files";
  const again = crash.rerun ? `; running ${crash.rerun} of them again, one at a time` : "";
  return `niceeval: ${cause}${during}${again}; starting a new eval process\n`;
}

/** Why an attempt in flight at MAX_STRIKES crashes is errored. */
function struckOut(cause: string): string {
  return `${cause} during this case; it was running at ${MAX_STRIKES} crashes of the eval process, so it is not run again`;
}

/** Why an attempt asked for after an interrupt did not run. */
export function notStarted(signal: AbortSignal, reason: string): string {
  const cause = signal.aborted ? (signal.reason as Error | undefined)?.message : undefined;
  return cause ? `${cause} before the attempt started` : reason;
}

/** Why a child ended, in words: out of memory, a signal, or an exit code. */
function describeExit(code: number | null, signal: NodeJS.Signals | null, stderr: string): string {
  if (/heap out of memory|Reached heap limit|ERR_WORKER_OUT_OF_MEMORY/.test(stderr))
    return "the eval process ran out of memory (JavaScript heap out of memory)";
  if (signal) return `the eval process was killed by ${signal}`;
  return `the eval process exited with code ${code ?? "unknown"}`;
}

function formatMs(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** What the jobs of one batch share. */
function settingsOf(job: AttemptJob): JobSettings {
  const { context } = job;
  return {
    c: job.queue?.concurrency ?? 0,
    runId: context.runId,
    ...(context.keepOutput ? { keepOutput: true as const } : {}),
    ...(context.timeoutMs !== undefined ? { timeoutMs: context.timeoutMs } : {}),
    ...(context.onJudgment ? { judgments: true as const } : {}),
  };
}

function sameSettings(a: AttemptJob, b: AttemptJob): boolean {
  // The engine shares one context among a run's first trials: the usual case is one comparison.
  if (a.context === b.context && a.queue?.concurrency === b.queue?.concurrency) return true;
  return (
    a.context.runId === b.context.runId &&
    !a.context.keepOutput === !b.context.keepOutput &&
    a.context.timeoutMs === b.context.timeoutMs &&
    !a.context.onJudgment === !b.context.onJudgment &&
    (a.queue?.concurrency ?? 0) === (b.queue?.concurrency ?? 0)
  );
}

/**
 * A case that JSON carries as structured clone would: plain values, where an absent input or
 * expected value (undefined) is left out, which the eval reads the same.
 */
function isPlainSpec(spec: CaseSpec): boolean {
  const proto = Object.getPrototypeOf(spec);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key in spec) {
    const value = (spec as unknown as Record<string, unknown>)[key];
    if (value !== undefined && !isPlainJson(value, 1)) return false;
  }
  return true;
}
