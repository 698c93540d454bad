// Numbers as the web app shows them; no DOM here, so the tests compare them with the CLI's.
import { plural } from "../../src/plural.js";

/** A share as a percentage to one place, or a dash. */
export const pct = (x: number | null | undefined): string =>
  x === null || x === undefined ? "\u2014" : `${(100 * x).toFixed(1)}%`;

/** A number to `digits` places, rounded as the CLI's reports round it (half up, not toFixed's binary ties). */
export const num = (x: number | null | undefined, digits = 3): string =>
  x === null || x === undefined
    ? "\u2014"
    : (Math.round(x * 10 ** digits) / 10 ** digits).toFixed(digits);

/**
 * A mean score as the CLI's reports show it: "≥ 0.902" when `partial` of the scores in it were
 * partial (judgments without evidence kept in max), which makes it a lower bound.
 */
export const meanText = (
  x: number | null | undefined,
  partial: number | null | undefined,
): string => `${x !== null && x !== undefined && partial ? "\u2265 " : ""}${num(x)}`;

/**
 * A sample size as the CLI writes it: "n=42", and with trials, the cases the interval beside it
 * counts, "n=42 (14 cases)".
 */
export const sizeText = (n: number, cases: number | null | undefined): string =>
  `n=${n}${cases !== null && cases !== undefined && cases < n ? ` (${plural(cases, "case")})` : ""}`;

/**
 * An attempt's time in milliseconds as the CLI's reports round it (`formatMs` under a second):
 * hundredths under 1 ms, whole milliseconds above, so a 0.19 ms attempt is not shown as 0.
 */
export const msNumber = (ms: number): string =>
  String(ms < 1 ? Math.round(ms * 100) / 100 : Math.round(ms));
