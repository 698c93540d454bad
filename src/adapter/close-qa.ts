import { Buffer } from "node:buffer";
import { AuthoringError, errorMessage } from "../errors.js";
import type { MaterialMatch } from "../expect/context-match.js";
import type { MatchFact } from "../expect/types.js";
import { type JudgeWait, withJudgeLedger } from "../judge/ledger.js";
import type { CloseQAAnswer, CloseQAJudge } from "../judge/types.js";
import type { Outcome } from "./assertion.js";
import type { CloseQAMaterial, CloseQAOptions } from "./types.js";

/** Default limits of t.closeQA. */
export const closeQADefaults = Object.freeze({
  maxMaterialBytes: 256 * 1024,
  maxAuditBytes: 1024 * 1024,
});

/** The limits a t.closeQA question runs under: its options, each left out (or undefined) defaulted. */
export type CloseQALimits = { [K in keyof CloseQAOptions]-?: number };

/** Validate closeQA options where they are written (an authoring error otherwise). */
export function closeQALimits(where: string, options: CloseQAOptions | undefined): CloseQALimits {
  const limits = { ...closeQADefaults };
  for (const key of ["maxMaterialBytes", "maxAuditBytes"] as const) {
    // A limit given as undefined is one left out: its default holds.
    const value = options?.[key] ?? closeQADefaults[key];
    limits[key] = value;
    if (!Number.isInteger(value) || value <= 0) {
      throw new AuthoringError(
        `${where}: ${key} must be a whole number of bytes > 0, got ${String(value)}`,
      );
    }
  }
  return limits;
}

type Text =
  | { ok: true; text: string; items?: number }
  | { ok: false; reason: string; detail?: unknown };

/** The material as text, or why it cannot be asked about. Partial material is never judged. */
function materialText<Facts>(facts: Facts, material: CloseQAMaterial<Facts>): Text {
  if (typeof material === "string") return { ok: true, text: material };
  if ("kind" in material && material.kind === "material-match") {
    const selection = (material as MaterialMatch<Facts, unknown>).select(facts);
    if (selection.state === "unavailable")
      return { ok: false, reason: selection.reason, detail: selection.result };
    if (selection.state === "partial") {
      return {
        ok: false,
        reason: `material incomplete: ${selection.reason}`,
        detail: selection.result,
      };
    }
    if (selection.items.length === 0) {
      return {
        ok: false,
        reason: `no material selected: ${selection.result.reason}`,
        detail: selection.result,
      };
    }
    try {
      return { ok: true, text: JSON.stringify(selection.items), items: selection.items.length };
    } catch (error) {
      return { ok: false, reason: `material cannot be serialised: ${errorMessage(error)}` };
    }
  }
  const fact = material as MatchFact<string>;
  if (fact.state === "unavailable") return { ok: false, reason: fact.reason };
  if (typeof fact.value !== "string") return { ok: false, reason: "material fact is not a string" };
  return { ok: true, text: fact.value };
}

/**
 * Ask `judge` a closed question over the material. satisfied → 1, not-satisfied → 0,
 * insufficient or unavailable → unavailable; judge tokens are captured per judgment.
 */
export async function askCloseQA<Facts>(
  facts: Facts,
  material: CloseQAMaterial<Facts>,
  question: string,
  limits: CloseQALimits,
  judge: CloseQAJudge | undefined,
  signal: AbortSignal,
  /** Where the judge calls in flight are kept, for the time limit's error. */
  waits?: Set<JudgeWait>,
): Promise<Outcome> {
  const read = materialText(facts, material);
  if (!read.ok)
    return {
      state: "unavailable",
      value: null,
      reason: read.reason,
      detail: { question, material: read.detail },
    };
  const bytes = Buffer.byteLength(read.text, "utf8");
  const about = {
    question,
    material: { bytes, ...(read.items !== undefined ? { items: read.items } : {}) },
  };
  if (bytes > limits.maxMaterialBytes) {
    return {
      state: "unavailable",
      value: null,
      reason: `capacity-limited: material is ${bytes} bytes, over maxMaterialBytes ${limits.maxMaterialBytes}`,
      detail: about,
    };
  }
  if (!judge) {
    return {
      state: "unavailable",
      value: null,
      reason:
        "judge-unconfigured: no closeQA judge is configured; set NICEEVAL_JUDGE_MODEL (with its provider key or NICEEVAL_JUDGE_BASE_URL), pass `judge` to the eval, or call setDefaultCloseQAJudge",
      detail: about,
    };
  }
  let answer: CloseQAAnswer;
  let usage: Outcome["judge"];
  try {
    const asked = await withJudgeLedger(
      () => judge({ material: read.text, question, signal, maxAuditBytes: limits.maxAuditBytes }),
      undefined,
      waits,
    );
    answer = asked.result;
    if (answer === null || typeof answer !== "object")
      return {
        state: "errored",
        value: null,
        reason: `closeQA judge answered ${answer === null ? "null" : typeof answer}, not { state, reason }: a CloseQAJudge resolves to a CloseQAAnswer`,
        detail: about,
      };
    usage = asked.usage.calls > 0 || !answer.usage ? asked.usage : answer.usage;
  } catch (error) {
    return {
      state: "errored",
      value: null,
      reason: `closeQA judge threw: ${errorMessage(error)}`,
      detail: about,
    };
  }
  const detail = { ...about, audit: boundedAudit(answer.audit, limits.maxAuditBytes) };
  const base = { reason: answer.reason, detail, ...(usage ? { judge: usage } : {}) };
  switch (answer.state) {
    case "satisfied":
      return { state: "matched", value: 1, ...base };
    case "not-satisfied":
      return { state: "mismatched", value: 0, ...base };
    case "insufficient":
      return {
        state: "unavailable",
        value: null,
        ...base,
        reason: `insufficient: ${answer.reason}`,
      };
    case "unavailable":
      return { state: "unavailable", value: null, ...base };
    default:
      return {
        state: "errored",
        value: null,
        ...base,
        reason: `closeQA judge answered an unknown state ${JSON.stringify((answer as { state?: unknown }).state)}`,
      };
  }
}

/** The audit as given, or an explicit marker when it is larger than allowed (never cut silently). */
function boundedAudit(audit: unknown, maxAuditBytes: number): unknown {
  if (audit === undefined) return undefined;
  let bytes: number;
  try {
    bytes = Buffer.byteLength(JSON.stringify(audit) ?? "", "utf8");
  } catch (error) {
    return { dropped: `audit cannot be serialised: ${errorMessage(error)}` };
  }
  return bytes > maxAuditBytes
    ? { dropped: `capacity-limited: audit is ${bytes} bytes, over maxAuditBytes ${maxAuditBytes}` }
    : audit;
}
