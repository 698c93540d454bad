import type { JudgeWait } from "./ledger.js";

/** What a time limit's error says of the judge call it cut off, and what to do. */
export interface JudgeWaitText {
  /** `while judge "openai/x" at <endpoint> was waiting for its answer (try 1 of 6)` */
  waitingOn: string;
  /** What to change, said after the time limit's own options. */
  advice: string;
}

/**
 * The judge calls a time limit of `limitMs` cut off, as its error says them: the first one (and
 * how many others), what it was waiting for, and that a try of a judge ends only at the judge's
 * own timeoutMs. Undefined when no judge call was in flight (the scorer itself was slow).
 */
export function judgeWaitText(
  waits: ReadonlySet<JudgeWait> | undefined,
  limitMs: number | undefined,
): JudgeWaitText | undefined {
  const [first, ...others] = waits ?? [];
  if (!first) return undefined;
  const more = others.length > 0 ? ` (and ${others.length} more judge calls)` : "";
  const tries = `try ${first.tryNumber} of ${first.tries}`;
  const what =
    first.phase === "answer"
      ? `was still waiting for the answer to ${tries}`
      : first.phase === "slot"
        ? `was waiting for a free slot at its endpoint before ${tries} (the endpoint's calls in flight were at their limit)`
        : `was waiting to send ${tries} after: ${first.after ?? "a failed try"}`;
  const longer = limitMs !== undefined && first.timeoutMs >= limitMs;
  const asked = first.phase === "backoff" ? first.retryAfterMs : undefined;
  if (asked !== undefined && limitMs !== undefined && asked >= limitMs) {
    // The endpoint asked for a wait past the limit: a shorter try would not help.
    const wait = asked < 1000 ? `${Math.round(asked)} ms` : `${Math.round(asked / 1000)} s`;
    return {
      waitingOn: `while ${first.who} ${what} (the endpoint asked to wait ${wait}: Retry-After)${more}`,
      advice: ` above that wait, or set configureJudges({ maxRetryAfterMs }) below ${asked} ms so that a judge asked to wait that long gives up at once`,
    };
  }
  return {
    waitingOn: `while ${first.who} ${what}${more}`,
    advice: longer
      ? `, or lower the judge's timeoutMs (${first.timeoutMs} ms, configureJudges({ timeoutMs })) below it, so that a slow try is given up and sent again within the limit`
      : ` to leave room for the judge's tries (up to ${first.tries}, each given up after the judge's timeoutMs, ${first.timeoutMs} ms: configureJudges({ timeoutMs, maxRetries }))`,
  };
}
