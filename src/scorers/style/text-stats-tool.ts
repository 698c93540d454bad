import * as z from "zod";
import { plural } from "../../plural.js";
import { type Score, scoreSchema } from "../../score/score.js";
import { fixedDecimals, shownApart } from "../../shown-apart.js";
import { defineTool, implementTool } from "../../tool/index.js";
import { keysChecked, shareSchema } from "../tool-input.js";
import {
  computeTextStats,
  DEFAULT_LENGTH_BAND,
  type LengthBand,
  type TextStats,
} from "./text-stats.js";

const LABEL = "text-stats";
const DEFAULT_MAX_BULLETS_RATIO = 0.02;
const DEFAULT_MIN_FIRST_PERSON_RATIO = 0.6;

const ratio = shareSchema();

const lengthBandShape = { min: z.number().min(0).optional(), max: z.number().min(0).optional() };
const thresholdsShape = {
  /** Highest accepted share of bullet lines (default 0.02). */
  maxBulletsRatio: ratio.optional(),
  /** Lowest accepted share of first-person sentences (default 0.6). */
  minFirstPersonRatio: ratio.optional(),
  /** Accepted mean sentence length in words; missing bounds default to 5 and 30. */
  lengthBand: keysChecked(lengthBandShape).optional(),
};
const inputShape = {
  text: z.string(),
  thresholds: keysChecked(thresholdsShape).optional(),
};

// A misspelt key (`threshold`, `maxBulletRatio`) would leave the defaults silently: refused.
const textStatsInputSchema = keysChecked(inputShape).superRefine((input, context) => {
  const given = input.thresholds?.lengthBand;
  const band = resolveBand(given);
  if (band.min > band.max) {
    // A max left out is the default's: naming it says why a min alone is refused.
    const message =
      given?.max === undefined
        ? `lengthBand.min (${band.min}) is above lengthBand.max (${band.max}, its default); give a max of at least ${band.min}`
        : `lengthBand.min (${band.min}) is above lengthBand.max (${band.max}); give min <= max`;
    context.addIssue({ code: "custom", path: ["thresholds", "lengthBand"], message });
  }
});

/**
 * `eval.text-stats`: style statistics of a French text, gated by the caller's thresholds.
 * Three gates: bulletsRatio <= maxBulletsRatio (0.02), firstPersonRatio >= minFirstPersonRatio
 * (0.6), mean sentence length within lengthBand ({ min: 5, max: 30 } words). The value is
 * the share of gates met (0, 1/3, 2/3 or 1); passed means all three are met. The question
 * rate is reported in the rationale but gates nothing. A misspelt key (`threshold` for
 * `thresholds`) is a ToolInputError that names the key it most likely meant. A text without any sentence (empty, blank
 * or only markers) is unavailable (`unavailable: true`, value 0, passed false, the rationale
 * saying so): a suite records no score for it, never a 0.
 */
export const textStatsTool = defineTool({
  id: "eval.text-stats",
  description:
    "Bullet-line ratio, first-person ratio, question rate and mean sentence length of a French text, gated by caller thresholds.",
  inputSchema: textStatsInputSchema,
  outputSchema: scoreSchema,
});

/**
 * Implementation of {@link textStatsTool}.
 * @example
 * const score = await runTool({
 *   tool: textStatsTool,
 *   candidates: [styleScorersProvider],
 *   input: { text: "Je pense que ceci illustre bien mon propos.", thresholds: { minFirstPersonRatio: 0.5 } },
 * }); // → passed: true
 */
export const textStatsImpl = implementTool(textStatsTool, ({ text, thresholds }): Score => {
  const maxBullets = thresholds?.maxBulletsRatio ?? DEFAULT_MAX_BULLETS_RATIO;
  const minFirstPerson = thresholds?.minFirstPersonRatio ?? DEFAULT_MIN_FIRST_PERSON_RATIO;
  const band = resolveBand(thresholds?.lengthBand);
  const stats = computeTextStats(text, band);
  if (stats.sentenceCount === 0) {
    // Missing evidence is never a zero: nothing was written to measure.
    return {
      value: 0,
      passed: false,
      unavailable: true,
      label: LABEL,
      rationale: "text has no sentence (empty or only markers): nothing to measure",
    };
  }
  const gates = [
    gate(
      stats.bulletsRatio <= maxBullets,
      `bullets ratio ${compared(stats.bulletsRatio, maxBullets)} <= ${bound(maxBullets)}`,
    ),
    gate(
      stats.firstPersonRatio >= minFirstPerson,
      `first-person ratio ${compared(stats.firstPersonRatio, minFirstPerson)} >= ${bound(minFirstPerson)}`,
    ),
    gate(
      stats.inBand,
      `mean sentence length ${meanLength(stats.meanSentenceLength, band)} words in [${band.min}, ${band.max}]`,
    ),
  ];
  const met = gates.filter((g) => g.met).length;
  return {
    value: met / gates.length,
    passed: met === gates.length,
    label: LABEL,
    rationale: `${gates.map((g) => g.text).join("; ")}; ${describe(stats)}`,
  };
});

function resolveBand(
  band: { min?: number | undefined; max?: number | undefined } | undefined,
): LengthBand {
  return { min: band?.min ?? DEFAULT_LENGTH_BAND.min, max: band?.max ?? DEFAULT_LENGTH_BAND.max };
}

function gate(met: boolean, check: string): { met: boolean; text: string } {
  return { met, text: `${check}: ${met ? "met" : "missed"}` };
}

function describe(stats: TextStats): string {
  return `question rate ${fmt(stats.questionRate)} (not gated); ${plural(stats.sentenceCount, "sentence")}, ${plural(stats.lineCount, "line")}`;
}

/** The mean length, in digits that show it on its side of the band's nearer bound. */
function meanLength(mean: number, band: LengthBand): string {
  return shownApart(mean, mean > band.max ? band.max : band.min, fixedDecimals, 1, 20);
}

/** A ratio in digits that show it on its side of its bound: never "0.67 >= 0.67: missed". */
function compared(ratio: number, limit: number): string {
  return shownApart(ratio, limit, fixedDecimals, 2, 20);
}

/** A bound in two decimals, or as many as it needs to read as itself (0.675). */
function bound(limit: number): string {
  return shownApart(limit, limit, fixedDecimals, 2, 20);
}

function fmt(value: number): string {
  return value.toFixed(2);
}
