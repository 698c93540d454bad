import type { AttemptRecord, Judgment } from "../eval/record.js";
import type { JudgmentChange } from "./types.js";

/** Most changed judgments kept per case. */
const MAX_JUDGMENTS = 10;

/** A trial's judgments, kept only for the cases whose change is shown. */
export type Representative = { trial: number; judgments: Judgment[]; error?: string };

/** The trial that shows a case's side of a change: its first passing or first non-passing one. */
export function representative(trials: readonly AttemptRecord[], passing: boolean) {
  const counted = trials.filter((trial) => trial.verdict !== "skipped");
  const chosen =
    counted.find((trial) => (trial.verdict === "passed") === passing) ?? counted[0] ?? trials[0];
  if (!chosen) return undefined;
  const kept: Representative = { trial: chosen.trial ?? 0, judgments: chosen.judgments };
  if (chosen.error) kept.error = `${chosen.error.where}: ${chosen.error.message}`;
  return kept;
}

/** Judgments whose state differs, matched by source, label and occurrence; gates first. */
export function diffJudgments(
  base: readonly Judgment[],
  head: readonly Judgment[],
): JudgmentChange[] {
  const keyed = (judgments: readonly Judgment[]) => {
    const seen = new Map<string, number>();
    const out = new Map<string, Judgment>();
    for (const judgment of judgments) {
      const key = `${judgment.source}\u0000${judgment.label}`;
      const occurrence = seen.get(key) ?? 0;
      seen.set(key, occurrence + 1);
      out.set(`${key}\u0000${occurrence}`, judgment);
    }
    return out;
  };
  const before = keyed(base);
  const after = keyed(head);
  const changes: JudgmentChange[] = [];
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const b = before.get(key);
    const h = after.get(key);
    if (b && h && b.state === h.state) continue;
    const any = (h ?? b)!;
    changes.push({
      label: any.label,
      source: any.source,
      gate: any.gate,
      base: b ? { state: b.state, reason: b.reason } : null,
      head: h ? { state: h.state, reason: h.reason } : null,
    });
  }
  return changes.sort((x, y) => Number(y.gate) - Number(x.gate)).slice(0, MAX_JUDGMENTS);
}
