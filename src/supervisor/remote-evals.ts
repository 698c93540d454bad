// The evals of a supervised run as the CLI holds them: described by the eval process that loaded
// them, their cases read there and sent in batches. The CLI never imports the eval files, so
// their top-level code runs once (a server it starts, a lock it takes), and code they schedule
// (a timer's endless loop) can only ever block the eval process, which the supervisor replaces.

import { DefinitionError } from "../errors.js";
import type { AttemptRecord } from "../eval/record.js";
import { type CaseSpec, EVAL_BRAND, type Runnable } from "../eval/runnable.js";
import type { RunEntry } from "../runner/entry.js";
import type { BufferedCases } from "../runner/source.js";
import type { LoadError } from "../runner/summary.js";
import type { ChildEvals } from "./executor.js";
import type { CasesReply, CasesRequest, EvalDescription } from "./protocol.js";
import { copiedCases } from "./wire.js";

/** Reads an eval's cases in the eval process. */
export type CaseReader = (request: Omit<CasesRequest, "t">) => Promise<CasesReply>;

/**
 * Cases asked for at once; the next batch is asked for once fewer than half are left. Batches of
 * 1,024 rather than 4,096 cost the CLI about 7% less CPU in a 100,000-case run (fewer cases parsed
 * long before the engine takes them, so fewer outlive a young-generation collection), with no
 * change in wall time (`bench/supervisor.mjs`).
 */
const BATCH = 1024;
/** Evals whose first cases are asked for ahead, in a run of small evals (see FirstReads). */
const AHEAD_EVALS = 64;
/** Cases of each such first read (more are asked for as usual when an eval has more). */
const AHEAD_CASES = 64;

/**
 * The run's entries and load errors from what the eval process loaded. `waitMs`: longest wait for
 * an asynchronous dataset's next case, applied where it is read.
 */
export function childEntries(
  loaded: ChildEvals,
  read: CaseReader,
  waitMs: number | undefined,
): { entries: RunEntry[]; errors: LoadError[] } {
  const first = new FirstReads(
    loaded.described.map((described) => described.id),
    read,
    waitMs,
  );
  const entries = loaded.described.map((described, index) => ({
    eval: new RemoteEval(described, { read, first, index }, waitMs),
    ...(described.file !== undefined ? { file: described.file } : {}),
  }));
  return { entries, errors: loaded.errors };
}

/**
 * The first cases of the evals to come, asked for ahead. A run of many small evals (10,000 score
 * evals of one case each) would otherwise wait for one round trip to the eval process per eval,
 * as the engine reaches each. Once an eval's cases all came in its first read, the first cases of
 * the next evals are asked for (AHEAD_EVALS at a time, AHEAD_CASES each), and each eval's reading
 * starts from what came. Evals larger than one read (BATCH) never start this reading ahead.
 */
class FirstReads {
  private readonly replies = new Map<number, Promise<CasesReply>>();
  /** The evals from here on have not been asked for ahead. */
  private next = 0;

  constructor(
    private readonly ids: readonly string[],
    private readonly read: CaseReader,
    private readonly waitMs: number | undefined,
  ) {}

  /** The first reply of the eval at `index`, when it was asked for ahead (taken once). */
  take(index: number): Promise<CasesReply> | undefined {
    const reply = this.replies.get(index);
    this.replies.delete(index);
    return reply;
  }

  /** The eval at `index` had all its cases in its first read: ask ahead for the next ones. */
  small(index: number): void {
    if (this.replies.size > AHEAD_EVALS / 2) return;
    this.next = Math.max(this.next, index + 1);
    const end = Math.min(this.ids.length, index + 1 + AHEAD_EVALS);
    for (; this.next < end; this.next++) {
      this.replies.set(
        this.next,
        this.read({
          evalId: this.ids[this.next]!,
          from: 0,
          max: AHEAD_CASES,
          ...(this.waitMs !== undefined ? { waitMs: this.waitMs } : {}),
        }),
      );
    }
  }
}

/** How an eval's cases are read: by request, or from a first read asked for ahead. */
interface Reading {
  read: CaseReader;
  first: FirstReads;
  /** The eval's place in the run. */
  index: number;
}

