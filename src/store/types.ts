import type { AttemptRecord, JudgmentState, Verdict } from "../eval/record.js";
import type { EvalSummary } from "../runner/events.js";
import type { LoadError } from "../runner/summary.js";

/** Where a run stands. `running` until finished; a run whose process died stays `running` until marked. */
export type RunStatus = "running" | "finished" | "interrupted" | "crashed";

/** What a run records about one eval when it starts (hashes let two runs be compared honestly). */
export interface EvalManifest {
  evalId: string;
  style: "suite" | "score";
  /** A pass/fail eval (`Runnable.passFail`; runs stored before it was kept read as score evals). */
  passFail?: true | undefined;
  file?: string | undefined;
  /** Hash of the eval's configuration: scorers, thresholds, gates, judge models. */
  configHash: string;
  /** Hash of the dataset (case ids, inputs, expected); known once every case was read, so set at finish. */
  datasetHash?: string | undefined;
  /**
   * Judge models the eval's scorers were built with, and the run's defaults (the closeQA
   * judge), sorted; a judge of the user's own is not known (src/judge/judge-models.ts).
   */
  judgeModels: string[];
  trials: number;
}

/** Everything a run records about itself when it begins. */
export interface RunManifest {
  /** The run's id: a non-empty string, else `beginRun` refuses it. */
  runId: string;
  name?: string | undefined;
  tags: Record<string, string>;
  niceevalVersion: string;
  nodeVersion: string;
  git?: { commit: string; branch?: string | undefined; dirty: boolean } | undefined;
  /** The command line, as argv after `node`. */
  command: string[];
  /** A hash of each eval file's contents. */
  files: { path: string; hash: string }[];
  evals: EvalManifest[];
  trials: number;
  concurrency: number;
  /**
   * When the run started: an ISO 8601 date-time with a time zone (`new Date().toISOString()`),
   * else `beginRun` refuses it; kept in UTC as `toISOString` writes it (runs are listed by it).
   */
  startedAt: string;
  /**
   * Set when the run's attempts went to `niceeval worker`s through a queue (`--queue`, or
   * NICEEVAL_QUEUE, which its `command` does not show): its `--concurrency` then counted the jobs
   * enqueued at once, not attempts run at once, which a continuation run here must not take.
   */
  queued?: true | undefined;
  /** The shard this run holds (`--shard index/count`), when it holds one. */
  shard?: { index: number; count: number } | undefined;
  /**
   * The `--filter` the run selected its cases with, when it had one (a merged run keeps its
   * shards'). Runs stored before it was kept have it only in `command`: read it with `runFilter`.
   */
  filter?: string | undefined;
  /**
   * The runs a `niceeval merge` made this run from (their ids), so a shard's merged run can be
   * found; merged runs stored before it was kept have only their `command`.
   */
  mergedFrom?: string[] | undefined;
  /** The process writing the run, so a `running` run whose writer died can be told from a live one. */
  writer?: { pid: number; host: string } | undefined;
  /** Eval files that failed to load, and evals left out (known when the run finished): `show` reports them as the run did. */
  loadErrors?: LoadError[] | undefined;
  /**
   * Errors in user code that belonged to no attempt (known when the run finished): they failed
   * the run, and `show` reports them as the run did.
   */
  runErrors?: string[] | undefined;
  /** Each time the run was continued (`--resume`, `--retry-errors`), oldest first. */
  resumes?: ResumeMark[] | undefined;
  /** What had changed when a resume was forced (`--force`): "file evals/a.eval.ts", "eval a's configuration". */
  resumedWithChanges?: string[] | undefined;
  /**
   * Set when the run came into this store by `niceeval import` (it ran elsewhere): when, and
   * whether its export ended before its end line. A run that did not finish is then finished
   * where it ran, exported and imported again, not resumed here.
   */
  imported?: { at: string; cutShort?: true | undefined } | undefined;
  /**
   * How long the run took as its report said it (`RunSummary.elapsedMs`: from its first case to
   * its end, its files' loading aside; a continuation's own), so `show` gives the time the live
   * report gave. Set when the run finishes; absent while it runs and from runs stored before it
   * was kept, whose time `show` reads from their start and end.
   */
  elapsedMs?: number | undefined;
}

