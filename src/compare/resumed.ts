import { joinWords, plural } from "../plural.js";
import type { StoredRun } from "../store/types.js";
import type { ComparabilityWarning, Side } from "./types.js";

// A run resumed with --force after its evals changed (`resumedWithChanges` in its manifest: the
// continuation refused without --force, src/resume/check.ts) holds attempts of the evals as they
// were and as they became: its manifest keeps the configuration it started with, so nothing else
// tells a comparison, `show` or `runs` that its figures mix two versions of those evals.

/** What changed when the run was resumed with --force ("file evals/a.eval.ts (eval a)"), if anything. */
export const resumedChanges = (run: Pick<StoredRun, "resumedWithChanges">): readonly string[] =>
  run.resumedWithChanges ?? [];

/**
 * The evals a forced resume's changes are about, in the run's order: those of a changed file,
 * and those whose configuration changed, that are new or no longer found. Read from the changes'
 * words (src/resume/check.ts) against the run's own eval ids and files, so an id is never guessed.
 */
export function changedEvals(run: Pick<StoredRun, "evals" | "resumedWithChanges">): string[] {
  const changes = resumedChanges(run);
  return run.evals
    .filter((e) =>
      changes.some(
        (change) =>
          (e.file !== undefined && change.startsWith(`file ${e.file} (`)) ||
          change.startsWith(`eval ${e.evalId}'s configuration`) ||
          change.startsWith(`eval ${e.evalId} is new (`) ||
          change === `eval ${e.evalId} is no longer found`,
      ),
    )
    .map((e) => e.evalId);
}

/** The evals as a message names them: `eval "beta"`, `evals "a" and "b"`; "its evals" when unknown. */
function evalsText(evals: readonly string[]): string {
  if (evals.length === 0) return "its evals";
  return `${evals.length === 1 ? "eval" : "evals"} ${joinWords(evals.map((id) => `"${id}"`))}`;
}

/**
 * What a run resumed with changes is, in words, for `show` and `compare`: `resumed with --force
 * after its evals changed (file evals/beta.eval.ts (eval beta); eval beta's configuration), so
 * eval "beta" holds attempts of both versions`.
 */
export function resumedText(run: Pick<StoredRun, "evals" | "resumedWithChanges">): string {
  const changes = resumedChanges(run);
  const shown = changes.slice(0, 5).join("; ");
  const more = changes.length > 5 ? `; and ${changes.length - 5} more` : "";
  const evals = changedEvals(run);
  return `resumed with --force after its evals changed (${shown}${more}), so ${evalsText(evals)} ${evals.length === 1 ? "holds" : "hold"} attempts of both versions`;
}

/** The mark `runs` gives such a run: "resumed with changes (eval beta)". */
export function resumedMark(run: Pick<StoredRun, "evals" | "resumedWithChanges">): string[] {
  if (resumedChanges(run).length === 0) return [];
  const evals = changedEvals(run);
  return [
    `resumed with changes${evals.length > 0 ? ` (${plural(evals.length, "eval")}: ${evals.join(", ")})` : ""}`,
  ];
}

/**
 * A warning per run of a comparison resumed with --force after its evals changed (once when base
 * and head are one run): its results mix the evals' two versions, so a difference, or the lack
 * of one, may come from the change; naming the run, the evals, what changed and what to do.
 */
export function resumedWarnings(base: StoredRun, head: StoredRun): ComparabilityWarning[] {
  const sides: Side[] = base.runId === head.runId ? ["head"] : ["base", "head"];
  const warnings: ComparabilityWarning[] = [];
  for (const side of sides) {
    const run = side === "base" ? base : head;
    if (resumedChanges(run).length === 0) continue;
    const changed = (other: StoredRun) => resumedChanges(other).join("; ") || "none";
    const label = `${run.runId.slice(0, 8)}${run.name !== undefined ? ` ("${run.name}")` : ""}`;
    warnings.push({
      kind: "resumed-with-changes",
      evals: changedEvals(run),
      base: changed(base),
      head: changed(head),
      message: `the ${base.runId === head.runId ? "base and head" : side} run ${label} was ${resumedText(run)}: a difference from the other run, or the lack of one, may come from that change; run the evals again as they are now (a new niceeval run, not --resume --force) and compare that run, to compare like with like`,
    });
  }
  return warnings;
}
