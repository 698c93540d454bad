import type { ChildProcess } from "node:child_process";
import { type AttemptRecord, unreportedUsage } from "../eval/record.js";
import type { AttemptJob, Executor } from "../runner/executor.js";
import { crashed } from "../runner/source.js";
import type { ChildEvent, ChildJob, ChildMessage, ParentMessage } from "./protocol.js";
import { takeEvalProcess } from "./spawn.js";
import { jsonBatch } from "./wire.js";

/** Default limit on an eval process whose event loop does not answer, ms. */
export const DEFAULT_HANG_TIMEOUT_MS = 60_000;
/** Loading eval files may block longer than a case: this is its floor, ms. */
const STARTUP_TIMEOUT_MS = 30_000;
/** Crashes an attempt may be in flight for before it is errored instead of run again. */
const MAX_STRIKES = 2;

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
}

/** An uncaught error in the eval process that no single attempt owned. */
export interface RunError {
  message: string;
  where: string;
}

/** The supervised executor: attempts run in a child process this one watches and replaces. */
export interface SupervisedExecutor extends Executor {
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
  sentAt: number;
}

interface Child {
  readonly process: ChildProcess;
  readonly inFlight: Map<number, Pending>;
  ready: boolean;
  lastSeen: number;
  stderrTail: string;
  /** Why the supervisor killed it, when it did. */
  killedFor?: string;
}

/**
 * Runs attempts in a child process (`child.ts`) that loads the same eval files. The child sends
 * a heartbeat; when it exits, crashes, runs out of memory or stops answering for longer than
 * the hang timeout, the attempts in flight run again one at a time in a fresh child, and an
 * attempt in flight at two crashes is errored with the cause. Records come back to this
 * process, so the report and the store are written here whatever the child does.
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
      ready: false,
      lastSeen: performance.now(),
      stderrTail: "",
    };
    proc.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr(chunk);
      created.stderrTail = (created.stderrTail + chunk).slice(-4096);
    });
    proc.on("message", (message: ChildMessage) => onMessage(created, message));
    proc.on("exit", (code, signal) => onExit(created, code, signal));
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
    return {
      id: pending.id,
      evalId: job.entry.eval.id,
      caseId: job.spec.id,
      index: job.spec.index,
      ...(withSpec ? { spec: job.spec } : {}),
      trial: job.trial,
      runId: job.context.runId,
      ...(job.context.keepOutput ? { keepOutput: true } : {}),
      ...(job.context.timeoutMs !== undefined ? { timeoutMs: job.context.timeoutMs } : {}),
      ...(job.context.onJudgment ? { judgments: true } : {}),
    };
  };

  const send = (target: Child, batch: Pending[]) => {
    const now = performance.now();
    for (const pending of batch) {
      pending.sentAt = now;
      target.inFlight.set(pending.id, pending);
    }
    const jobs = batch.map((p) => toChildJob(p, true));
    const json = jsonBatch(jobs);
    if (post(target, json ?? { t: "jobs", jobs })) return;
    // A case value structured clone cannot carry: the child looks that case up by id instead.
    for (const pending of batch) {
      if (!post(target, { t: "jobs", jobs: [toChildJob(pending, true)] }))
        post(target, { t: "jobs", jobs: [toChildJob(pending, false)] });
    }
  };

  const dispatch = () => {
    scheduled = false;
    if (stopped !== undefined || closing || (fresh.length === 0 && suspects.length === 0)) return;
    child ??= spawn();
    if (!child.ready) return;
    for (const pending of child.inFlight.values()) if (pending.alone) return;
    if (suspects.length > 0) {
      if (child.inFlight.size === 0) send(child, [suspects.shift()!]);
      return;
    }
    send(child, fresh.splice(0));
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(dispatch);
  };

  const onEvents = (from: Child, events: readonly ChildEvent[]) => {
    for (const event of events) {
      const pending = from.inFlight.get(event.id);
      if (!pending) continue;
      if (event.t === "judgment") {
        pending.job.context.onJudgment?.(event.judgment);
        continue;
      }
      from.inFlight.delete(event.id);
      if (event.t === "record") {
        const { record } = event;
        if (event.unreported) record.usage = { app: unreportedUsage(), judge: record.usage.judge };
        pending.resolve(record);
      } else {
        track = true;
        pending.alone = true;
        suspects.push(pending);
      }
    }
    if (suspects.length > 0 && from.inFlight.size === 0) schedule();
  };

  const onMessage = (from: Child, message: ChildMessage) => {
    from.lastSeen = performance.now();
    if (from !== child) return;
    if (typeof message === "string") {
      onEvents(from, JSON.parse(message) as ChildEvent[]);
      return;
    }
    switch (message.t) {
      case "ready":
        from.ready = true;
        startupFailures = 0;
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
    child = undefined;
    if (closing || stopped !== undefined) return;
    const cause = from.killedFor ?? describeExit(code, signal, from.stderrTail);
    const inFlight = [...from.inFlight.values()];
    const rerun: Pending[] = [];
    for (const pending of inFlight) {
      pending.strikes++;
      if (pending.strikes >= MAX_STRIKES) {
        fail(
          pending,
          `${cause} during this case; it was running at ${MAX_STRIKES} crashes of the eval process, so it is not run again`,
        );
      } else {
        pending.alone = true;
        rerun.push(pending);
      }
    }
    suspects.push(...rerun);
    if (!from.ready) startupFailures++;
    const names = inFlight
      .slice(0, 5)
      .map((p) => `${p.job.entry.eval.id}/${p.job.spec.id}`)
      .join(", ");
    stderr(
      `niceeval: ${cause}${inFlight.length ? ` during ${names}${inFlight.length > 5 ? ` and ${inFlight.length - 5} more` : ""}` : from.ready ? "" : " while loading the eval files"}` +
        `${rerun.length ? `; running ${rerun.length} of them again, one at a time` : ""}; starting a new eval process\n`,
    );
    if (startupFailures >= MAX_STRIKES) {
      broken = `the eval process could not start: ${cause} while loading the eval files`;
      for (const pending of [...suspects.splice(0), ...fresh.splice(0)]) fail(pending, broken);
      return;
    }
    schedule();
  };

  const check = () => {
    const now = performance.now();
    const interval = Math.max(5, Math.min(1000, Math.floor(hangMs / 4)));
    // This process itself was blocked (a long synchronous write): no heartbeat could arrive.
    if (child && now - lastCheck > interval * 2 + 1000) child.lastSeen = now;
    lastCheck = now;
    if (!child || child.killedFor !== undefined) return;
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
    runErrors,
    execute(job) {
      return new Promise<AttemptRecord>((resolve) => {
        const pending: Pending = {
          id: nextId++,
          job,
          resolve,
          strikes: 0,
          alone: false,
          sentAt: 0,
        };
        const refusal = stopped !== undefined ? notStarted(job.context.signal, stopped) : broken;
        if (refusal !== undefined) return fail(pending, refusal);
        watchAbort(job.context.signal);
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
