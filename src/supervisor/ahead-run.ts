import type { AttemptRecord } from "../eval/record.js";
import type { CaseSpec } from "../eval/runnable.js";
import type { RunEntry } from "../runner/entry.js";
import { type AttemptJob, replayJudgments, type TakenAttempt } from "../runner/executor.js";
import { AHEAD_WINDOW, type AheadPlan, aheadKey, type ParentMessage } from "./protocol.js";

/** Records taken between two acknowledgements to an eval process running ahead. */
const ACK_EVERY = 1024;
/** Records run ahead whose keys are remembered (more than a claims file can list as ended). */
const RECENT_KEYS = 4096;

/** What the supervisor keeps of an attempt the engine asked for. */
export interface AheadPending {
  readonly job: AttemptJob;
  readonly resolve: (record: AttemptRecord) => void;
  sentAt: number;
  started: boolean;
  /** How long its last run went before the crash or stop that ended it, ms (when known). */
  ranMs?: number | undefined;
}

/** What an {@link AheadRun} does through the supervisor. */
export interface AheadHost<P extends AheadPending> {
  /** Send this attempt to the eval process: it will not come ahead. */
  ask(pending: P): void;
  /** Run this attempt again alone (one in flight at an uncaught error nobody could place). */
  isolate(pending: P): void;
  /**
   * This attempt was in flight at `strikes` crashes, the last for `cause` (`afterEnd`: that one
   * came just after it ended, before its record left); `marks`: what {@link AheadRun.crashed} was
   * given for those crashes.
   */
  strike(pending: P, strikes: number, cause: string, afterEnd: boolean, marks: unknown[]): void;
  /** This attempt, begun ahead, was cut off by the run's stop (`reason`): errored, never rerun. */
  cutOff(pending: P, reason: string): void;
  /** To the eval process running ahead. */
  post(message: ParentMessage): void;
  warn(text: string): void;
}

/**
 * The supervisor's side of an eval process that runs the run's attempts ahead (AheadPlan): the
 * records it finished before the engine asked, the engine's attempts waiting for one it runs, and
 * those it ran that were in flight at a crash, before the engine asked for them. One eval process
 * runs ahead, the first that is ready; after it crashes, stops or runs out of attempts, every
 * attempt not run ahead is sent as before.
 */
export class AheadRun<P extends AheadPending, C> {
  private plan: AheadPlan | undefined;
  /** Running ahead may still start (no crash, no stop, the evals agreed). */
  private allowed = true;
  /** The eval process running ahead. */
  private owner: C | undefined;
  private readonly evalIndex = new Map<string, number>();
  /** Evals the plan does not run ahead (their cases can be read only once). */
  private readonly notAhead = new Set<string>();
  /** Records come ahead of the engine, decoded when taken (see DeltaDecoder.changesLater). */
  private readonly arrived = new Map<number, () => AttemptRecord>();
  /** When each of those came (`performance.now()`): about when it ended, the batches being short. */
  private readonly arrivedAt = new Map<number, number>();
  private readonly waiting = new Map<number, P>();
  /**
   * In flight at a crash before the engine asked: strikes, the last crash's cause, and how long it
   * had run then.
   */
  private readonly struck = new Map<
    number,
    { strikes: number; cause: string; afterEnd?: boolean; marks?: unknown[]; ranMs?: number }
  >();
  /** Started ahead and not finished: the child's id (below 0) to the attempt's key, and back. */
  private readonly began = new Map<number, number>();
  private readonly running = new Map<number, number>();
  /** When each of those began (`performance.now()`), by key. */
  private readonly since = new Map<number, number>();
  /** Begun ahead before the engine asked, and cut off by the run's stop: why, and how long it ran. */
  private readonly cut = new Map<number, { reason: string; ranMs?: number }>();
  /** Told when what the engine has still to take from here may have changed. */
  private changed: (() => void) | undefined;
  /**
   * Keys whose records came, the latest RECENT_KEYS (what a stale claim may still list), in a
   * ring: read only after a crash, so a record costs one store.
   */
  private readonly recent = new Float64Array(RECENT_KEYS).fill(-1);
  private recentAt = 0;
  private ended = false;
  private stopping = false;
  /** The run was told once that the eval process read other cases. */
  private warnedDiverged = false;
  /** The eval process said it waits for acknowledgements, and none was sent since. */
  private stalled = false;
  private taken = 0;
  private acked = 0;

