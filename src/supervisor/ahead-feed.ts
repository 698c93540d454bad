import { makeFilter } from "../cli/filter.js";
import { attemptKey } from "../eval/ids.js";
import type { CaseSpec, Runnable } from "../eval/runnable.js";
import { type CaseSelector, evalCases, type SourceIterator } from "../runner/source.js";
import { eventLoopTurns } from "../runner/turns.js";
import { shardSelector } from "../shard/shard.js";
import { AHEAD_WINDOW, type AheadPlan, aheadKey } from "./protocol.js";

/** An attempt the eval process starts on its own: its id (below 0) and what it runs. */
export interface FedJob {
  readonly id: number;
  readonly evalId: string;
  readonly evalIndex: number;
  readonly spec: CaseSpec;
  readonly trial: number;
}

/** Attempts read ahead of the free slots. */
const BUFFERED = 256;

/**
 * The eval process's own reading of a run's cases (see AheadPlan): the same source and selectors
 * as the supervisor's engine, so the same attempts in the same order. It reads while fewer than
 * AHEAD_WINDOW attempts are started and not yet taken by the supervisor, and holds each eval to
 * its own concurrency. Attempts the engine decides without running (a duplicate case id, a broken
 * case source) are left to the supervisor, which decides them the same way; so are those a
 * continued run reads back from the store (`plan.kept`).
 */
export class AheadFeed {
  private readonly buffer: FedJob[] = [];
  private head = 0;
  private readonly running: number[];
  private began = 0;
  private taken = 0;
  private nextId = -1;
  private reading = false;
  private done = false;
  private stalled = false;
  private readonly source: SourceIterator;
  private readonly kept: ReadonlySet<string> | undefined;

  constructor(
    private readonly evals: readonly Runnable[],
    plan: AheadPlan,
    signal: AbortSignal,
    private readonly events: { wake(): void; stalled(): void },
  ) {
    const select: CaseSelector[] = [];
    if (plan.filter !== undefined) {
      const filter = makeFilter(plan.filter);
      select.push((evalId, caseId) => filter(evalId, caseId));
    }
    if (plan.shard) select.push(shardSelector(plan.shard));
    // An eval whose cases can be read only once is read by the run's own reads alone: here it
    // has none (its places, and so every other eval's attempt keys, stay the same).
    const notAhead = new Set(plan.notAhead);
    const entries = evals.map((runnable) => ({
      eval: notAhead.has(runnable.id) ? withoutCases(runnable) : runnable,
    }));
    this.source = evalCases({
      select,
      ...(plan.trials !== undefined ? { trials: plan.trials } : {}),
      ...(plan.caseWaitMs !== undefined ? { caseWaitMs: plan.caseWaitMs } : {}),
    })(entries, signal)[Symbol.asyncIterator]();
    this.running = evals.map(() => 0);
    if (plan.kept?.length) this.kept = new Set(plan.kept);
    void this.read();
  }

  /** No attempt will start ahead any more (all were read and started, or it was stopped). */
  get finished(): boolean {
    return this.done && this.head >= this.buffer.length;
  }

  /** Up to `room` attempts to start now, in order, each eval within its concurrency. */
  take(room: number): FedJob[] {
    const out: FedJob[] = [];
    while (out.length < room && this.head < this.buffer.length) {
      const job = this.buffer[this.head]!;
      const cap = this.evals[job.evalIndex]!.concurrency;
      if (cap !== undefined && this.running[job.evalIndex]! >= cap) break;
      this.running[job.evalIndex]!++;
      this.head++;
      out.push(job);
    }
    if (this.head >= BUFFERED && this.head * 2 >= this.buffer.length) {
      this.buffer.splice(0, this.head);
      this.head = 0;
    }
    this.began += out.length;
    if (out.length > 0) void this.read();
    return out;
  }

  /** An attempt started ahead ended. */
  release(job: FedJob): void {
    this.running[job.evalIndex]!--;
  }

  /** The supervisor has taken `taken` of the records: the window moves on. */
  ack(taken: number): void {
    if (taken <= this.taken) return;
    this.taken = taken;
    this.stalled = false;
    void this.read();
  }

  /** Read no more; what was read and not started is dropped (the supervisor asks for it). */
  stop(): void {
    this.done = true;
    this.buffer.length = this.head;
    void this.source.return?.();
  }

  private async read(): Promise<void> {
    if (this.reading || this.done) return;
    this.reading = true;
    // A slow synchronous dataset does not block the heartbeat: the event loop gets its turns.
    const turns = eventLoopTurns();
    try {
      while (!this.done && this.buffer.length - this.head < BUFFERED) {
        const turn = turns.due();
        if (turn) await turn;
        if (this.began + (this.buffer.length - this.head) - this.taken >= AHEAD_WINDOW) {
          if (!this.stalled) {
            this.stalled = true;
            this.events.stalled();
          }
          return;
        }
        const next = this.source.nextNow?.() ?? (await this.source.next());
        if (this.done) return;
        if (next.done) {
          this.done = true;
          break;
        }
        const item = next.value;
        if (item.type !== "case" || item.record) continue;
        if (aheadKey(item.entry, item.spec.index, item.trial) < 0) continue;
        const evalId = this.evals[item.entry]!.id;
        if (this.kept?.has(attemptKey(evalId, item.spec.id, item.trial))) continue;
        const wasEmpty = this.head >= this.buffer.length;
        this.buffer.push({
          id: this.nextId--,
          evalId,
          evalIndex: item.entry,
          spec: item.spec,
          trial: item.trial,
        });
        if (wasEmpty) this.events.wake();
      }
    } catch {
      // A case source that fails is the supervisor's to report (its engine reads the same).
      this.done = true;
    } finally {
      this.reading = false;
    }
    this.events.wake();
  }
}

/** The same eval, read as having no cases (see AheadPlan.notAhead). */
function withoutCases(runnable: Runnable): Runnable {
  return Object.create(runnable, { cases: { value: () => [] } }) as Runnable;
}
