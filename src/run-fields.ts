import { NiceevalError } from "./errors.js";
import { givenText } from "./eval/timeout.js";
import { visible } from "./visible.js";

/**
 * Checks of what names and dates a run, for `runEvals`' options and a store's write API: a run
 * id that is empty would be listed, compared and resolved as no id at all, and a start time that
 * is not a date-time would sort anywhere among the runs (`latest` is the newest by it).
 */

/**
 * Refuse a run id that is not a string or is empty (or blank): `where` names the field
 * (`runEvals: options.runId`), `advice` what to do instead.
 */
export function checkRunId(value: unknown, where: string, advice: string): asserts value is string {
  if (typeof value === "string" && value.trim() !== "") return;
  const what = value === "" ? "an empty string" : givenText(value);
  throw new NiceevalError(
    "USAGE",
    `${where} must be a non-empty string naming the run, got ${what}; ${advice}`,
  );
}

// Control characters (line breaks and tabs too), the Unicode line and paragraph separators, and
// the bidirectional controls: a run name holding one breaks the line runs, show and compare print
// it on, or drives the terminal, and cannot be typed to refer to the run.
const NOT_ONE_LINE_CHARS = String.raw`\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029`;
const NOT_ONE_LINE = new RegExp(`[${NOT_ONE_LINE_CHARS}]`);

/**
 * What is wrong with a run name, or undefined when it is text on one line: the first character
 * that is not, by its code point and place, the name quoted with it escaped.
 */
export function runNameProblem(name: string): string | undefined {
  const found = NOT_ONE_LINE.exec(name);
  if (!found) return undefined;
  const code = found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
  const at = Array.from(name.slice(0, found.index)).length + 1;
  return `must be text on one line without control characters: ${visible(JSON.stringify(name))} holds U+${code} at character ${at}`;
}

// Extended format, a time zone required (a local time would read differently on each machine).
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * An ISO 8601 date-time with a time zone (`2025-01-31T09:30:00.000Z`, `…T10:30:00+01:00`), as
 * `toISOString` writes it in UTC, so that text order is time order; a USAGE error naming `where`
 * for anything else (a date alone, no time zone, a day the month does not have).
 */
export function isoDateTime(value: unknown, where: string): string {
  const ms = typeof value === "string" ? timeOf(value) : undefined;
  if (ms === undefined)
    throw new NiceevalError(
      "USAGE",
      `${where} must be an ISO 8601 date-time with a time zone, such as "2025-01-31T09:30:00.000Z" (new Date().toISOString()), got ${givenText(value)}`,
    );
  return new Date(ms).toISOString();
}

const YEAR_0 = new Date(0).setUTCFullYear(0, 0, 1);
const YEAR_10000 = new Date(0).setUTCFullYear(10000, 0, 1);

/** The time a date-time names, ms since the epoch; undefined when it names none. */
function timeOf(text: string): number | undefined {
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m
    .slice(1, 7)
    .map((part) => Number(part ?? 0)) as [number, number, number, number, number, number];
  const at = new Date(0);
  // Not Date.UTC, which reads years 0 to 99 as 1900 to 1999.
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCHours(hour, minute, second, 0);
  // A date carries over (February 30th is March 1st, 24:00 the next day): such a date is not one.
  if (
    at.getUTCFullYear() !== year ||
    at.getUTCMonth() !== month - 1 ||
    at.getUTCDate() !== day ||
    at.getUTCHours() !== hour ||
    at.getUTCMinutes() !== minute ||
    at.getUTCSeconds() !== second
  )
    return undefined;
  // Milliseconds, as toISOString keeps them: finer digits are dropped.
  const fraction = m[7] === undefined ? 0 : Number(`${m[7]}00`.slice(0, 3));
  if (m[8] !== "Z" && (Number(m[10]) > 23 || Number(m[11]) > 59)) return undefined;
  const offset =
    m[8] === "Z" ? 0 : (m[9] === "-" ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) * 60_000;
  const ms = at.getTime() + fraction - offset;
  // What toISOString writes with four digits of year (an offset can carry past either end).
  return ms >= YEAR_0 && ms < YEAR_10000 ? ms : undefined;
}
