import * as z from "zod";
import type { CaseSpec } from "../eval/runnable.js";
import { hashValue } from "../store/hash.js";

/** The BullMQ queue niceeval uses unless `--queue-name` says otherwise. */
export const DEFAULT_QUEUE_NAME = "niceeval";
/** BullMQ job name of an attempt. */
export const ATTEMPT_JOB = "attempt";

/** What a worker needs to find and run one attempt; the record comes back as the job's result. */
export const attemptJobSchema = z.object({
  /** Schema version of this payload. */
  v: z.literal(1),
  runId: z.string().min(1),
  evalId: z.string().min(1),
  caseId: z.string(),
  caseIndex: z.number().int(),
  trial: z.number().int().nonnegative(),
  /** The eval's file as the run saw it: a worker with another hash refuses the job. */
  file: z.object({ path: z.string(), hash: z.string() }).optional(),
  /** Every eval file of the run with its hash (the manifest's). */
  files: z.array(z.object({ path: z.string(), hash: z.string() })),
  /**
   * Hashes of the case's input, expected and metadata as the run read them: a worker whose case
   * at this index has the same id but other content (a dataset read from a file, a database or
   * the environment that differs between machines) refuses the job.
   */
  content: z.object({ input: z.string(), expected: z.string(), metadata: z.string() }).optional(),
  /**
   * The run's git commit, when it ran in a checkout: a worker in a checkout of another commit
   * refuses the job, since what the eval files import may differ although their hashes agree.
   */
  commit: z.string().optional(),
  timeoutMs: z.number().positive().optional(),
  keepOutput: z.boolean().optional(),
});

/** One attempt as a queue job's data. */
export type AttemptJobData = z.infer<typeof attemptJobSchema>;

/**
 * The job id of an attempt: run, eval, case and trial, so enqueueing the same attempt again is a
 * no-op. Ids are percent-encoded (BullMQ ids may not contain ":").
 */
export function attemptJobId(runId: string, evalId: string, caseId: string, trial: number): string {
  return [runId, evalId, caseId, String(trial)].map(encodeURIComponent).join("/");
}

/** The parts of a case whose content a job carries, and its hash of each (see `content`). */
export function caseContent(spec: CaseSpec): NonNullable<AttemptJobData["content"]> {
  return {
    input: hashValue(spec.input),
    expected: hashValue(spec.expected),
    metadata: hashValue(spec.metadata),
  };
}
