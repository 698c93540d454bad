import type { AttemptRecord, Judgment } from "../eval/record.js";
import type { CaseSpec } from "../eval/runnable.js";
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
  /** The run was aborted before this child started. */
  aborted?: string;
  /**
   * Track which attempt each callback belongs to from the start (an AsyncLocalStorage, which on
   * Node 20 slows every promise): set once the run has seen an uncaught error it could not place.
   */
  track?: true;
  /** A claims file is open on fd {@link CLAIMS_FD} (see spawn.ts). */
  claims?: true;
}

/** The fd an eval process finds its claims file on (after stdin, stdout, stderr and IPC). */
export const CLAIMS_FD = 4;

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

/** A batch of jobs is a JSON string (`JobBatch`) when its cases are plain JSON. */
export type ParentMessage =
  | string
  | ChildInit
  | ({ t: "jobs" } & JobBatch)
  | { t: "abort"; reason: string }
  | { t: "close" };

/**
 * What the child streams back, batched: attempts that started (the time limits count from then;
 * without a claims file this goes before they start, so that after a crash the supervisor knows
 * which ones never ran), finished attempts, real-time judgments, and attempts to run again alone
 * (in flight with others when an uncaught error nobody could be tied to happened).
 */
export type ChildEvent =
  | { t: "started"; ids: number[] }
  /** `f`: what was left off the record (RECORD_FLAGS). */
  | ({ t: "delta"; id: number; f?: number } & Encoded)
  /** A record sent whole (it is not plain JSON, or it is of no base). */
  | { t: "record"; id: number; record: AttemptRecord; f?: number }
  | { t: "judgment"; id: number; judgment: Judgment }
  | { t: "rerun"; id: number };

/**
 * A batch of events that are all plain JSON goes as one JSON string of a flat array, each event a
 * kind then its fields, so parsing it makes no object per event:
 * - `PACKED.delta, id, flags, base, n, ...n changes` (flags: RECORD_FLAGS)
 * - `PACKED.whole, id, flags, base, record` (base: the number it becomes, -1 for none)
 * - `PACKED.started, n, ...n ids`
 * - `PACKED.judgment, id, judgment`
 * - `PACKED.rerun, id`
 * Otherwise the batch goes by structured clone as `{ t: "events", events }`.
 */
export const PACKED = { delta: 0, whole: 1, started: 2, judgment: 3, rerun: 4 } as const;

/**
 * What a record's sender left off, for its receiver to put back: `unreported`, its app usage is
 * the shared unreported value; `caseId`, its case id is its job's (sent as ""), which the
 * supervisor holds already (and a short string parsed from JSON would be interned, every one).
 */
export const RECORD_FLAGS = { unreported: 1, caseId: 2 } as const;

/** What the child sends; a string is a packed batch of events (see {@link PACKED}). */
export type ChildMessage =
  | string
  | { t: "ready"; evals: string[]; errors: { file: string; message: string }[] }
  | { t: "beat" }
  | { t: "events"; events: ChildEvent[] }
  /** An uncaught error no single attempt owns, with where it came from. */
  | { t: "run-error"; message: string; where: string };