  constructor(private readonly host: AheadHost<P>) {}

  /** The run's plan, and its evals in the order its engine has them. */
  configure(plan: AheadPlan, evalIds: readonly string[]): void {
    this.plan = plan;
    for (const [i, id] of evalIds.entries()) this.evalIndex.set(id, i);
    for (const id of plan.notAhead ?? []) this.notAhead.add(id);
  }

  /** Whether `child` is the eval process running ahead. */
  owns(child: C): boolean {
    return this.owner !== undefined && this.owner === child;
  }

  /** Attempts it started ahead and has not finished. */
  runningFor(child: C): number {
    return this.owns(child) ? this.began.size : 0;
  }

  /** Whether `child` may still start attempts ahead (it has not said it ended). */
  mayStart(child: C): boolean {
    return this.owns(child) && !this.ended;
  }

  /** Attempts of the engine waiting for a record run ahead. */
  get waitingCount(): number {
    return this.waiting.size;
  }

  /** An eval process is ready with these evals: it runs ahead if the plan allows. */
  start(child: C, loaded: readonly string[]): void {
    if (!this.plan || !this.allowed || this.owner !== undefined) return;
    // Attempts are known by their eval's place: both processes must have loaded the same evals.
    const index = this.evalIndex;
    if (loaded.length !== index.size || loaded.some((id, i) => index.get(id) !== i)) {
      this.allowed = false;
      this.release();
      return;
    }
    this.owner = child;
    this.host.post({ t: "ahead", plan: this.plan });
  }

  /** The record of this attempt when it was run ahead and has come, for the engine to take. */
  take(entry: RunEntry, spec: CaseSpec, trial: number): TakenAttempt | undefined {
    if (this.arrived.size === 0) return undefined;
    const key = this.keyOf(entry, spec, trial);
    const decode = this.arrived.get(key);
    if (!decode) return undefined;
    const endedAt = this.arrivedAt.get(key)!;
    this.arrived.delete(key);
    this.arrivedAt.delete(key);
    if (this.arrived.size === 0) this.changed?.();
    const record = decode();
    if (record.caseId !== spec.id) {
      this.diverged(entry.eval.id);
      return undefined;
    }
    this.noteTaken();
    return { record, startedAt: endedAt - record.elapsedMs, endedAt };
  }

  /**
   * The engine asks for this attempt: true when it is this run's to answer (its record will
   * come ahead, or it was struck at a crash); false when it is to be sent to the eval process.
   */
  claim(pending: P): boolean {
    if (!this.plan) return false;
    const { job } = pending;
    const key = this.keyOf(job.entry, job.spec, job.trial);
    if (key < 0) return false;
    if (this.comesAhead(key)) {
      this.waiting.set(key, pending);
      if (this.running.has(key)) this.markStarted(pending, performance.now());
      else if (this.stalled) this.checkDiverged();
      return true;
    }
    return this.claimEnded(key, pending);
  }

  /**
   * The engine asks for this attempt after the run's stop ended the eval process running ahead:
   * one begun ahead and cut off then is errored so, and one struck at a crash is handed to the
   * supervisor as at any time (AheadHost.strike: stopped, it runs nothing again, and errors it as
   * cut off), true either way. False when it is to be refused as not started.
   */
  claimStopped(pending: P): boolean {
    if (!this.plan) return false;
    const { job } = pending;
    const key = this.keyOf(job.entry, job.spec, job.trial);
    return key >= 0 && this.claimEnded(key, pending);
  }

