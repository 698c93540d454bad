// One eval process as its supervisor sees it: starting it, the jobs it was sent and has not
// finished, and reading what it says (its ready message, batches of events, its exit) into calls
// on a listener. What the supervisor then does with them is executor.ts's.

import type { ChildProcess } from "node:child_process";
import { errorMessage } from "../errors.js";
import type { AttemptRecord, Judgment } from "../eval/record.js";
import { safeStringify } from "../json-safe.js";
import type { JudgePushBack } from "../judge/retries.js";
import type { AttemptJob } from "../runner/executor.js";
import type { LoadError } from "../runner/summary.js";
import type { AheadPending } from "./ahead-run.js";
import { DeltaDecoder } from "./delta.js";
import {
  type CasesReply,
  type CasesRequest,
  type ChildEvent,
  type ChildInit,
  type ChildJob,
  type ChildMessage,
  type EvalDescription,
  type JobBatch,
  type JobSettings,
  LISTENING,
  PACKED,
  type ParentMessage,
} from "./protocol.js";
import {
  aheadClaims,
  endsWithParent,
  exitClaims,
  hasClaimsFile,
  releaseClaims,
  takeEvalProcess,
  takenCount,
} from "./spawn.js";
import type { Unplaced } from "./unplaced.js";
import { copiedCases, isPlainSpec } from "./wire.js";

/** How long the messages an exited eval process wrote may take to arrive, ms. */
const EXIT_DRAIN_MS = 1000;

/** An attempt the engine asked the supervisor for. */
export interface Pending extends AheadPending {
  readonly id: number;
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
  /** It runs again alone to say whose an uncaught error or an exit of the eval process is. */
  placing?: Unplaced[] | undefined;
  /**
   * Why it runs again alone: what happened while it was in flight (a crash's cause, an error no
   * attempt could be tied to), said if the run's stop comes first (causes.ts, cutBeforeRerun).
   */
  rerunFor?: string | undefined;
  /** It was in flight when the event loop was blocked past this time limit of it (blocked.ts). */
  blockedLimitMs?: number | undefined;
}

/** An attempt whose record an exiting eval process wrote on its way out. */
export interface KeptAttempt {
  evalId: string;
  caseId: string;
  trial: number;
}

/** What an eval process says, for its supervisor to act on. */
export interface EvalProcessListener {
  ready(from: EvalProcess): void;
  /** Attempt `id` (one it was sent) started at `now`. */
  started(from: EvalProcess, id: number, now: number): void;
  /** `flags`: what the child left off the record (RECORD_FLAGS). */
  record(from: EvalProcess, id: number, record: AttemptRecord, flags: number): void;
  /** The same for an attempt run ahead (id below 0), decoded when `decode` is called. */
  recordLater(from: EvalProcess, id: number, decode: () => AttemptRecord, flags: number): void;
  judgment(from: EvalProcess, id: number, judgment: Judgment): void;
  /** Attempts it started ahead: `count` numbers of `keys` from `at` (see ChildEvent "began"). */
  began(from: EvalProcess, keys: readonly unknown[], at: number, count: number, now: number): void;
  aheadEnd(from: EvalProcess): void;
  aheadStalled(from: EvalProcess): void;
  /** `reruns`: the attempts in flight at it, to run again alone (see ChildMessage "run-error"). */
  runError(from: EvalProcess, message: string, where: string, reruns?: readonly number[]): void;
  /** Cases it read, as asked (CasesRequest). */
  cases(from: EvalProcess, reply: CasesReply): void;
  /** A judge endpoint pushed back on a call of its attempts. */
  pushBack(event: JudgePushBack): void;
  /** A batch of events was read (after the calls for each of them). */
  read(from: EvalProcess): void;
  /** It ended and what it wrote before has arrived (or had its time to). */
  ended(from: EvalProcess): void;
  stderr(text: string): void;
}

/** What a new eval process is told, beyond what makes it the one it is. */
export type EvalProcessInit = Omit<ChildInit, "t" | "claims">;

/**
 * A child process running `child.ts`: spawned (or adopted, see spawn.ts) and given its `init` at
 * once. Messages of one the supervisor gave up (`retired`) are not read.
 */
