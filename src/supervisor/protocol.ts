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

export type ParentMessage =
  | ChildInit
  | { t: "jobs"; jobs: ChildJob[] }
  | { t: "abort"; reason: string }
  | { t: "close" };

/** What the child streams back, batched: finished attempts and real-time judgments. */
export type ChildEvent =
  | { t: "record"; id: number; record: AttemptRecord }
  | { t: "judgment"; id: number; judgment: Judgment };

export type ChildMessage =
  | { t: "ready"; evals: string[]; errors: { file: string; message: string }[] }
  | { t: "beat" }
  | { t: "events"; events: ChildEvent[] }
  /** An uncaught error no single attempt owns, with where it came from. */
  | { t: "run-error"; message: string; where: string };
