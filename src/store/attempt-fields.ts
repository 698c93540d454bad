import { NiceevalError } from "../errors.js";
import type { AttemptRecord } from "../eval/record.js";
import { givenText, givenTyped } from "../eval/timeout.js";
import { QUERY_JUDGMENT_STATES, QUERY_VERDICTS } from "./attempt-query.js";

/**
 * What `appendAttempts` checks of each record before a backend encodes it: the fields the
 * encoders read as they are and the codes the tables take. A record built by hand (an importer,
 * a runner of one's own) missing one, or holding another type there, is a USAGE error naming the
 * record, its eval and case, and the field, before anything of the batch is written, rather than
 * a TypeError from an encoder or a constraint failure reported as a niceeval bug. A few typeof
 * checks per record: 100,000 records take about 10 ms.
 */
export function checkAttemptRecords(records: readonly AttemptRecord[]): void {
  if (!Array.isArray(records))
    throw new NiceevalError(
      "USAGE",
      `appendAttempts: records must be an array of attempt records, got ${givenText(records)}`,
    );
  for (let i = 0; i < records.length; i++) {
    const record = records[i];
    const problem = recordProblem(record);
    if (problem !== undefined)
      throw new NiceevalError(
        "USAGE",
        `appendAttempts: records[${i}]${whose(record)} ${problem}; see the AttemptRecord type for what each field holds (the records runEvals gives reporters are such records)`,
      );
  }
}

const VERDICTS: ReadonlySet<unknown> = new Set(QUERY_VERDICTS);
const SCORE_STATES: ReadonlySet<unknown> = new Set(["complete", "partial", "unavailable"]);
const JUDGMENT_STATES: ReadonlySet<unknown> = new Set(QUERY_JUDGMENT_STATES);

/** " (eval "a", case "c1")" for a record that says which it is, else "". */
function whose(record: unknown): string {
  const r = record as { evalId?: unknown; caseId?: unknown; trial?: unknown } | null;
  if (typeof r !== "object" || r === null) return "";
  const named: string[] = [];
  if (typeof r.evalId === "string") named.push(`eval ${givenText(r.evalId)}`);
  if (typeof r.caseId === "string") named.push(`case ${givenText(r.caseId)}`);
  if (isWhole(r.trial) && r.trial !== 0) named.push(`trial ${r.trial}`);
  return named.length > 0 ? ` (${named.join(", ")})` : "";
}

/** What is wrong with one record, as "field must …, got …"; undefined when nothing is. */
function recordProblem(record: unknown): string | undefined {
  if (typeof record !== "object" || record === null || Array.isArray(record))
    return `must be an attempt record (an object), got ${givenText(record)}`;
  const r = record as Record<string, unknown>;
  if (typeof r.evalId !== "string" || r.evalId === "")
    return `evalId must be a non-empty string, got ${givenText(r.evalId)}`;
  if (typeof r.caseId !== "string") return `caseId must be a string, got ${givenTyped(r.caseId)}`;
  if (r.trial !== undefined && !isWhole(r.trial))
    return `trial must be a whole number from 0 when given, got ${givenTyped(r.trial)}`;
  if (r.index !== undefined && r.index !== null && !isWhole(r.index))
    return `index must be a whole number from 0 when given, got ${givenTyped(r.index)}`;
  if (!VERDICTS.has(r.verdict))
    return `verdict must be "passed", "failed", "errored" or "skipped", got ${givenText(r.verdict)}`;
  if (!(typeof r.elapsedMs === "number" && r.elapsedMs >= 0 && r.elapsedMs < Infinity))
    return `elapsedMs must be a finite number of milliseconds from 0, got ${givenTyped(r.elapsedMs)}`;
  return scoreProblem(r.score) ?? judgmentsProblem(r.judgments) ?? restProblem(r);
}

function scoreProblem(score: unknown): string | undefined {
  const s = score as Record<string, unknown> | null;
  if (typeof s !== "object" || s === null)
    return `score must be { state, earned, max, reasons }, got ${givenText(score)}`;
  if (!SCORE_STATES.has(s.state))
    return `score.state must be "complete", "partial" or "unavailable", got ${givenText(s.state)}`;
  if (!isFiniteNumber(s.earned))
    return `score.earned must be a finite number, got ${givenTyped(s.earned)}`;
  if (!isFiniteNumber(s.max)) return `score.max must be a finite number, got ${givenTyped(s.max)}`;
  if (!Array.isArray(s.reasons) || !s.reasons.every((reason) => typeof reason === "string"))
    return `score.reasons must be an array of strings ([] for none), got ${givenText(s.reasons)}`;
  return undefined;
}

function judgmentsProblem(judgments: unknown): string | undefined {
  if (!Array.isArray(judgments))
    return `judgments must be an array ([] for none), got ${givenText(judgments)}`;
  for (let j = 0; j < judgments.length; j++) {
    const judgment = judgments[j] as Record<string, unknown> | null;
    if (typeof judgment !== "object" || judgment === null)
      return `judgments[${j}] must be a judgment (an object), got ${givenText(judgment)}`;
    if (typeof judgment.label !== "string")
      return `judgments[${j}].label must be a string, got ${givenTyped(judgment.label)}`;
    if (typeof judgment.source !== "string")
      return `judgments[${j}].source must be a string, got ${givenTyped(judgment.source)}`;
    if (!JUDGMENT_STATES.has(judgment.state))
      return `judgments[${j}].state must be "matched", "mismatched", "unavailable" or "errored", got ${givenText(judgment.state)}`;
    if (typeof judgment.gate !== "boolean")
      return `judgments[${j}].gate must be true or false, got ${givenTyped(judgment.gate)}`;
    if (!isFiniteNumber(judgment.points))
      return `judgments[${j}].points must be a finite number, got ${givenTyped(judgment.points)}`;
    if (judgment.earned !== null && !isFiniteNumber(judgment.earned))
      return `judgments[${j}].earned must be a finite number, or null where evidence was missing, got ${givenTyped(judgment.earned)}`;
  }
  return undefined;
}

/** The usage, and the error when there is one (null counts as none, as the encoders read it). */
function restProblem(r: Record<string, unknown>): string | undefined {
  const usage = r.usage as Record<string, unknown> | null;
  if (typeof usage !== "object" || usage === null)
    return `usage must be { app, judge } (what the application and its judges used), got ${givenText(usage)}`;
  for (const part of ["app", "judge"] as const)
    if (typeof usage[part] !== "object" || usage[part] === null)
      return `usage.${part} must be an object, got ${givenText(usage[part])}`;
  const error = r.error as Record<string, unknown> | null | undefined;
  if (error === undefined || error === null) return undefined;
  if (typeof error !== "object")
    return `error must be { message, where } when there is one, got ${givenText(error)}`;
  if (typeof error.message !== "string")
    return `error.message must be a string, got ${givenTyped(error.message)}`;
  return undefined;
}

const isWhole = (value: unknown): boolean => Number.isInteger(value) && (value as number) >= 0;
const isFiniteNumber = (value: unknown): boolean =>
  typeof value === "number" && Number.isFinite(value);