export class EvalProcess {
  readonly process: ChildProcess;
  /** Sent to it and not finished: started, or waiting in its queue. */
  readonly inFlight = new Map<number, Pending>();
  /** How many of those run alone. */
  alone = 0;
  /** Bytes of the jobs waiting in its queue (those sent as JSON). */
  queuedBytes = 0;
  /** Jobs sent to it so far. */
  sent = 0;
  /** After it ended: how many of them it had taken from its queue (its claims file). */
  taken: number | undefined;
  /** The attempts it had started ahead (AheadPlan), as its claims file says after it ended. */
  claimedAhead: number[] | undefined;
  /** The ids of those it was sent that were running when it exited, when it said (exitClaims). */
  runningAtExit: Set<number> | undefined;
  /** Events that may not have left it when it exited, as it wrote them on its way out (exitClaims). */
  private unsentAtExit: string | undefined;
  /** Packed batches read from it as messages (its unsent events are numbered the same way). */
  private packedRead = 0;
  /** Where user code called process.exit, when it did (from the claims file). */
  exitCalledAt: string | undefined;
  /** Where user code called process.disconnect ("" when not known), when it did. */
  disconnectCalledAt: string | undefined;
  /** The attempts whose records it had not sent when it exited, got from its claims file. */
  readonly keptAtExit: KeptAttempt[] = [];
  ready = false;
  /** The evals it loaded, in order (from its ready message). */
  evals: readonly string[] = [];
  /** The same evals, described. */
  described: readonly EvalDescription[] = [];
  /** The files it could not load, with why (from its ready message). */
  loadErrors: readonly LoadError[] = [];
  /** The eval file it is importing, until it is ready. */
  loading: string | undefined;
  /** It has sent a message (a heartbeat at least): it started. */
  heard = false;
  /** How it ended; its last messages may still be arriving. */
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  lastSeen = performance.now();
  stderrTail = "";
  /** Why the supervisor killed it, when it did. */
  killedFor: string | undefined;
  /** The supervisor gave up on it: nothing it says is read any more. */
  retired = false;
  /** Reads of cases sent to it so far. */
  readsSent = 0;
  /** Its records arrive as changes against earlier ones. */
  private readonly decoder = new DeltaDecoder();
  /** A message of it could not be read: it was killed, and nothing it says after is read. */
  private garbled = false;
  /** Reads of cases asked for in this turn (postRead). */
  private reads: CasesRequest[] = [];
  private endedSaid = false;
  /** What was posted before it listens for messages (LISTENING), sent once it does. */
  private held: ParentMessage[] | undefined = [];

