import type {
  JudgeUsage,
  Judgment,
  ScoreSummary,
  UnpricedJudgeUsage,
  Verdict,
} from "../eval/record.js";
import { roundPoints } from "../eval/summarize.js";
import { joinWords, plural } from "../plural.js";
import { hasActing, visible } from "../visible.js";
import type { Palette } from "./output.js";

/** A number with at most `digits` decimals, without trailing zeros. */
export function formatNumber(value: number, digits = 3): string {
  // A whole number (a point, a count) is its own rounding while value * 10^digits stays exact.
  if (Number.isInteger(value) && Math.abs(value) < 1e9 && digits <= 6) return String(value);
  // A value too large to scale (1e308 points) is shown as it is, not as a rounding's Infinity.
  return String(roundPoints(value, 10 ** digits));
}

export function formatMs(ms: number): string {
  // A run that never ended (crashed, killed) has no duration to show.
  if (Number.isNaN(ms)) return "unknown";
  // Under a second there are about 1,100 texts (hundredths under 1 ms, whole ms above): kept.
  if (ms >= 0 && ms < 1) {
    const hundredths = Math.round(ms * 100);
    const text = SUB_MS[hundredths] ?? `${String(hundredths / 100)} ms`;
    SUB_MS[hundredths] = text;
    return text;
  }
  if (ms < 1) return `${formatNumber(ms, 2)} ms`;
  if (ms < 1000) {
    const whole = Math.round(ms);
    const text = WHOLE_MS[whole] ?? `${whole} ms`;
    WHOLE_MS[whole] = text;
    return text;
  }
  return `${formatNumber(ms / 1000, 2)} s`;
}

/** formatMs's texts of 0–1 ms by hundredths, and of 1–1000 ms by whole ms, as they are made. */
const SUB_MS: (string | undefined)[] = [];
const WHOLE_MS: (string | undefined)[] = [];

export function verdictMark(verdict: Verdict, c: Palette): string {
  switch (verdict) {
    case "passed":
      return c.green("✓");
    case "failed":
      return c.red("✗");
    case "errored":
      return c.magenta("!");
    case "skipped":
      return c.yellow("-");
  }
}

export function judgmentMark(judgment: Judgment, c: Palette): string {
  switch (judgment.state) {
    case "matched":
      return c.green("✓");
    case "mismatched":
      return judgment.gate ? c.red("✗") : c.yellow("✗");
    case "unavailable":
      return c.yellow("?");
    case "errored":
      return c.magenta("!");
  }
}

/** "gate", "5 pts" or "gate · 5 pts". */
export function judgmentRole(judgment: Judgment): string {
  // The common roles, without building them for every judgment.
  if (judgment.points === 1) return judgment.gate ? "gate · 1 pt" : "1 pt";
  if (judgment.points === 0) return judgment.gate ? "gate" : "info";
  const parts: string[] = [];
  if (judgment.gate) parts.push("gate");
  if (judgment.points > 0)
    parts.push(`${formatNumber(judgment.points)} pt${judgment.points === 1 ? "" : "s"}`);
  return parts.length ? parts.join(" · ") : "info";
}

/** "3.5/10 partial" style text for a score summary. */
export function formatScore(score: ScoreSummary): string {
  if (score.max === 0) return "no points";
  if (score.state === "unavailable") return `unavailable (max ${formatNumber(score.max)})`;
  const text = `${formatNumber(score.earned)}/${formatNumber(score.max)}`;
  return score.state === "partial" ? `≥ ${text} partial` : `${text} complete`;
}

export function formatJudgeUsage(usage: JudgeUsage): string {
  if (usage.calls === 0 && usage.cachedCalls === 0) return "no judge calls";
  const parts = [
    plural(usage.calls, "call"),
    `${usage.cachedCalls} cached`,
    judgeTokensText(usage),
  ];
  if (usage.retries) parts.push(usage.retries === 1 ? "1 retry" : `${usage.retries} retries`);
  const cost = judgeCostText(usage);
  if (cost !== undefined) parts.push(cost);
  return parts.join(", ");
}

