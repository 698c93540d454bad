import type { AttemptRecord, Judgment } from "../eval/record.js";
import type { CaseSpec } from "../eval/runnable.js";

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
}

/** One attempt for the child. `spec` is absent when it could not be cloned: the child finds it. */
export interface ChildJob {
  id: number;
  evalId: string;
  caseId: string;
  index: number;
  spec?: CaseSpec;
  trial: number;
  runId: string;
  keepOutput?: true;
  timeoutMs?: number;
  /** Send each judgment as it is decided. */
  judgments?: true;
}

/** A batch of jobs is a JSON string (`ChildJob[]`) when its cases are plain JSON. */
export type ParentMessage =
  | string
  | ChildInit
  | { t: "jobs"; jobs: ChildJob[] }
  | { t: "abort"; reason: string }
  | { t: "close" };

/**
 * What the child streams back, batched: finished attempts, real-time judgments, and attempts to
 * run again alone (in flight with others when an uncaught error nobody could be tied to happened).
 */
export type ChildEvent =
  /** `unreported`: the record's app usage is the shared unreported value, left off the wire. */
  | { t: "record"; id: number; record: AttemptRecord; unreported?: 1 }
  | { t: "judgment"; id: number; judgment: Judgment }
  | { t: "rerun"; id: number };

/** A batch of events is a JSON string (`ChildEvent[]`) when every event is plain JSON. */
export type ChildMessage =
  | string
  | { t: "ready"; evals: string[]; errors: { file: string; message: string }[] }
  | { t: "beat" }
  | { t: "events"; events: ChildEvent[] }
  /** An uncaught error no single attempt owns, with where it came from. */
  | { t: "run-error"; message: string; where: string };
