import type { AttemptRecord, Judgment } from "../eval/record.js";
import type { CaseSpec } from "../eval/runnable.js";
import type { JudgePushBack } from "../judge/retries.js";
import type { LoadError } from "../runner/summary.js";
import type { Shard } from "../shard/shard.js";
import type { Encoded } from "./delta.js";

/** What the supervisor tells a new eval process: which files to load and how to run. */
export interface ChildInit {
  t: "init";
  files: readonly string[];
  cwd: string;
  /** False under `--no-cache`. */
  judgeCache: boolean;
  /** How often the child proves its event loop runs, ms. */
  beatMs: number;
  /** How long one eval file may take to load, ms (the run's hang timeout). */
  loadWaitMs?: number;
  /** The run was aborted before this child started. */
  aborted?: string;
  /** `aborted`'s stop leaves a run `--resume` continues (a `RunStop` that says so). */
  resumable?: true;
  /**
   * Track which attempt each callback belongs to from the start (an AsyncLocalStorage, which on
   * Node 20 slows every promise): set once the run has seen an uncaught error it could not place.
   */
  track?: true;
  /** A claims file is open on fd {@link CLAIMS_FD} (see spawn.ts). */
  claims?: true;
  /** The kernel kills this process when its supervisor ends: no thread needs to watch for that. */
  endsWithParent?: true;
}

/** The fd an eval process finds its claims file on (after stdin, stdout, stderr and IPC). */
export const CLAIMS_FD = 4;

/**
 * Where in the claims file an eval process that exits (`process.exit` in user code) writes which
 * of the attempts it was sent were running then, and the events that may not have reached the
 * supervisor: `1, n, ...n ids, length` as doubles, then `length` bytes of JSON, `[k, batch, ...]`:
 * packed batches (PACKED), each after its number `k` among the packed batches it sent (counted
 * from 0; the outbox, never sent, has the next number), so the supervisor skips those it read;
 * then where user code called `process.exit` and where it called `process.disconnect`, each a
 * length as a double (-1 for the second: it was not called) and that many bytes of text. Beyond
 * the part that lists the attempts run ahead (at most AHEAD_WINDOW keys and their count).
 */
export const EXIT_CLAIMS_AT = 1 << 20;

/**
 * One attempt for the child. `spec` is absent when structured clone could not carry it: the child
 * then finds the case by `caseId` among its own (`index` tells where it was).
 */
export interface ChildJob {
  id: number;
  evalId: string;
  spec?: CaseSpec;
  caseId?: string;
  index?: number;
  /** Absent: 0. */
  trial?: number;
}

/** What the jobs of one batch share: the run, and how its attempts run. */
export interface JobSettings {
  /**
   * The run's concurrency: the child runs at most that many at once (absent or 0: no limit) and
   * starts the others as slots free up.
   */
  c?: number;
  runId: string;
  keepOutput?: true;
  timeoutMs?: number;
  /** Send each judgment as it is decided. */
  judgments?: true;
}

/** Jobs for the child's queue. */
export interface JobBatch extends JobSettings {
  jobs: ChildJob[];
}

/**
 * What an eval process needs to run a run's attempts on its own, ahead of the supervisor: it reads
 * its own copy of the cases (the same files, so the same cases in the same order), selects them as
 * the supervisor's engine does, and sends each record as it finishes, so the supervisor finds most
 * records already there when its engine asks for them instead of asking and waiting.
 */
export interface AheadPlan {
  runId: string;
  /** The run's concurrency. */
  concurrency: number;
  /** The run's trials (an eval's own wins). */
  trials?: number;
  /** `--filter`, as given. */
  filter?: string;
  shard?: Shard;
  keepOutput?: true;
  timeoutMs?: number;
  /** Longest wait for a dataset's next case (the engine's own limit, so both read alike). */
  caseWaitMs?: number;
  /**
   * A continued run (`--resume`, `--retry-errors`): the attempts its engine reads back from the
   * store instead of running them (their `attemptKey`s), which the eval process skips.
   */
  kept?: string[];
  /**
   * Evals whose cases can be read only once (`Runnable.readsOnce`): the eval process does not
   * read them to run them ahead, and the supervisor sends each of their attempts.
   */
  notAhead?: string[];
}

/**
 * The number an attempt is known by on both sides of an ahead run: its eval's place among the
 * loaded evals, its case's index, its trial; -1 beyond what the number holds (such an attempt is
 * left to the supervisor to ask for).
 */
export function aheadKey(evalIndex: number, caseIndex: number, trial: number): number {
  // 27 bits of case index, 10 of trial, 16 of eval: within a double's exact integers.
  if (evalIndex < 0 || evalIndex >= 65536 || trial < 0 || trial >= 1024) return -1;
  if (!(caseIndex >= 0 && caseIndex < 2 ** 27)) return -1;
  return (caseIndex * 1024 + trial) * 65536 + evalIndex;
}

/**
 * Attempts an eval process may have started ahead beyond those the supervisor has taken: a bound
 * on the records waiting in the supervisor for its engine.
 */
export const AHEAD_WINDOW = 4096;

/** What the CLI knows of an eval the eval process loaded (it never imports the files itself). */
export interface EvalDescription {
  id: string;
  style: "suite" | "score";
  /** A pass/fail eval (`Runnable.passFail`). */
  passFail?: true;
  /** The file it came from, as the init named it. */
  file?: string;
  concurrency?: number;
  trials?: number;
  /** Points an attempt can earn, when known before it runs (`Runnable.maxPoints`). */
  maxPoints?: number;
  /** Its cases can be read only once (`Runnable.readsOnce`): it is not run ahead. */
  readsOnce?: true;
  /** What its `fingerprint()` gave, as JSON (for the run's configuration hash). */
  fingerprint: unknown;
  /**
   * The judge models its scorers were built with (`Runnable.judgeModels`) and the defaults of
   * the eval process (its default closeQA judge, set where the eval files load), sorted.
   */
  judgeModels?: string[];
}