  /** This attempt began ahead in an eval process that ended (a stop, a crash): handed on. */
  private claimEnded(key: number, pending: P): boolean {
    const cut = this.cut.get(key);
    if (cut !== undefined) {
      this.cut.delete(key);
      this.markStarted(pending, performance.now());
      pending.ranMs = cut.ranMs;
      this.host.cutOff(pending, cut.reason);
      this.changed?.();
      return true;
    }
    const struck = this.struck.get(key);
    if (!struck) return false;
    this.struck.delete(key);
    pending.ranMs = struck.ranMs;
    if (struck.strikes === 0) this.host.isolate(pending);
    else
      this.host.strike(
        pending,
        struck.strikes,
        struck.cause,
        struck.afterEnd === true,
        struck.marks ?? [],
      );
    this.changed?.();
    return true;
  }

  /** A began event: `count` numbers from `at`, four for each attempt (id, eval, index, trial). */
  onBegan(keys: readonly unknown[], at: number, count: number, now: number): void {
    for (let j = at; j < at + count; j += 4) {
      const id = keys[j] as number;
      const key = aheadKey(keys[j + 1] as number, keys[j + 2] as number, keys[j + 3] as number);
      this.began.set(id, key);
      this.running.set(key, id);
      this.since.set(key, now);
      const pending = this.waiting.get(key);
      if (pending && !pending.started) this.markStarted(pending, now);
    }
  }

  /** The record of an attempt run ahead (id below 0), or how to decode it. */
  onRecord(id: number, came: AttemptRecord | (() => AttemptRecord)): void {
    const key = this.began.get(id);
    if (key === undefined) return;
    this.began.delete(id);
    this.running.delete(key);
    this.since.delete(key);
    this.recent[this.recentAt] = key;
    this.recentAt = (this.recentAt + 1) % RECENT_KEYS;
    const pending = this.waiting.get(key);
    this.changed?.();
    if (!pending) {
      this.arrived.set(key, typeof came === "function" ? came : () => came);
      this.arrivedAt.set(key, performance.now());
      return;
    }
    this.waiting.delete(key);
    const record = typeof came === "function" ? came() : came;
    if (record.caseId !== pending.job.spec.id) {
      this.diverged(pending.job.entry.eval.id);
      this.host.ask(pending);
      return;
    }
    this.noteTaken();
    // Judgments were not streamed from ahead: a sink that wants each one gets them now.
    replayJudgments(pending.job.context, record);
    pending.resolve(record);
  }

  /**
   * An attempt run ahead is to run again alone: nothing more starts ahead meanwhile. False when it
   * is not known as running ahead.
   */
  onRerun(id: number): boolean {
    const key = this.began.get(id);
    if (key === undefined) return false;
    this.began.delete(id);
    this.running.delete(key);
    const ranMs = this.ranFor(key, performance.now());
    this.since.delete(key);
    this.stop();
    const pending = this.waiting.get(key);
    if (!pending) {
      this.struck.set(key, { strikes: 0, cause: "", ...(ranMs === undefined ? {} : { ranMs }) });
      return true;
    }
    this.waiting.delete(key);
    pending.ranMs = ranMs;
    this.host.isolate(pending);
    return true;
  }

  /** No more attempts start ahead: the engine's other attempts are sent one by one. */
  onEnd(): void {
    this.ended = true;
    this.allowed = false;
    this.release();
    this.changed?.();
  }

  /**
   * Whether attempts begun ahead may still be waiting for the engine to reach their cases: it may
   * still begin some, or some began, finished or were struck before the engine asked for them.
   * A stopped run reads on through its cases until this is false, so each such attempt is reported
   * (its record, or errored as cut off) rather than lost with the cases it did not read.
   */
  outstanding(): boolean {
    if ((this.owner !== undefined && !this.ended) || this.arrived.size > 0) return true;
    if (this.struck.size > 0 || this.cut.size > 0) return true;
    for (const key of this.running.keys()) if (!this.waiting.has(key)) return true;
    return false;
  }

  /** Call `listener` whenever {@link outstanding} may have changed. */
  watch(listener: () => void): void {
    this.changed = listener;
  }