  constructor(
    cwd: string,
    stdoutFd: number | undefined,
    init: EvalProcessInit,
    private readonly listener: EvalProcessListener,
  ) {
    const proc = takeEvalProcess(cwd, stdoutFd);
    this.process = proc;
    proc.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      listener.stderr(chunk);
      this.stderrTail = (this.stderrTail + chunk).slice(-4096);
    });
    proc.on("message", (message: ChildMessage) => this.onMessage(message));
    proc.on("exit", (code, signal) => this.onExit(code, signal));
    proc.on("disconnect", () => {
      if (this.exit) this.end();
    });
    proc.on("error", () => {
      // A failed spawn or a send to a dead child: the exit that follows says what happened.
    });
    this.post({
      t: "init",
      ...init,
      ...(hasClaimsFile(proc) ? { claims: true as const } : {}),
      ...(endsWithParent(proc) ? { endsWithParent: true as const } : {}),
    });
  }

  /**
   * Resolves once what it wrote to stderr has all been read (its exit can come first, with the
   * last of it still in the pipe), or `limitMs` after it is asked: a process it started may
   * hold the pipe open.
   */
  stderrRead(limitMs = 1000): Promise<void> {
    const stream = this.process.stderr;
    if (!stream || stream.readableEnded || stream.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, limitMs);
      timer.unref();
      stream.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  post(message: ParentMessage): boolean {
    if (this.held) {
      this.held.push(message);
      return this.process.connected;
    }
    try {
      this.process.send(message);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Ask for an eval's cases. The reads asked for in one turn leave as one message, at the end of
   * that turn's microtasks: before anything this process hears of the eval process (its exit
   * included), so a read counts as under way exactly as if it had left at once.
   */
  postRead(request: CasesRequest): boolean {
    if (!this.process.connected) return false;
    this.reads.push(request);
    if (this.reads.length === 1)
      queueMicrotask(() => {
        const reads = this.reads;
        this.reads = [];
        this.post(reads.length === 1 ? reads[0]! : { t: "cases-many", reads });
        this.readsSent += reads.length;
      });
    return true;
  }

  /** Send these attempts to its queue, in order. */
  send(batch: readonly Pending[]): void {
    const now = performance.now();
    for (const pending of batch) {
      pending.sentAt = now;
      // Started counts per process: a rerun has not started in this one until it says so.
      pending.started = false;
      pending.pos = this.sent++;
      this.inFlight.set(pending.id, pending);
      if (pending.alone) this.alone++;
    }
    // One message per run of jobs with the same settings (one in all, unless runs share this).
    let from = 0;
    for (let i = 1; i <= batch.length; i++) {
      if (i < batch.length && sameSettings(batch[i]!.job, batch[from]!.job)) continue;
      this.sendBatch(from === 0 && i === batch.length ? batch : batch.slice(from, i));
      from = i;
    }
  }

  /** The attempt `id` it was sent is done here (finished, or to run again): no longer in flight. */
  settle(id: number): Pending | undefined {
    const pending = this.inFlight.get(id);
    if (!pending) return undefined;
    this.inFlight.delete(id);
    if (pending.alone) this.alone--;
    this.unqueue(pending);
    return pending;
  }

  /** The attempt no longer waits in its queue. */
  unqueue(pending: Pending): void {
    this.queuedBytes -= pending.bytes;
    pending.bytes = 0;
  }

  private sendBatch(batch: readonly Pending[]): void {
    const settings = settingsOf(batch[0]!.job);
    const jobs = batch.map((p) => toChildJob(p, true));
    if (batch.every((p) => isPlainSpec(p.job.spec))) {
      const json = JSON.stringify({ ...settings, jobs } satisfies JobBatch);
      const share = Math.ceil(json.length / batch.length);
      for (const pending of batch) pending.bytes = share;
      this.queuedBytes += share * batch.length;
      this.post(json);
      return;
    }
    if (this.post({ t: "jobs", ...settings, jobs })) return;
    // A case value structured clone cannot carry: the child looks that case up by id instead.
    for (const pending of batch) {
      if (!this.post({ t: "jobs", ...settings, jobs: [toChildJob(pending, true)] }))
        this.post({ t: "jobs", ...settings, jobs: [toChildJob(pending, false)] });
    }
  }

  private onMessage(message: ChildMessage): void {
    this.lastSeen = performance.now();
    this.heard = true;
    if (this.retired || this.garbled) return;
    if (this.held && typeof message === "object" && message.t === LISTENING.t) {
      const held = this.held;
      this.held = undefined;
      for (const sent of held) this.post(sent);
      return;
    }
    try {
      this.read(message);
    } catch (error) {
      // Its records can no longer be trusted to decode (the changes name bases this side does
      // not have): it is killed, and what it was running counts as in flight at a crash.
      this.garbled = true;
      this.killedFor ??= `the eval process sent a message the supervisor could not read (${errorMessage(error)}) and was killed`;
      this.process.kill("SIGKILL");
    }
  }

  private read(message: ChildMessage): void {
    if (typeof message === "string") {
      this.packedRead++;
      this.onPacked(JSON.parse(message) as unknown[]);
      return;
    }
    switch (message.t) {
      case "ready":
        this.ready = true;
        this.described = message.described;
        this.evals = message.described.map((described) => described.id);
        this.loadErrors = message.errors;
        this.loading = undefined;
        this.listener.ready(this);
        break;
      case "loading":
        this.loading = message.file;
        break;
      case "events":
        this.onEvents(message.events);
        break;
      case "run-error":
        this.listener.runError(this, message.message, message.where, message.reruns);
        break;
      case "push-back":
        this.listener.pushBack(message.event);
        break;
      case "cases":
        this.listener.cases(this, message);
        break;
      case "cases-many":
        for (const reply of message.replies) this.listener.cases(this, reply);
        break;
      case "beat":
        break;
      default:
        // Code under test calling process.send with a message of its own.
        throw new Error(`a message it does not know: ${oneLineExcerpt(message)}`);
    }
  }

  // A batch sent by structured clone (it holds a value JSON cannot carry).
  private onEvents(events: readonly ChildEvent[]): void {
    const { listener } = this;
    const now = performance.now();
    for (const event of events) {
      switch (event.t) {
        case "started":
          for (const id of event.ids) listener.started(this, id, now);
          break;
        case "delta": {
          // Every delta is decoded, in order, whoever it is for: the next ones build on it.
          const record = this.decoder.decode(event) as AttemptRecord;
          listener.record(this, event.id, record, event.f ?? 0);
          break;
        }
        case "record":
          listener.record(this, event.id, event.record, event.f ?? 0);
          break;
        case "judgment":
          listener.judgment(this, event.id, event.judgment);
          break;
        case "began":
          listener.began(this, event.keys, 0, event.keys.length, now);
          break;
        case "ahead-end":
          listener.aheadEnd(this);
          break;
        case "ahead-stalled":
          listener.aheadStalled(this);
          break;
      }
    }
    listener.read(this);
  }

  // A packed batch (PACKED in protocol.ts): one flat array, read in place. `kept`: the records
  // are decoded at once, and their attempts added there.
  private onPacked(packed: readonly unknown[], kept?: KeptAttempt[]): void {
    const { decoder, listener } = this;
    const now = performance.now();
    let i = 0;
    while (i < packed.length) {
      const kind = packed[i] as number;
      const id = packed[i + 1] as number;
      if (kind === PACKED.delta) {
        const count = packed[i + 4] as number;
        const base = packed[i + 3] as number;
        // A record run ahead may wait for the engine a while: it is decoded when taken.
        if (id < 0 && !kept)
          listener.recordLater(
            this,
            id,
            decoder.changesLater(base, packed, i + 5, count) as () => AttemptRecord,
            packed[i + 2] as number,
          );
        else {
          const record = decoder.decodeChanges(base, packed, i + 5, count) as AttemptRecord;
          this.onRecord(id, record, packed[i + 2] as number, kept);
        }
        i += 5 + count;
      } else if (kind === PACKED.whole) {
        const record = decoder.decodeBase(packed[i + 3] as number, packed[i + 4]);
        this.onRecord(id, record as AttemptRecord, packed[i + 2] as number, kept);
        i += 5;
      } else if (kind === PACKED.started) {
        // Here the second field is the count of ids that follow.
        for (let j = i + 2; j < i + 2 + id; j++) listener.started(this, packed[j] as number, now);
        i += 2 + id;
      } else if (kind === PACKED.judgment) {
        listener.judgment(this, id, packed[i + 2] as Judgment);
        i += 3;
      } else if (kind === PACKED.began) {
        // The second field is the count of numbers that follow.
        listener.began(this, packed, i + 2, id, now);
        i += 2 + id;
      } else if (kind === PACKED.aheadEnd) {
        listener.aheadEnd(this);
        i += 2;
      } else if (kind === PACKED.aheadStalled) {
        listener.aheadStalled(this);
        i += 2;
      } else {
        throw new Error(`unknown event kind ${String(kind)} from the eval process`);
      }
    }
    listener.read(this);
  }

  /** A record read whole; `kept` collects which attempt it is. */
  private onRecord(id: number, record: AttemptRecord, flags: number, kept?: KeptAttempt[]): void {
    const job = kept && id >= 0 ? this.inFlight.get(id)?.job : undefined;
    if (kept)
      kept.push(
        job
          ? { evalId: job.entry.eval.id, caseId: job.spec.id, trial: job.trial }
          : { evalId: record.evalId, caseId: record.caseId, trial: record.trial ?? 0 },
      );
    if (id < 0) this.listener.recordLater(this, id, () => record, flags);
    else this.listener.record(this, id, record, flags);
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    // How far it got, from its claims file, read before the file is closed.
    this.taken = takenCount(this.process);
    this.claimedAhead = aheadClaims(this.process);
    const atExit = exitClaims(this.process);
    this.runningAtExit = atExit?.running;
    this.unsentAtExit = atExit?.events;
    this.exitCalledAt = atExit?.exitAt;
    this.disconnectCalledAt = atExit?.disconnectAt;
    releaseClaims(this.process);
    if (this.retired) return;
    this.exit = { code, signal };
    // What it wrote before it ended (records, attempts it started) may still be on the way.
    if (!this.process.connected) this.end();
    else setTimeout(() => this.end(), EXIT_DRAIN_MS).unref();
  }

  private end(): void {
    if (this.endedSaid || this.retired) return;
    this.endedSaid = true;
    this.readUnsent();
    this.listener.ended(this);
  }

  /**
   * The events it wrote on its way out of `process.exit`, after the messages that did arrive: the
   * records of attempts that had just finished (in its outbox, or sent and still queued in its
   * channel, which the exit drops; a batch read as a message too is skipped by its number). Changes against a base that never arrived (a message lost
   * with the process) cannot be read: those attempts count as the supervisor finds them then.
   */
  private readUnsent(): void {
    const events = this.unsentAtExit;
    this.unsentAtExit = undefined;
    if (events === undefined || this.garbled) return;
    try {
      // Each batch after its number: those read as messages are skipped.
      const batches = JSON.parse(events) as unknown[];
      for (let i = 0; i + 1 < batches.length; i += 2)
        if ((batches[i] as number) >= this.packedRead)
          this.onPacked(batches[i + 1] as unknown[], this.keptAtExit);
    } catch {}
  }
}

function toChildJob(pending: Pending, withSpec: boolean): ChildJob {
  const { job } = pending;
  const out: ChildJob =
    withSpec && !copiedCases.has(job.spec)
      ? { id: pending.id, evalId: job.entry.eval.id, spec: job.spec }
      : { id: pending.id, evalId: job.entry.eval.id, caseId: job.spec.id, index: job.spec.index };
  if (job.trial > 0) out.trial = job.trial;
  return out;
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

/** A short, one-line look at a message the supervisor does not know. */
function oneLineExcerpt(message: unknown): string {
  const text = safeStringify(message).replace(/\s+/g, " ");
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}
