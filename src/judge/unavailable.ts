import { NiceevalError } from "../errors.js";

/** Why a judge could not give a verdict. */
export type JudgeUnavailableKind = "unconfigured" | "failed" | "malformed";

/**
 * A judge could not give a verdict: no key or endpoint configured, calls that finally failed,
 * or answers that stayed malformed. Never a score of 0: runners report the judgment unavailable.
 */
export class JudgeUnavailableError extends NiceevalError {
  readonly kind: JudgeUnavailableKind;
  readonly model: string;
  readonly reason: string;
  constructor(
    kind: JudgeUnavailableKind,
    model: string,
    reason: string,
    /** `role`: what the model was asked as (default "judge"; "embedding model"). */
    options?: { cause?: unknown; role?: string | undefined },
  ) {
    super(
      "JUDGE_UNAVAILABLE",
      `${options?.role ?? "judge"} "${model}" unavailable: ${reason}`,
      options?.cause !== undefined ? { cause: options.cause } : undefined,
    );
    this.name = "JudgeUnavailableError";
    this.kind = kind;
    this.model = model;
    this.reason = reason;
  }
}

/** Whether a thrown value means "the judge could not decide" (report unavailable, not errored). */
export function isJudgeUnavailable(error: unknown): error is JudgeUnavailableError {
  try {
    return (
      error instanceof JudgeUnavailableError ||
      // Another copy of niceeval in the process throws its own class: match on the code.
      (error instanceof Error && (error as Partial<NiceevalError>).code === "JUDGE_UNAVAILABLE")
    );
  } catch {
    // A value that throws when asked what it is (a Proxy whose traps throw) is none of niceeval's.
    return false;
  }
}