  /**
   * The run's stop ended the eval process running ahead before its attempts did (`claimed`: its
   * claims file, as crashed). Those the engine waits for are returned, to be errored with
   * `reason`; those it has not asked for yet are errored so once it does. None runs again.
   */
  interrupted(reason: string, claimed: readonly number[] | undefined): P[] {
    const started = new Set(this.began.values());
    const came = new Set(this.recent);
    for (const key of claimed ?? []) if (!came.has(key)) started.add(key);
    const inFlight: P[] = [];
    const now = performance.now();
    for (const key of started) {
      if (this.arrived.has(key)) continue;
      const pending = this.waiting.get(key);
      if (pending) {
        this.waiting.delete(key);
        inFlight.push(pending);
      } else {
        const ranMs = this.ranFor(key, now);
        this.cut.set(key, { reason, ...(ranMs === undefined ? {} : { ranMs }) });
      }
    }
    this.owner = undefined;
    this.allowed = false;
    this.ended = true;
    this.began.clear();
    this.running.clear();
    this.since.clear();
    this.changed?.();
    return inFlight;
  }

  /**
   * The eval process waits for this one to take its records. Said before this one caught up, the
   * window moves on with the records taken since; said while the engine waits for attempts it
   * never started, the two did not read the same cases.
   */
  onStalled(): void {
    if (this.stopping) return;
    if (this.taken > this.acked) {
      this.acked = this.taken;
      this.host.post({ t: "ack", taken: this.taken });
      return;
    }
    this.stalled = true;
    this.checkDiverged();
  }

  /** Start no more attempts ahead (those started still finish). */
  stop(): void {
    this.allowed = false;
    if (this.owner === undefined || this.stopping || this.ended) return;
    this.stopping = true;
    this.host.post({ t: "ahead-stop" });
  }

  /**
   * The eval process running ahead ended. What it started (as it said, or as its claims file
   * says: what it said last may not have arrived) and the engine waits for is returned, for the
   * supervisor to strike like its own attempts in flight; the others are struck for when the
   * engine asks. Returns how many of those there were too. `exact`: the claims file was written
   * as the process exited, so it lists what was running then and nothing else; one it began that
   * is not listed ended just before, and its record was lost with the process (those it wrote on
   * the way out came before this): struck too, as `afterEnd`, so one that ends the process each
   * time it ends is not run again without end. `mark`, when given, is handed back with each of
   * those struck for later (AheadHost.strike).
   */
  crashed(
    cause: string,
    claimed: readonly number[] | undefined,
    exact = false,
    mark?: unknown,
  ): { inFlight: P[]; afterEnd: P[]; notAsked: number } {
    const started = new Set(exact ? claimed : this.began.values());
    const ended = new Set<number>();
    if (!exact) {
      const came = new Set(this.recent);
      for (const key of claimed ?? []) if (!came.has(key)) started.add(key);
    } else for (const key of this.began.values()) if (!started.has(key)) ended.add(key);
    const inFlight: P[] = [];
    const afterEnd: P[] = [];
    let notAsked = 0;
    const now = performance.now();
    for (const key of [...started, ...ended]) {
      const ranMs = this.ranFor(key, now);
      const pending = this.waiting.get(key);
      if (pending) {
        this.waiting.delete(key);
        pending.ranMs = ranMs;
        (ended.has(key) ? afterEnd : inFlight).push(pending);
        continue;
      }
      const before = this.struck.get(key);
      const strikes = (before?.strikes ?? 0) + 1;
      const marks = [...(before?.marks ?? []), ...(mark === undefined ? [] : [mark])];
      const struck = { strikes, cause, afterEnd: ended.has(key), marks };
      this.struck.set(key, ranMs === undefined ? struck : { ...struck, ranMs });
      notAsked++;
    }
    this.owner = undefined;
    this.allowed = false;
    this.began.clear();
    this.running.clear();
    this.since.clear();
    this.release();
    this.changed?.();
    return { inFlight, afterEnd, notAsked };
  }

