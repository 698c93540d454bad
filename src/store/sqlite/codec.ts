import { errorMessage } from "../../errors.js";
import {
  type AppUsage,
  type AttemptRecord,
  emptyJudgeUsage,
  type JudgeUsage,
  type Judgment,
  type JudgmentState,
  type ScoreSummary,
  unreportedUsage,
  type Verdict,
} from "../../eval/record.js";
import { JUDGMENT_STATE_CODE, SCORE_STATE_CODE, VERDICT_CODE } from "./schema.js";

// Compact on-disk form of an attempt: queried facts in columns, the rest as short-keyed JSON
// with default and empty fields left out, so a 4-scorer attempt stays well under 1 KB.

/** Label, source, gate and points of a judgment (one row of `judgment_kinds`). */
export interface JudgmentKind {
  label: string;
  source: string;
  gate: boolean;
  points: number;
}

/** A judgment as stored: `k` kind id, `s` state code (absent: matched), `e` earned (absent: = points). */
interface StoredJudgment {
  k: number;
  s?: number;
  e?: number | null;
  v?: number | null;
  /** Inline detail, or `D`: the blob id of a large one. */
  d?: unknown;
  D?: number;
  u?: JudgeUsage;
}

/** Fields of a record that are neither columns nor judgments; absent when all are default. */
interface StoredRest {
  c?: string;
  /** Score reasons. */
  r?: string[];
  u?: { app: AppUsage; judge: JudgeUsage };
  sk?: string;
}

/** A value column: inline JSON text, an integer blob id, or null when the record had none. */
export type ValueCell = string | number | null;

/** Columns of one `attempts` row (without `rid`, `ev`, which the store fills). */
export interface AttemptRow {
  case_index: number;
  trial: number;
  case_id: string;
  verdict: number;
  score_state: number;
  earned: number;
  max: number;
  elapsed_ms: number;
  judgment_states: number;
  kinds: string;
  error: string | null;
  judgments: string;
  reasons: string | null;
  rest: string | null;
  input: ValueCell;
  expected: ValueCell;
  metadata: ValueCell;
  output: ValueCell;
  trace: ValueCell;
}

/** The columns of {@link AttemptRow}, in the order the stores write and read them. */
export const ATTEMPT_COLUMNS = [
  "case_index",
  "trial",
  "case_id",
  "verdict",
  "score_state",
  "earned",
  "max",
  "elapsed_ms",
  "judgment_states",
  "kinds",
  "error",
  "judgments",
  "reasons",
  "rest",
  "input",
  "expected",
  "metadata",
  "output",
  "trace",
] as const satisfies readonly (keyof AttemptRow)[];

/** What encoding needs from the store: a kind id, and a place for a value's JSON. */
export interface EncodeContext {
  kindId(kind: JudgmentKind): number;
  /** Inline JSON text for a small value, a blob id for a large one. */
  putValue(json: string): string | number;
}

/** What decoding needs from the store. */
export interface DecodeContext {
  kind(id: number): JudgmentKind;
  blob(id: number): unknown;
}

const VERDICTS = invert(VERDICT_CODE);
const SCORE_STATES = invert(SCORE_STATE_CODE);
const JUDGMENT_STATES = invert(JUDGMENT_STATE_CODE);

function invert<K extends string>(codes: Record<K, number>): K[] {
  const names: K[] = [];
  for (const [name, code] of Object.entries(codes) as [K, number][]) names[code] = name;
  return names;
}

/** JSON text of a value, or undefined for none; a value JSON cannot hold becomes a described marker. */
export function toJson(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  try {
    return JSON.stringify(value);
  } catch (error) {
    return JSON.stringify({ "~unserializable": errorMessage(error) });
  }
}

function cell(value: unknown, context: EncodeContext): ValueCell {
  const json = toJson(value);
  return json === undefined ? null : context.putValue(json);
}

function isDefaultUsage(usage: AttemptRecord["usage"]): boolean {
  const { app, judge } = usage;
  const unreported = (e: AppUsage[keyof AppUsage]) =>
    e.state === "unavailable" && e.reason === "usage-unreported" && Object.keys(e).length === 2;
  return (
    Object.keys(usage).length === 2 &&
    Object.keys(app).length === 4 &&
    unreported(app.inputTokens) &&
    unreported(app.outputTokens) &&
    unreported(app.totalTokens) &&
    unreported(app.costUsd) &&
    Object.keys(judge).length === 6 &&
    judge.calls === 0 &&
    judge.cachedCalls === 0 &&
    judge.retries === 0 &&
    judge.inputTokens === 0 &&
    judge.outputTokens === 0 &&
    judge.latencyMs === 0
  );
}