/**
 * The tokens of judge calls in words: "240 in / 60 out tokens"; when some answers reported no
 * usage, a lower bound that says so, "≥ 120 in / ≥ 30 out tokens (usage not reported by 1 call)",
 * or "tokens unknown (usage not reported by 2 calls)" when none reported any: never a silent 0.
 */
export function judgeTokensText(usage: JudgeUsage): string {
  const { inputTokens, outputTokens, unreportedCalls } = usage;
  if (!unreportedCalls) return `${inputTokens} in / ${outputTokens} out tokens`;
  const why = `(usage not reported by ${plural(unreportedCalls, "call")})`;
  if (inputTokens + outputTokens === 0) return `tokens unknown ${why}`;
  return `≥ ${inputTokens} in / ≥ ${outputTokens} out tokens ${why}`;
}

/** Unpriced models named in a cost's words; the JSON keeps more. */
const SHOWN_UNPRICED = 3;

/**
 * The cost of judge calls in words (the console's and the viewer's): "$0.0008"; "≥ $0.0008, 4
 * calls unpriced (add openai/gpt-5 to configureJudges({ prices }))" when the price table had no
 * price for some calls, "cost unknown, …" when it had none for any. Calls whose usage was not
 * reported make it a lower bound too ("≥ $0.0008"), or "cost unknown" when no reported token was
 * priced (with or without a table: their cost is not known). Undefined without a price table
 * otherwise: no cost is claimed.
 */
export function judgeCostText(usage: JudgeUsage): string | undefined {
  const { costUsd, unpriced, unreportedCalls } = usage;
  if (costUsd === undefined && !unpriced && !unreportedCalls) return undefined;
  // The priced calls' cost: a lower bound when some calls are left out of it.
  const partial = unpriced !== undefined || (unreportedCalls ?? 0) > 0;
  const cost =
    costUsd === undefined ? "cost unknown" : `${partial ? "≥ " : ""}$${formatNumber(costUsd, 4)}`;
  if (!unpriced) return cost;
  return `${cost}, ${plural(unpriced.calls, "call")} unpriced (add ${unpricedModels(unpriced)} to configureJudges({ prices }))`;
}

function unpricedModels({ models }: UnpricedJudgeUsage): string {
  if (models.length <= SHOWN_UNPRICED) return joinWords(models);
  return `${models.slice(0, SHOWN_UNPRICED).join(", ")} and ${models.length - SHOWN_UNPRICED} more`;
}

/** Collapse a reason onto one line, bounded so a giant reason cannot flood the report. */
export function oneLine(text: string, max = 400): string {
  const flat = text.includes("\n") ? text.replace(/\s*\n\s*/g, " ⏎ ") : text;
  const shown = shownControls(flat);
  if (shown.length <= max) return shown;
  // Cut between characters: an emoji's first half alone is half a character, which UTF-8 cannot
  // hold (a JSON reader's string that cannot be written out again).
  const end = isHighSurrogate(shown.charCodeAt(max - 2)) ? max - 2 : max - 1;
  return `${shown.slice(0, end)}…`;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * Text that keeps its lines (a JUnit failure's body): its colour sequences dropped, a CR LF or a
 * lone CR read as a line break, and its other controls shown as {@link oneLine} shows them.
 */
export function shownLines(text: string): string {
  return shownControls(text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text);
}

/** `text` with its colour sequences dropped and its other acting characters shown (src/visible.ts). */
const shownControls = (text: string): string =>
  hasActing(text) ? visible(text.replace(ANSI_SEQUENCE, "")) : text;

// A colour or cursor sequence is dropped whole (its text is styling); other controls, and
// bidirectional ones, are shown (src/visible.ts): text from the code under test must not drive
// the terminal nor reorder what it shows.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ESC is the point
const ANSI_SEQUENCE = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

/** The word a report gives an eval's kind: "suite", "score", or "pass/fail" (`adapter.defineEval`). */
export function evalWord(info: { style: "suite" | "score"; passFail?: true }): string {
  return info.passFail ? "pass/fail" : info.style;
}
