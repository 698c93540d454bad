import { NiceevalError } from "../errors.js";
import { givenText, givenTyped } from "../eval/timeout.js";
import { type KnownKeys, unknownKeysIn } from "../known-keys.js";
import type { BeginRunOptions } from "./types.js";

const optionKeys = {
  join: true,
  resume: true,
  force: true,
  retire: true,
} satisfies KnownKeys<BeginRunOptions>;

/**
 * The options of `beginRun`, checked as `queryAttempts`' and `listRuns`' are: a misspelt key
 * (`{ joinn: true }`) would be ignored, and a second writer then refused as if the run were
 * someone else's (`RUN_EXISTS`); a flag given as a string would count as set. A USAGE error names
 * the option, what it got and what it takes.
 */
export function checkBeginRunOptions(options: BeginRunOptions | undefined): void {
  if (options === undefined) return;
  if (typeof options !== "object" || options === null || Array.isArray(options))
    throw bad(
      `options must be an object ({ join, resume, force, retire }) when given, got ${givenText(options)}`,
    );
  const unknown = unknownKeysIn(options, optionKeys, "options");
  if (unknown !== undefined) throw bad(unknown);
  for (const key of ["join", "resume", "force"] as const) {
    const value = options[key];
    if (value !== undefined && typeof value !== "boolean")
      throw bad(`options.${key} must be true or false when given, got ${givenTyped(value)}`);
  }
  const { retire } = options;
  if (retire === undefined) return;
  if (!Array.isArray(retire))
    throw bad(
      `options.retire must be an array of { evalId, caseId, trial } when given, got ${givenText(retire)}`,
    );
  for (const [i, key] of retire.entries()) {
    const k = key as { evalId?: unknown; caseId?: unknown; trial?: unknown } | null;
    if (
      typeof k !== "object" ||
      k === null ||
      typeof k.evalId !== "string" ||
      typeof k.caseId !== "string" ||
      !(Number.isInteger(k.trial) && (k.trial as number) >= 0)
    )
      throw bad(
        `options.retire[${i}] must be { evalId, caseId, trial } (two strings and a whole number from 0), got ${givenText(key)}`,
      );
  }
}

const bad = (problem: string) => new NiceevalError("USAGE", `beginRun: ${problem}`);
