/**
 * " [trial 2]" for an attempt whose eval ran several trials (counted from 1), "" otherwise: an
 * eval of one trial has no trial to name, live or read back from a store (which keeps trial 0).
 */
export function trialLabel(trial: number | undefined, trials: number | undefined): string {
  const n = trial ?? 0;
  return (trials ?? 1) > 1 || n > 0 ? ` [trial ${n + 1}]` : "";
}
