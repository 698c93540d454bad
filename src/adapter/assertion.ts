import { AuthoringError } from "../errors.js";
import type { JudgeUsage, Judgment, JudgmentState } from "../eval/record.js";
import { roundPoints } from "../eval/summarize.js";
import { givenText, givenTyped } from "../eval/timeout.js";
import type { JudgeWait } from "../judge/ledger.js";
import type { TestLifetime } from "./lifetime.js";
import type { AssertionHandle } from "./types.js";

/** How an assertion came out, before gate and points are applied. */
export interface Outcome {
  state: JudgmentState;
  /** 0..1 when decided (matched 1, mismatched 0, a ratio, a judged value); null otherwise. */
  value: number | null;
  reason: string;
  detail?: unknown;
  judge?: JudgeUsage;
}

/** What an eval allows: score evals take gates and points, pass/fail evals gates only. */
export interface AssertionRules {
  readonly evalId: string;
  readonly passFail: boolean;
  /** The attempt's test(t): a handle changed after it ended would not reach the record. */
  readonly lifetime: TestLifetime;
}

/** The kind of assertion: a condition (check, closeQA) or a graded ratio (t.score). */
export type AssertionKind = "condition" | "ratio";

/** One assertion made in test(t): its outcome and the gate, points and label set on its handle. */
export class Assertion implements AssertionHandle {
  /** A judged assertion's judge calls in flight: what a time limit that cuts it off names. */
  judgeWaits: ReadonlySet<JudgeWait> | undefined;
  #gate: boolean | undefined;
  #points: number | undefined;
  #label: string | undefined;

  constructor(
    readonly source: string,
    readonly defaultLabel: string,
    readonly kind: AssertionKind,
    readonly outcome: Outcome | Promise<Outcome>,
    private readonly rules: AssertionRules,
    weight?: number,
  ) {
    this.#points = weight;
  }

  gate(): AssertionHandle {
    this.running("gate", this.gate);
    this.once("gate", this.#gate);
    if (this.kind === "ratio") {
      this.refuse(
        "gate",
        "t.score(...) grades a ratio and cannot be a gate; gate on a condition instead, e.g. t.check(value, atLeast(x)).gate()",
      );
    }
    this.#gate = true;
    return this;
  }

  score(points: number): AssertionHandle {
    this.running("score", this.score);
    if (this.kind === "ratio") {
      this.refuse(
        "score",
        "t.score(...) already earns its points from { weight }; change the weight instead",
      );
    }
    if (this.rules.passFail) {
      this.refuse(
        "score",
        "this eval was made with defineEval (pass/fail only); use defineScoreEval to award points",
      );
    }
    this.once("score", this.#points);
    if (typeof points !== "number" || !Number.isFinite(points) || points <= 0) {
      this.refuse("score", `points must be a finite number > 0, got ${givenTyped(points)}`);
    }
    this.#points = points;
    return this;
  }

  label(text: string): AssertionHandle {
    this.running("label", this.label);
    this.once("label", this.#label);
    if (typeof text !== "string" || text.trim() === "") {
      this.refuse("label", `the label must be a non-empty string, got ${givenText(text)}`);
    }
    this.#label = text;
    return this;
  }

  /** The label shown in reports. */
  get name(): string {
    return this.#label ?? this.defaultLabel;
  }

  /** The judgment: gate and points applied; unavailable or errored earns null, never 0. */
  toJudgment(outcome: Outcome): Judgment {
    const points = this.#points ?? 0;
    const decided = outcome.state === "matched" || outcome.state === "mismatched";
    const judgment: Judgment = {
      label: this.name,
      source: this.source,
      state: outcome.state,
      gate: this.#gate ?? this.rules.passFail,
      points,
      earned: decided && outcome.value !== null ? roundPoints(outcome.value * points, 1e9) : null,
      value: decided ? outcome.value : null,
      // A user's match result may come without a reason: its state stands in, as the summary's does.
      reason:
        typeof outcome.reason === "string"
          ? outcome.reason
          : String(outcome.reason ?? outcome.state),
    };
    if (outcome.detail !== undefined) judgment.detail = outcome.detail;
    if (outcome.judge !== undefined) judgment.judge = outcome.judge;
    return judgment;
  }

  private running(method: string, api: (...args: never[]) => unknown): void {
    this.rules.lifetime.assertRunning(
      `.${method}() on assertion "${this.name}" (${this.source})`,
      api,
    );
  }

  private once(method: string, current: unknown): void {
    if (current === undefined || (method === "score" && this.kind === "ratio")) return;
    throw new AuthoringError(
      `.${method}() was called twice on assertion "${this.name}" (${this.source}) in eval "${this.rules.evalId}"; call gate(), score(points) and label(text) at most once each`,
    );
  }

  private refuse(method: string, why: string): never {
    throw new AuthoringError(
      `.${method}() on assertion "${this.name}" (${this.source}) in eval "${this.rules.evalId}": ${why}`,
    );
  }
}