/** One continuation of a stored run. */
export interface ResumeMark {
  at: string;
  mode: "resume" | "retry-errors";
  /** Attempts already stored that the continuation kept. */
  kept: number;
  /** Changes it was forced through, when it was. */
  changes?: string[] | undefined;
  /** A retry's own `--timeout`, ms: a `--resume` that finishes the retry keeps it. */
  timeoutMs?: number | undefined;
}

/** Totals of a run, as `runs` lists them. */
export interface RunTotals {
  evals: number;
  cases: number;
  attempts: number;
  passed: number;
  failed: number;
  errored: number;
  skipped: number;
  /**
   * Errored attempts the run's stop cut off (`error.interrupted`), counted in `errored` too: not
   * judged, so in no pass rate. Counted from the stored attempts as the others are, so a run that
   * has no summaries (running, crashed) has it too.
   */
  interrupted: number;
  /** Mean of earned/max over scored attempts, null when none. */
  meanScore: number | null;
  scoredAttempts: number;
}

/** A stored run: its manifest, status and, once finished, its summaries. */
export interface StoredRun extends RunManifest {
  status: RunStatus;
  endedAt?: string;
  /** Per-eval summaries, written when the run finishes. */
  summaries?: EvalSummary[];
  /** Counted from the stored attempts (also while the run is in progress). */
  totals: RunTotals;
}

/** How a run ends. */
export interface RunEnd {
  status: Exclude<RunStatus, "running">;
  /**
   * When the run ended (an ISO 8601 date-time, as `startedAt`); absent when nobody knows (an
   * export cut short before its end line).
   */
  endedAt?: string | undefined;
  summaries: EvalSummary[];
  /**
   * Dataset hashes per eval id, known only once the cases were read; null for an eval whose cases
   * were not all read (the run stopped first): it then has none, and one stored before goes.
   */
  datasetHashes?: Record<string, string | null> | undefined;
  /** Eval files that failed to load, and evals left out: kept in the run's manifest. */
  loadErrors?: LoadError[] | undefined;
  /** Errors in user code that belonged to no attempt: kept in the run's manifest. */
  runErrors?: string[] | undefined;
  /**
   * The run's continuations, replacing the manifest's: an import of an export taken after the
   * run was continued where it ran (the import's `beginRun` keeps the first manifest it stored).
   */
  resumes?: ResumeMark[] | undefined;
  /**
   * How the run came by import, replacing the manifest's (the import's `beginRun` keeps the first
   * manifest it stored): whether the export that ended it here was cut short.
   */
  imported?: RunManifest["imported"];
  /** How long the run took as its report said it (`RunSummary.elapsedMs`), kept in its manifest. */
  elapsedMs?: number | undefined;
}

/** Options of {@link Store.beginRun}. */
export interface BeginRunOptions {
  /**
   * Join the run if it already exists, as one more writer of it (a shard, a worker, another
   * machine): its manifest stays the first writer's, and a writer whose files or eval
   * configurations differ is refused with `RUN_MISMATCH`. Without it, an existing id is `RUN_EXISTS`.
   */
  join?: boolean | undefined;
  /**
   * Continue a stopped run (`--resume`, `--retry-errors`): it is `running` again, its manifest
   * takes this writer's `writer`, `resumes` and `resumedWithChanges`, and files and
   * configurations are not compared (the caller checked them, or was told to go on). A run
   * another live process is writing is refused (`RUN_STILL_RUNNING`) unless `force`.
   */
  resume?: boolean | undefined;
  /** With `resume`: take the run over although its writer seems alive. */
  force?: boolean | undefined;
  /**
   * With `resume`: stored attempts the continuation replaces in any case, moved to the run's
   * history first (as replaced attempts are) and out of its totals. A continuation reads every
   * dataset again, so the errored attempt of one that could not be read goes this way: a read
   * that fails again stores a new one, and one that succeeds leaves none.
   */
  retire?: readonly { evalId: string; caseId: string; trial: number }[] | undefined;
}

/** The key and verdict of a stored attempt, read without its values. */
export interface AttemptKey {
  evalId: string;
  caseId: string;
  trial: number;
  verdict: Verdict;
  /** Errored because the run was stopped while it ran (`error.interrupted`). */
  interrupted?: true;
}