/** Ask for an eval's cases: at most `max`, after the first `from`. */
export interface CasesRequest {
  t: "cases";
  evalId: string;
  from: number;
  max: number;
  /** Longest wait for an asynchronous dataset's next case, ms. */
  waitMs?: number;
}

/** An eval's cases, `from` on, as asked. */
export interface CasesReply {
  t: "cases";
  evalId: string;
  from: number;
  /** The cases, a JSON array. */
  json: string;
  /** Cases JSON cannot carry and structured clone can (a Date, a Map): each with its place. */
  cloned?: [number, CaseSpec][];
  /**
   * Places in `json` of cases neither can carry (a function): those are copies, and an attempt
   * of one is sent by case id, to run the eval process's own case.
   */
  byId?: number[];
  /** No case after these. */
  done: boolean;
  /** Reading the cases failed after these (or the eval is not loaded there). */
  error?: string;
  /** That error is the eval's definition (no scorers), not its dataset: a DefinitionError. */
  definition?: true;
  /** The run's stop ended the reading here, not the dataset (its cases after these unread). */
  stopped?: true;
}

/** A batch of jobs is a JSON string (`JobBatch`) when its cases are plain JSON. */
export type ParentMessage =
  | string
  | ChildInit
  | CasesRequest
  /** Reads of several evals' cases asked for in one turn (a run of small evals). */
  | { t: "cases-many"; reads: CasesRequest[] }
  | ({ t: "jobs" } & JobBatch)
  | { t: "ahead"; plan: AheadPlan }
  /** The supervisor has taken this many of the records run ahead. */
  | { t: "ack"; taken: number }
  /** Start no more attempts ahead (those started still finish). */
  | { t: "ahead-stop" }
  /** The run was stopped; `resumable`: `--resume` can continue it (see `RunStop`). */
  | { t: "abort"; reason: string; resumable?: true }
  | { t: "close" };

/**
 * The eval process's first word, sent once it listens for messages: the supervisor sends nothing
 * before it. Node holds messages for a process until something listens, and a module preloaded
 * through `NODE_OPTIONS` (`--import`, `--require`) that listens first would take them instead.
 */
export const LISTENING = { t: "listening" } as const;

/**
 * What the child streams back, batched: attempts that started (the time limits count from then;
 * without a claims file this goes before they start, so that after a crash the supervisor knows
 * which ones never ran), finished attempts and real-time judgments.
 */
export type ChildEvent =
  | { t: "started"; ids: number[] }
  /**
   * Attempts the child started ahead, on its own (ids below 0), each with its eval's index in the
   * ready message, its case index and its trial: `[id, eval, index, trial, ...]`.
   */
  | { t: "began"; keys: number[] }
  /** No more attempts start ahead: every one that did was announced before this. */
  | { t: "ahead-end" }
  /** The child waits for the supervisor to take records it ran ahead (once per wait). */
  | { t: "ahead-stalled" }
  /** `f`: what was left off the record (RECORD_FLAGS). */
  | ({ t: "delta"; id: number; f?: number } & Encoded)
  /** A record sent whole (it is not plain JSON, or it is of no base). */
  | { t: "record"; id: number; record: AttemptRecord; f?: number }
  | { t: "judgment"; id: number; judgment: Judgment };

/**
 * A batch of events that are all plain JSON goes as one JSON string of a flat array, each event a
 * kind then its fields, so parsing it makes no object per event:
 * - `PACKED.delta, id, flags, base, n, ...n changes` (flags: RECORD_FLAGS)
 * - `PACKED.whole, id, flags, base, record` (base: the number it becomes, -1 for none)
 * - `PACKED.started, n, ...n ids`
 * - `PACKED.judgment, id, judgment`
 * - `PACKED.began, n, ...n numbers` (the `keys` of a began event)
 * - `PACKED.aheadEnd, 0` and `PACKED.aheadStalled, 0`
 * Otherwise the batch goes by structured clone as `{ t: "events", events }`.
 */
export const PACKED = {
  delta: 0,
  whole: 1,
  started: 2,
  judgment: 3,
  began: 5,
  aheadEnd: 6,
  aheadStalled: 7,
} as const;

/**
 * What a record's sender left off, for its receiver to put back: `unreported`, its app usage is
 * the shared unreported value; `caseId`, its case id is its job's (sent as ""), which the
 * supervisor holds already (and a short string parsed from JSON would be interned, every one).
 */
export const RECORD_FLAGS = { unreported: 1, caseId: 2 } as const;

/** What the child sends; a string is a packed batch of events (see {@link PACKED}). */
export type ChildMessage =
  | string
  | {
      t: "ready";
      /** The evals it loaded, in order. */
      described: EvalDescription[];
      errors: LoadError[];
    }
  | CasesReply
  /** Replies to reads that ended in one turn. */
  | { t: "cases-many"; replies: CasesReply[] }
  /** It is about to import this eval file (as its init named it): a hang from now on is that file's. */
  | { t: "loading"; file: string }
  | typeof LISTENING
  | { t: "beat" }
  | { t: "events"; events: ChildEvent[] }
  /**
   * An uncaught error no single attempt owns, with where it came from. `reruns`: it came while
   * these attempts ran, which run again alone to find whose it is (it is the run's if none throws
   * it again); sent after the events that say they started.
   */
  | { t: "run-error"; message: string; where: string; reruns?: number[] }
  /** A judge endpoint pushed back (429, 503, 529): told on, so a queue worker pauses its fleet. */
  | { t: "push-back"; event: JudgePushBack };