  /** The attempts the engine waits for that `child` has begun running ahead. */
  startedFor(child: C): P[] {
    const started: P[] = [];
    if (!this.owns(child)) return started;
    for (const [key, pending] of this.waiting) if (this.running.has(key)) started.push(pending);
    return started;
  }

  /**
   * This attempt, begun ahead, is answered by the supervisor (errored): its record is not waited
   * for, and a crash does not count it as in flight.
   */
  answered(pending: P): void {
    const { job } = pending;
    const key = this.keyOf(job.entry, job.spec, job.trial);
    if (this.waiting.get(key) !== pending) return;
    this.waiting.delete(key);
    const id = this.running.get(key);
    this.running.delete(key);
    this.since.delete(key);
    if (id !== undefined) this.began.delete(id);
    this.recent[this.recentAt] = key;
    this.recentAt = (this.recentAt + 1) % RECENT_KEYS;
    this.changed?.();
  }

  /** The attempts still waiting for a record run ahead (to fail them all). */
  drain(): P[] {
    const all = [...this.waiting.values()];
    this.waiting.clear();
    return all;
  }

  /** An attempt's key; -1 (sent, never run ahead) for one of an eval the plan keeps from it. */
  private keyOf(entry: RunEntry, spec: CaseSpec, trial: number): number {
    const id = entry.eval.id;
    if (this.notAhead.has(id)) return -1;
    return aheadKey(this.evalIndex.get(id) ?? -1, spec.index, trial);
  }

  /** Whether this key's record will come ahead (now, or once an eval process is ready). */
  private comesAhead(key: number): boolean {
    // Asked to stop, it may still start attempts until it says it ended: they still come ahead.
    if (this.owner !== undefined) return !this.ended || this.running.has(key);
    return this.allowed && this.plan !== undefined;
  }

  /** How long the attempt `key` had run at `now`, when its start was heard of. */
  private ranFor(key: number, now: number): number | undefined {
    const at = this.since.get(key);
    return at === undefined ? undefined : now - at;
  }

  private markStarted(pending: P, now: number): void {
    pending.started = true;
    pending.sentAt = now;
    pending.job.queue?.started();
  }

  /** What waits for a record that will not come ahead is sent instead. */
  private release(): void {
    for (const [key, pending] of this.waiting) {
      if (this.running.has(key)) continue;
      this.waiting.delete(key);
      this.host.ask(pending);
    }
  }

  /** Stalled, with records the engine does not take while it waits for others: diverged. */
  private checkDiverged(): void {
    if (this.stopping || this.arrived.size < AHEAD_WINDOW / 2) return;
    for (const [key, pending] of this.waiting) {
      if (this.running.has(key)) continue;
      this.diverged(pending.job.entry.eval.id);
      return;
    }
  }

  /** An attempt's record taken by the engine: the eval process may run further ahead. */
  private noteTaken(): void {
    this.taken++;
    if (this.taken - this.acked < ACK_EVERY || this.owner === undefined) return;
    this.acked = this.taken;
    this.stalled = false;
    this.host.post({ t: "ack", taken: this.taken });
  }

  /**
   * A record run ahead for another case than the one the engine has at its place: the two
   * processes did not read the same cases (a dataset that changes between reads). Nothing more
   * is taken from what runs ahead; the rest of the run sends each case.
   */
  private diverged(evalId: string): void {
    if (this.owner === undefined || this.stopping) return;
    // Said once a run: after it, nothing runs ahead again.
    if (!this.warnedDiverged)
      this.host.warn(
        `niceeval: the eval process read other cases of eval "${evalId}" than this one did (a dataset that changes between reads, such as a random sample: its cases() is called twice, once for the cases it runs ahead and once for the run's); the cases it ran ahead for nothing cost their target calls, and the rest of the run sends each case to it. Give the sample a fixed seed to run ahead\n`,
      );
    this.warnedDiverged = true;
    this.stop();
  }
}