/** The row of one record; `index` is the case's position (the store decides it when absent). */
export function encodeAttempt(
  record: AttemptRecord,
  index: number,
  context: EncodeContext,
): AttemptRow {
  const kinds = new Set<number>();
  let states = 0;
  const judgments = record.judgments.map((j): StoredJudgment => {
    const k = context.kindId({ label: j.label, source: j.source, gate: j.gate, points: j.points });
    kinds.add(k);
    const code = JUDGMENT_STATE_CODE[j.state];
    states |= 1 << code;
    const stored: StoredJudgment = { k };
    if (code !== 0) stored.s = code;
    if (j.earned !== j.points) stored.e = j.earned;
    if (j.value !== undefined) stored.v = j.value;
    const detail = toJson(j.detail);
    if (detail !== undefined) {
      const put = context.putValue(detail);
      if (typeof put === "number") stored.D = put;
      else stored.d = JSON.parse(detail);
    }
    if (j.judge) stored.u = j.judge;
    return stored;
  });
  const rest: StoredRest = {};
  if (record.cluster !== undefined) rest.c = record.cluster;
  if (record.score.reasons.length > 0) rest.r = record.score.reasons;
  if (!isDefaultUsage(record.usage)) rest.u = record.usage;
  if (record.skipReason !== undefined) rest.sk = record.skipReason;
  return {
    case_index: index,
    trial: record.trial ?? 0,
    case_id: record.caseId,
    verdict: VERDICT_CODE[record.verdict],
    score_state: SCORE_STATE_CODE[record.score.state],
    earned: record.score.earned,
    max: record.score.max,
    elapsed_ms: record.elapsedMs,
    judgment_states: states,
    kinds: `,${[...kinds].join(",")}${kinds.size ? "," : ""}`,
    error: record.error ? JSON.stringify(record.error) : null,
    judgments: JSON.stringify(judgments),
    reasons: record.judgments.length ? JSON.stringify(record.judgments.map((j) => j.reason)) : null,
    rest: Object.keys(rest).length ? JSON.stringify(rest) : null,
    input: cell(record.input, context),
    expected: cell(record.expected, context),
    metadata: cell(record.metadata, context),
    output: cell(record.output, context),
    trace: cell(record.trace, context),
  };
}

/**
 * What text queries scan per attempt: case id and the text of the input and output (their
 * strings and numbers, up to {@link SEARCH_VALUE_CHARS} each; a larger value is also searched in
 * its blob), lower-cased once here. Reasons have their own index (`reasons.ts`).
 */
export function searchText(record: AttemptRecord): string {
  const parts = [record.caseId];
  for (const value of [record.input, record.output]) {
    const text: string[] = [];
    leafText(value, text, { left: SEARCH_VALUE_CHARS });
    if (text.length) parts.push(text.join(" "));
  }
  return parts.join("\n").toLowerCase();
}

/** The blob ids of a row's input and output, searched by text queries; null when both are inline. */
export function searchBlobs(row: AttemptRow): string | null {
  const ids = [row.input, row.output].filter((c) => typeof c === "number");
  return ids.length ? ids.join(",") : null;
}

/** Characters of one value's text kept in the search column. */
export const SEARCH_VALUE_CHARS = 1024;

function leafText(value: unknown, into: string[], budget: { left: number }): void {
  if (budget.left <= 0) return;
  if (typeof value === "string") {
    into.push(value.slice(0, budget.left));
    budget.left -= value.length;
  } else if (typeof value === "number" || typeof value === "boolean") {
    const text = String(value);
    into.push(text);
    budget.left -= text.length;
  } else if (Array.isArray(value)) {
    for (const item of value) leafText(item, into, budget);
  } else if (typeof value === "object" && value !== null) {
    for (const item of Object.values(value)) leafText(item, into, budget);
  }
}

function readCell(value: ValueCell, context: DecodeContext): unknown {
  if (value === null) return undefined;
  if (typeof value === "number") return context.blob(value);
  return JSON.parse(value);
}

/** The record a row was made from (JSON-equal to what was appended), with `trial` and `index` set. */
export function decodeAttempt(
  row: AttemptRow,
  evalId: string,
  context: DecodeContext,
): AttemptRecord {
  const reasons = row.reasons ? (JSON.parse(row.reasons) as string[]) : [];
  const stored = JSON.parse(row.judgments) as StoredJudgment[];
  const judgments = stored.map((s, i): Judgment => {
    const kind = context.kind(s.k);
    const judgment: Judgment = {
      label: kind.label,
      source: kind.source,
      state: JUDGMENT_STATES[s.s ?? 0] as JudgmentState,
      gate: kind.gate,
      points: kind.points,
      earned: s.e === undefined ? kind.points : s.e,
      reason: reasons[i] ?? "",
    };
    if (s.v !== undefined) judgment.value = s.v;
    if (s.D !== undefined) judgment.detail = context.blob(s.D);
    else if ("d" in s) judgment.detail = s.d;
    if (s.u) judgment.judge = s.u;
    return judgment;
  });
  const rest = row.rest ? (JSON.parse(row.rest) as StoredRest) : {};
  const score: ScoreSummary = {
    state: SCORE_STATES[row.score_state] as ScoreSummary["state"],
    earned: row.earned,
    max: row.max,
    reasons: rest.r ?? [],
  };
  const record: AttemptRecord = {
    evalId,
    caseId: row.case_id,
    trial: row.trial,
    index: row.case_index,
    verdict: VERDICTS[row.verdict] as Verdict,
    score,
    judgments,
    usage: rest.u ?? { app: unreportedUsage(), judge: emptyJudgeUsage() },
    elapsedMs: row.elapsed_ms,
  };
  if (rest.c !== undefined) record.cluster = rest.c;
  if (row.error !== null)
    record.error = JSON.parse(row.error) as NonNullable<AttemptRecord["error"]>;
  if (rest.sk !== undefined) record.skipReason = rest.sk;
  const output = readCell(row.output, context);
  if (output !== undefined) record.output = output;
  const input = readCell(row.input, context);
  if (input !== undefined) record.input = input;
  const expected = readCell(row.expected, context);
  if (expected !== undefined) record.expected = expected;
  const metadata = readCell(row.metadata, context);
  if (metadata !== undefined) record.metadata = metadata as Record<string, unknown>;
  const trace = readCell(row.trace, context);
  if (trace !== undefined) record.trace = trace as NonNullable<AttemptRecord["trace"]>;
  return record;
}
