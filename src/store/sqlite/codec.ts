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
import { safeStringify, wellFormedJson, wellFormedText } from "../../json-safe.js";
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
export interface StoredJudgment {
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

/** Columns per attempt (those of {@link ATTEMPT_COLUMNS}). */
export const COLUMNS = ATTEMPT_COLUMNS.length;
const column = (name: (typeof ATTEMPT_COLUMNS)[number]) => ATTEMPT_COLUMNS.indexOf(name);
// Positions of columns in a row's cells.
export const CASE_INDEX = column("case_index");
export const TRIAL = column("trial");
export const CASE_ID = column("case_id");
export const VERDICT = column("verdict");
export const SCORE_STATE = column("score_state");
export const EARNED = column("earned");
export const MAX = column("max");
export const ERROR = column("error");
export const JUDGMENTS = column("judgments");
export const REASONS = column("reasons");
export const INPUT = column("input");
export const OUTPUT = column("output");
export const TRACE = column("trace");
// After the columns in an {@link EncodedBatch}: the search text, the eval (an index into
// `evalIds`), and 1 when a value or detail is too large to be inline (the append writes its blob;
// a large detail waits inline in the judgments cell, which the append then rewrites).
export const SEARCH = COLUMNS;
export const EVAL = COLUMNS + 1;
export const LARGE = COLUMNS + 2;
/** Cells per attempt in an {@link EncodedBatch}. */
export const STRIDE = COLUMNS + 3;

/** One cell of an encoded batch: text, a number or null. */
export type Cell = string | number | null;

/**
 * Attempts encoded for appending, as primitives only: a worker thread gets a copy of them far
 * cheaper than of the records (structured clone of flat strings and numbers). `cells` holds
 * {@link STRIDE} cells per attempt; a large value is still its JSON text, and a judgment's large
 * detail is still inline in its judgments cell.
 */
export interface EncodedBatch {
  evalIds: string[];
  cells: Cell[];
}

/** What encoding needs from the store: a kind id, and a place for a value's JSON. */
export interface EncodeContext {
  /** The id of a judgment's kind (its label, source, gate and points; nothing else is read). */
  kindId(kind: JudgmentKind): number;
  /** Inline JSON text for a small value, a blob id for a large one. */
  putValue(json: string): string | number;
  /**
   * Where the judgments cells encoded last are kept, when kind ids cannot change between calls
   * (one store's): a suite's next record mostly has the same judgments but for their reasons.
   */
  memo?: JudgmentsMemo;
}

/**
 * The judgments of the record encoded last with their `kinds`, `judgment_states` and
 * `judgments` cells. Only judgments without detail or judge usage, whose value (if any) is not an
 * object, are kept: their cells follow from their kind, state, earned points and value alone.
 */
export interface JudgmentsMemo {
  /** What the cells depend on, copied (a judgment read later may have been changed since). */
  list: readonly MemoJudgment[] | undefined;
  kinds: string;
  states: number;
  judgments: string;
}

type MemoJudgment = Pick<Judgment, "label" | "source" | "gate" | "points" | "state" | "earned"> & {
  value: Judgment["value"] | undefined;
};

/** A memo for {@link EncodeContext.memo}. */
export const judgmentsMemo = (): JudgmentsMemo => ({
  list: undefined,
  kinds: "",
  states: 0,
  judgments: "",
});

/** Whether `list` has the memo's judgments, as far as the cells depend on them. */
function sameCells(memo: JudgmentsMemo, list: readonly Judgment[]): boolean {
  const last = memo.list;
  if (last === undefined || last.length !== list.length) return false;
  for (let i = 0; i < list.length; i++) {
    const a = list[i]!;
    const b = last[i]!;
    if (
      a.label !== b.label ||
      a.source !== b.source ||
      a.gate !== b.gate ||
      !Object.is(a.points, b.points) ||
      a.state !== b.state ||
      !Object.is(a.earned, b.earned) ||
      !Object.is(a.value, b.value) ||
      !memoable(a)
    )
      return false;
  }
  return true;
}

const memoable = (j: Judgment) =>
  (typeof j.value !== "object" || j.value === null) &&
  j.detail === undefined &&
  j.judge === undefined;

/** What decoding needs from the store. */
export interface DecodeContext {
  kind(id: number): JudgmentKind;
  blob(id: number): unknown;
  /** The text a judgments or reasons cell stands for, where repeated ones are shared. */
  shared?(cell: string): string;
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
  // As the JSON report writes it: a Map as its entries, a Set as an array, a BigInt, a cycle or a
  // throwing getter as a marker in its place, never the whole value lost.
  // A lone surrogate as U+FFFD, as the JSON reports write it, so the store and reports agree.
  return value === undefined ? undefined : wellFormedJson(safeStringify(value));
}

function cell(value: unknown, context: EncodeContext): ValueCell {
  const json = toJson(value);
  return json === undefined ? null : context.putValue(json);
}

function isDefaultUsage(usage: AttemptRecord["usage"]): boolean {
  const { app, judge } = usage;
  const unreported = (e: AppUsage[keyof AppUsage]) =>
    e.state === "unavailable" && e.reason === "usage-unreported" && keyCount(e) === 2;
  return (
    keyCount(usage) === 2 &&
    keyCount(app) === 4 &&
    unreported(app.inputTokens) &&
    unreported(app.outputTokens) &&
    unreported(app.totalTokens) &&
    unreported(app.costUsd) &&
    keyCount(judge) === 6 &&
    judge.calls === 0 &&
    judge.cachedCalls === 0 &&
    judge.retries === 0 &&
    judge.inputTokens === 0 &&
    judge.outputTokens === 0 &&
    judge.latencyMs === 0
  );
}

/** Enumerable keys of an object, counted without the array of `Object.keys` (inherited ones too, so never fewer). */
function keyCount(value: object): number {
  let count = 0;
  for (const _ in value) count++;
  return count;
}

/** The row of one record; `index` is the case's position (the store decides it when absent). */
export function encodeAttempt(
  record: AttemptRecord,
  index: number,
  context: EncodeContext,
): AttemptRow {
  const cells: Cell[] = [];
  encodeColumns(record, cells, 0, context);
  const row = {} as Record<string, unknown>;
  ATTEMPT_COLUMNS.forEach((c, i) => {
    row[c] = cells[i];
  });
  row.case_index = index;
  return row as unknown as AttemptRow;
}

/**
 * The {@link ATTEMPT_COLUMNS} of one record, written into `out` from `at` in that order (no row
 * object per record: a batch's rows can share one array). `case_index` is `record.index`, or null
 * when absent (the store decides it).
 */
export function encodeColumns(
  record: AttemptRecord,
  out: Cell[],
  at: number,
  context: EncodeContext,
): void {
  const list = record.judgments;
  const { memo } = context;
  let kinds: string;
  let states: number;
  let judgments: string;
  if (memo !== undefined && sameCells(memo, list)) {
    ({ kinds, states, judgments } = memo);
  } else {
    ({ kinds, states, judgments } = judgmentCells(list, context));
    if (memo !== undefined) {
      memo.list = list.every(memoable)
        ? list.map(({ label, source, gate, points, state, earned, value }) => ({
            label,
            source,
            gate,
            points,
            state,
            earned,
            value,
          }))
        : undefined;
      memo.kinds = kinds;
      memo.states = states;
      memo.judgments = judgments;
    }
  }
  let reasons = "[";
  for (let i = 0; i < list.length; i++) {
    if (i > 0) reasons += ",";
    reasons += reasonJson(i, list[i]!.reason);
  }
  const rest: StoredRest = {};
  let hasRest = false;
  if (record.cluster !== undefined) {
    rest.c = record.cluster;
    hasRest = true;
  }
  if (record.score.reasons.length > 0) {
    rest.r = record.score.reasons;
    hasRest = true;
  }
  if (!isDefaultUsage(record.usage)) {
    rest.u = record.usage;
    hasRest = true;
  }
  if (record.skipReason !== undefined) {
    rest.sk = record.skipReason;
    hasRest = true;
  }
  out[at] = record.index ?? null;
  out[at + 1] = record.trial ?? 0;
  out[at + 2] = wellFormedText(record.caseId);
  out[at + 3] = VERDICT_CODE[record.verdict];
  out[at + 4] = SCORE_STATE_CODE[record.score.state];
  out[at + 5] = record.score.earned;
  out[at + 6] = record.score.max;
  out[at + 7] = record.elapsedMs;
  out[at + 8] = states;
  out[at + 9] = kinds;
  out[at + 10] = record.error ? wellFormedJson(JSON.stringify(record.error)) : null;
  out[at + 11] = judgments;
  out[at + 12] = list.length > 0 ? wellFormedJson(`${reasons}]`) : null;
  out[at + 13] = hasRest ? wellFormedJson(JSON.stringify(rest)) : null;
  out[at + 14] = cell(record.input, context);
  out[at + 15] = cell(record.expected, context);
  out[at + 16] = cell(record.metadata, context);
  out[at + 17] = cell(record.output, context);
  out[at + 18] = cell(record.trace, context);
}

/** The `kinds`, `judgment_states` and `judgments` cells of a record's judgments. */
function judgmentCells(list: readonly Judgment[], context: EncodeContext) {
  let kinds = ",";
  let states = 0;
  // Built as text: faster than an object per judgment and JSON.stringify of the list.
  let judgments = "[";
  for (let i = 0; i < list.length; i++) {
    const j = list[i]!;
    const k = context.kindId(j);
    if (!kinds.includes(`,${k},`)) kinds += `${k},`;
    const code = JUDGMENT_STATE_CODE[j.state];
    states |= 1 << code;
    let stored = i === 0 ? `{"k":${k}` : `,{"k":${k}`;
    if (code !== 0) stored += `,"s":${code}`;
    if (j.earned !== j.points) stored += member("e", j.earned);
    if (j.value !== undefined) stored += member("v", j.value);
    const detail = toJson(j.detail);
    if (detail !== undefined) {
      const put = context.putValue(detail);
      stored += typeof put === "number" ? `,"D":${put}` : `,"d":${detail}`;
    }
    if (j.judge) stored += member("u", j.judge);
    judgments += `${stored}}`;
  }
  return { kinds, states, judgments: wellFormedJson(`${judgments}]`) };
}

// The reason last seen at each judgment position, and its JSON: a suite's scorers repeat a few
// reasons, and a string compares faster than it is escaped.
const lastReasons: string[] = [];
const lastReasonJson: string[] = [];

/** A reason as JSON.stringify writes it in a list. */
function reasonJson(position: number, reason: unknown): string {
  if (typeof reason !== "string") return JSON.stringify(reason) ?? "null";
  if (lastReasons[position] === reason) return lastReasonJson[position]!;
  const json = JSON.stringify(reason);
  if (position < 32) {
    lastReasons[position] = reason;
    lastReasonJson[position] = json;
  }
  return json;
}

/** `,"key":value` as JSON.stringify writes a member, or nothing for a value it leaves out. */
function member(key: string, value: unknown): string {
  const json =
    typeof value === "number" && Number.isFinite(value) ? String(value) : JSON.stringify(value);
  return json === undefined ? "" : `,"${key}":${json}`;
}

/**
 * What text queries scan per attempt: case id, the message of the error the attempt ended with
 * (a target that threw), and the text of the input and output (their strings and numbers, up to
 * {@link SEARCH_VALUE_CHARS} each; a larger value is also searched in its blob), lower-cased once
 * here. Reasons have their own index (`reasons.ts`). Rows written before the error was added are
 * read as they are; their error is not searched.
 */
export function searchText(record: AttemptRecord): string {
  let text = record.caseId;
  if (record.error) text += `\n${record.error.message.slice(0, SEARCH_VALUE_CHARS)}`;
  for (let i = 0; i < 2; i++) {
    leaves.text = "";
    leaves.count = 0;
    leaves.left = SEARCH_VALUE_CHARS;
    try {
      leafText(i === 0 ? record.input : record.output, 0);
    } catch {
      // A getter or a proxy of the code under test threw: the text read so far is searched.
    }
    if (leaves.count > 0) text += `\n${leaves.text}`;
  }
  return wellFormedText(text).toLowerCase();
}

/** The blob ids of a row's input and output, searched by text queries; null when both are inline. */
export function searchBlobs(row: Pick<AttemptRow, "input" | "output">): string | null {
  const { input, output } = row;
  if (typeof input === "number")
    return typeof output === "number" ? `${input},${output}` : `${input}`;
  return typeof output === "number" ? `${output}` : null;
}

/** Characters of one value's text kept in the search column. */
export const SEARCH_VALUE_CHARS = 1024;

/** The value text {@link leafText} is building: its leaves joined by spaces, and what is left of the budget. */
const leaves = { text: "", count: 0, left: 0 };

/** Nesting read for the search text: deeper leaves (and cycles) are not searched. */
const SEARCH_DEPTH = 32;

function leafText(value: unknown, depth: number): void {
  if (leaves.left <= 0 || depth > SEARCH_DEPTH) return;
  if (typeof value === "string") {
    leaf(value.length > leaves.left ? value.slice(0, leaves.left) : value, value.length);
  } else if (typeof value === "number" || typeof value === "boolean") {
    const text = String(value);
    leaf(text, text.length);
  } else if (Array.isArray(value) || ArrayBuffer.isView(value)) {
    // Item by item until the budget is spent: a typed array (a 100 MB buffer) read whole through
    // Object.values would be 100 million numbers, a long array walked to its end as long.
    const items = value as unknown as ArrayLike<unknown>;
    for (let i = 0; i < items.length && leaves.left > 0; i++) leafText(items[i], depth + 1);
  } else if (typeof value === "object" && value !== null) {
    for (const item of Object.values(value)) leafText(item, depth + 1);
  }
}

function leaf(text: string, length: number): void {
  leaves.text = leaves.count++ === 0 ? text : `${leaves.text} ${text}`;
  leaves.left -= length;
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
  const judgments = readJudgments(row, readReasons(row, context), context);
  const rest = readRest(row);
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
  const error = readError(row);
  if (error !== undefined) record.error = error;
  // Text, also as an earlier niceeval may have stored it (t.skip took any value then).
  if (rest.sk !== undefined) record.skipReason = String(rest.sk);
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

/** A judgments or reasons cell's text: the cell itself, or the shared text it names. */
const cellText = (cell: string, context: DecodeContext) =>
  context.shared ? context.shared(cell) : cell;

function readReasons(row: AttemptRow, context: DecodeContext): string[] {
  return row.reasons ? (JSON.parse(cellText(row.reasons, context)) as string[]) : [];
}

function readJudgments(row: AttemptRow, reasons: string[], context: DecodeContext): Judgment[] {
  const stored = JSON.parse(cellText(row.judgments, context)) as StoredJudgment[];
  return stored.map((s, i): Judgment => {
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
}

const readRest = (row: AttemptRow): StoredRest =>
  row.rest ? (JSON.parse(row.rest) as StoredRest) : {};

const readError = (row: AttemptRow): AttemptRecord["error"] =>
  row.error === null ? undefined : (JSON.parse(row.error) as AttemptRecord["error"]);

/** Reads one cell of a row as {@link decodeAttempt} does. */
type CellRead = (row: AttemptRow, context: DecodeContext) => unknown;

/** The cells {@link decodeAttempt} reads, by column, each read on its own. */
const CELL_READS: readonly [string, CellRead][] = [
  ["reasons", readReasons],
  ["judgments", (row, context) => readJudgments(row, [], context)],
  ["rest", readRest],
  ["error", readError],
  ...(["input", "expected", "metadata", "output", "trace"] as const).map(
    (column): [string, CellRead] => [column, (row, context) => readCell(row[column], context)],
  ),
];

/**
 * The first cell of a row that does not decode, and why. Asked only once {@link decodeAttempt}
 * threw (a file damaged or edited by hand), so the rows that decode pay nothing for it.
 */
export function undecodableCell(
  row: AttemptRow,
  context: DecodeContext,
): { column: string; why: string } | undefined {
  for (const [column, read] of CELL_READS) {
    try {
      read(row, context);
    } catch (error) {
      return { column, why: errorMessage(error) };
    }
  }
  return undefined;
}