/** An attempt that a later one of the same (eval, case, trial) replaced, kept as history. */
export interface ReplacedAttempt {
  /** When it was replaced (ISO time). */
  replacedAt: string;
  record: AttemptRecord;
}

/** Filters of {@link Store.listRuns}. Newest first. */
export interface RunListQuery {
  limit?: number | undefined;
  /** Only runs that include this eval. */
  evalId?: string | undefined;
  branch?: string | undefined;
  /** Only runs carrying every one of these tags. */
  tags?: Record<string, string> | undefined;
  status?: RunStatus | undefined;
}

/** Filters of {@link Store.queryAttempts}; every field narrows the result. */
export interface AttemptQuery {
  evalId?: string | undefined;
  verdict?: Verdict | readonly Verdict[] | undefined;
  /** Attempts having at least one judgment in this state; with `judgmentLabel`, that label's judgment. */
  judgmentState?: JudgmentState | undefined;
  /**
   * Attempts having a judgment with this label (a scorer id, a check's label); with
   * `judgmentState`, a judgment with this label in that state.
   */
  judgmentLabel?: string | undefined;
  /** Case-insensitive substring search over case id, error message, input, output and judgment reasons. */
  text?: string | undefined;
  /** Default `case`: eval order, then case index, then trial. */
  sort?: "case" | "score" | "elapsed" | "verdict" | undefined;
  order?: "asc" | "desc" | undefined;
  offset?: number | undefined;
  /** Page size (default 100, at most 1000). */
  limit?: number | undefined;
}

/** One page of attempts and how many matched in all. */
export interface AttemptPage {
  total: number;
  items: AttemptRecord[];
}

/**
 * A value too large for the store (above its cap, default 16 MiB) is kept as its first bytes,
 * never silently cut: readers get this marker in its place, and every report shows it.
 */
export interface TruncatedValue {
  "~truncated": true;
  /** Size in bytes of the value's full JSON. */
  bytes: number;
  /** The first bytes of the JSON text. */
  head: string;
}

/**
 * Whether a stored value was truncated: the marker exactly, a `head` shorter than the `bytes` of
 * the whole (a head is the first bytes of the whole, so a UTF-8 byte count above its length). An
 * output of the user's own that has a `~truncated` key (`{ "~truncated": true, bytes: 10, head:
 * "a longer text than ten" }`, or any other key beside them) is a value like another. One made to
 * match the marker exactly cannot be told from it: the stored form marks it no other way.
 */
export function isTruncated(value: unknown): value is TruncatedValue {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const marker = value as Record<string, unknown>;
  const { bytes, head } = marker;
  return (
    marker["~truncated"] === true &&
    Object.keys(marker).length === 3 &&
    typeof head === "string" &&
    Number.isSafeInteger(bytes) &&
    head.length < (bytes as number)
  );
}

/**
 * Where runs live. SQLite is the default backend; every backend passes one test suite
 * (`test/store/store-suite.ts`), so callers never depend on which one they hold.
 * Attempts come back as they were appended, with `trial` and `index` set.
 */
export interface Store {
  /** What this store is, for messages ("sqlite:.niceeval/niceeval.sqlite"). */
  readonly location: string;
  beginRun(manifest: RunManifest, options?: BeginRunOptions): Promise<void>;
  /** Append attempts of a running run; the same (eval, case, trial) twice keeps the last. */
  appendAttempts(runId: string, records: readonly AttemptRecord[]): Promise<void>;
  finishRun(runId: string, end: RunEnd): Promise<void>;
  /** Newest first. */
  listRuns(query?: RunListQuery): Promise<StoredRun[]>;
  getRun(runId: string): Promise<StoredRun | undefined>;
  /** Every attempt of a run in case order (eval order, case index, trial), streamed. */
  streamAttempts(
    runId: string,
    options?: { evalId?: string | undefined },
  ): AsyncIterable<AttemptRecord>;
  queryAttempts(runId: string, query?: AttemptQuery): Promise<AttemptPage>;
  /** The key and verdict of every attempt of a run, streamed in no particular order (cheap: no values). */
  attemptKeys(runId: string): AsyncIterable<AttemptKey>;
  /** Attempts that were replaced by a later one with their key, in case order, then oldest first. */
  attemptHistory(runId: string): AsyncIterable<ReplacedAttempt>;
  close(): Promise<void>;
}