/** An eval loaded in the eval process: it is run there, never here. */
class RemoteEval implements Runnable {
  readonly [EVAL_BRAND] = true as const;
  readonly id: string;
  readonly style: "suite" | "score";
  readonly passFail?: true;
  readonly concurrency?: number;
  readonly trials?: number;
  readonly maxPoints?: number;
  readonly readsOnce?: true;

  constructor(
    private readonly described: EvalDescription,
    private readonly reading: Reading,
    private readonly waitMs: number | undefined,
  ) {
    this.id = described.id;
    this.style = described.style;
    if (described.passFail) this.passFail = true;
    if (described.concurrency !== undefined) this.concurrency = described.concurrency;
    if (described.trials !== undefined) this.trials = described.trials;
    if (described.maxPoints !== undefined) this.maxPoints = described.maxPoints;
    if (described.readsOnce) this.readsOnce = true;
  }

  fingerprint(): unknown {
    return this.described.fingerprint;
  }

  judgeModels(): readonly string[] {
    return this.described.judgeModels ?? [];
  }

  cases(): AsyncIterable<CaseSpec> {
    return { [Symbol.asyncIterator]: () => new RemoteCases(this.id, this.reading, this.waitMs) };
  }

  runCase(): Promise<AttemptRecord> {
    return Promise.reject(
      new Error(`eval "${this.id}" runs in the eval process of its supervised run`),
    );
  }
}

const DONE: IteratorResult<CaseSpec> = { done: true, value: undefined };

/**
 * One reading of an eval's cases: batches asked for ahead, so the engine mostly finds the next
 * case here (`nextNow`) and waits only when the eval process is slower than the run.
 */
class RemoteCases implements BufferedCases {
  private buffer: CaseSpec[] = [];
  private head = 0;
  /** Cases received so far (where the next batch starts). */
  private received = 0;
  private done = false;
  /** The run's stop ended the reading, not the dataset. */
  cut = false;
  private failure: string | undefined;
  private failedDefinition = false;
  private asking: Promise<void> | undefined;

  constructor(
    private readonly evalId: string,
    private readonly reading: Reading,
    private readonly waitMs: number | undefined,
  ) {}

  /** The next case when it is here; undefined when it must be waited for (`next`). */
  nextNow(): IteratorResult<CaseSpec> | undefined {
    const left = this.buffer.length - this.head;
    if (left < BATCH / 2) this.ask();
    if (left > 0) {
      const value = this.buffer[this.head++]!;
      return { done: false, value };
    }
    if (this.done && this.failure === undefined) return DONE;
    return undefined;
  }

  async next(): Promise<IteratorResult<CaseSpec>> {
    for (;;) {
      const now = this.nextNow();
      if (now) return now;
      if (this.failure !== undefined) {
        const failure = this.failure;
        this.failure = undefined;
        throw this.failedDefinition ? new DefinitionError(failure) : new Error(failure);
      }
      await this.asking;
    }
  }

  return(): Promise<IteratorResult<CaseSpec>> {
    this.done = true;
    this.buffer = [];
    this.head = 0;
    return Promise.resolve(DONE);
  }

  private ask(): void {
    if (this.asking || this.done) return;
    const ahead = this.received === 0 ? this.reading.first.take(this.reading.index) : undefined;
    if (ahead) {
      this.asking = ahead.then((reply) => this.take(reply));
      return;
    }
    const request = {
      evalId: this.evalId,
      from: this.received,
      max: BATCH,
      ...(this.waitMs !== undefined ? { waitMs: this.waitMs } : {}),
    };
    this.asking = this.reading.read(request).then((reply) => this.take(reply));
  }

  private take(reply: CasesReply): void {
    this.asking = undefined;
    const specs = JSON.parse(reply.json) as CaseSpec[];
    for (const [at, spec] of reply.cloned ?? []) specs[at] = spec;
    for (const at of reply.byId ?? []) copiedCases.add(specs[at]!);
    if (this.head > 0) {
      this.buffer = this.buffer.slice(this.head);
      this.head = 0;
    }
    for (const spec of specs) this.buffer.push(spec);
    this.received += specs.length;
    if (reply.error !== undefined) this.failure = reply.error;
    if (reply.definition) this.failedDefinition = true;
    if (reply.done || reply.error !== undefined) this.done = true;
    if (reply.stopped) this.cut = true;
    if (reply.from === 0 && reply.done && reply.error === undefined)
      this.reading.first.small(this.reading.index);
  }
}
