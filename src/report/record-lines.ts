// The lines of the console report that come once per record: a case's line, and one per judgment.
// They are put together in place from parts encoded once they are seen again: the mark of a
// verdict, what follows a case's name for its verdict and score, and a judgment line up to its
// reason, or whole. What is seen once is written as text, as it would be without parts.
import type { AttemptRecord, Judgment } from "../eval/record.js";
import { attemptName } from "./failures.js";
import {
  formatMs,
  formatNumber,
  formatScore,
  judgmentMark,
  judgmentRole,
  oneLine,
  verdictMark,
} from "./format.js";
import { type LineWriter, type Palette, type Part, part } from "./output.js";

/** A verdict's mark and what follows a case's name for its last score (a part once seen twice). */
interface CaseLineMemo {
  head: Part;
  state: string;
  earned: number;
  max: number;
  restText: string;
  rest: Part | undefined;
}

/** What a judgment line is made of, its head, and its last reason (parts once seen twice). */
interface JudgmentLineMemo {
  label: string;
  state: Judgment["state"];
  gate: boolean;
  points: number;
  earned: number | null;
  value: number | null | undefined;
  cachedCalls: boolean;
  headText: string;
  head: Part | undefined;
  reason: string;
  line: Part | undefined;
}

/** The memos of one place in a case's judgments, and the one to write over next. */
interface LinePlace {
  memos: JudgmentLineMemo[];
  oldest: number;
}

/** Places of judgments in a case whose lines are kept, and how many lines per place. */
const MAX_LINE_PLACES = 256;
const MEMOS_PER_PLACE = 4;

const NEWLINE = part("\n");

/** Writes the case and judgment lines of records to `out`, reusing what repeats. */
export class RecordLines {
  private readonly dimOpen: string;
  private readonly caseTail: Part;
  private readonly caseMemos = new Map<string, CaseLineMemo>();
  private readonly places: LinePlace[] = [];

  constructor(
    private readonly out: LineWriter,
    private readonly c: Palette,
  ) {
    const dimmed = c.dim("x");
    this.dimOpen = dimmed.slice(0, dimmed.indexOf("x"));
    this.caseTail = part(`${dimmed.slice(dimmed.indexOf("x") + 1)}\n`);
  }

  /** `  ✓ case-1 passed · 4/4 complete · 3 ms`, naming the trial when its eval has `trials`. */
  caseLine(record: AttemptRecord, trials: number | undefined): void {
    const { out, c } = this;
    const { verdict, score } = record;
    let memo = this.caseMemos.get(verdict);
    if (memo === undefined) {
      memo = {
        head: part(`  ${verdictMark(verdict, c)} `),
        state: "",
        earned: Number.NaN,
        max: Number.NaN,
        restText: "",
        rest: undefined,
      };
      this.caseMemos.set(verdict, memo);
    }
    // The score of a case like the one before it with its verdict (most of a dataset's) is kept.
    let rest: Part | undefined;
    if (score.state !== memo.state || score.earned !== memo.earned || score.max !== memo.max) {
      memo.restText = ` ${c.dim(verdict)} · ${formatScore(score)} ${this.dimOpen}· `;
      memo.state = score.state;
      memo.earned = score.earned;
      memo.max = score.max;
      memo.rest = undefined;
    } else {
      memo.rest ??= part(memo.restText);
      rest = memo.rest;
    }
    out.putPart(memo.head);
    out.putText(attemptName(record, trials));
    if (rest !== undefined) out.putPart(rest);
    else out.putText(memo.restText);
    out.putText(formatMs(record.elapsedMs));
    out.putPart(this.caseTail);
    out.endLine();
  }

  /**
   * The line of the judgment at place `at` of its case. One like one of the last few at its place
   * (most of a dataset's) is reused: its head when all but the reason is alike, the whole line
   * when the reason is too.
   */
  judgmentLine(judgment: Judgment, at: number): void {
    const { out } = this;
    const cachedCalls = (judgment.judge?.cachedCalls ?? 0) > 0;
    let place = this.places[at];
    if (place === undefined && at < MAX_LINE_PLACES) {
      place = { memos: [], oldest: 0 };
      this.places[at] = place;
    }
    const memo = place && findMemo(place, judgment, cachedCalls);
    if (memo === undefined) {
      const headText = judgmentHead(judgment, cachedCalls, this.c);
      if (place !== undefined) remember(place, judgment, cachedCalls, headText);
      out.line(headText + oneLine(judgment.reason));
      return;
    }
    if (memo.reason === judgment.reason) {
      // The same line again: worth encoding once.
      memo.line ??= part(`${memo.headText}${oneLine(judgment.reason)}\n`);
      out.putPart(memo.line);
      out.endLine();
      return;
    }
    const reason = oneLine(judgment.reason);
    memo.reason = judgment.reason;
    memo.line = undefined;
    memo.head ??= part(memo.headText);
    out.putPart(memo.head);
    out.putText(reason);
    out.putPart(NEWLINE);
    out.endLine();
  }
}

/** The memo of `place` whose line is this judgment's but for the reason. */
function findMemo(
  place: LinePlace,
  judgment: Judgment,
  cachedCalls: boolean,
): JudgmentLineMemo | undefined {
  for (const m of place.memos)
    if (
      m.label === judgment.label &&
      m.state === judgment.state &&
      m.gate === judgment.gate &&
      m.points === judgment.points &&
      m.earned === judgment.earned &&
      m.value === judgment.value &&
      m.cachedCalls === cachedCalls
    )
      return m;
  return undefined;
}

/** Keep this judgment's line at `place`: a place keeps a few; past them, the oldest is written over. */
function remember(place: LinePlace, judgment: Judgment, cachedCalls: boolean, headText: string) {
  const memo: JudgmentLineMemo = {
    label: judgment.label,
    state: judgment.state,
    gate: judgment.gate,
    points: judgment.points,
    earned: judgment.earned,
    value: judgment.value,
    cachedCalls,
    headText,
    head: undefined,
    reason: judgment.reason,
    line: undefined,
  };
  const { memos } = place;
  if (memos.length < MEMOS_PER_PLACE) {
    memos.push(memo);
    return;
  }
  memos[place.oldest] = memo;
  place.oldest = (place.oldest + 1) % MEMOS_PER_PLACE;
}

/** A judgment line up to its reason: mark, label, role, points, value, cached. */
function judgmentHead(judgment: Judgment, cachedCalls: boolean, c: Palette): string {
  const points =
    judgment.points > 0
      ? judgment.earned === null
        ? `—/${formatNumber(judgment.points)}`
        : `${formatNumber(judgment.earned)}/${formatNumber(judgment.points)}`
      : judgment.state;
  const value =
    judgment.value !== undefined &&
    judgment.value !== null &&
    (judgment.earned === null ||
      Math.abs(judgment.value * judgment.points - judgment.earned) > 1e-9)
      ? ` value ${formatNumber(judgment.value)}`
      : "";
  const cached = cachedCalls ? c.dim(" [cached]") : "";
  // A label made from data may hold a line break, which would start a line of its own (in CI, one
  // the runner reads as a workflow command): it is kept on the judgment's line.
  return `      ${judgmentMark(judgment, c)} ${oneLine(judgment.label, 200)} ${c.dim(`(${judgmentRole(judgment)})`)} ${points}${value}${cached} ${c.dim("—")} `;
}
