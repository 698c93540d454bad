// What the viewer's server keeps between requests: a few values by key, and the folded detail of
// runs without summaries.

import type { RunStatus, Store, StoredRun } from "../store/types.js";
import { effectiveStatus } from "../store/writer.js";
import { type RunDetail, runDetail } from "./api.js";

/** Keeps a few values by key, the oldest dropped first. */
export class Kept<T> {
  private readonly values = new Map<string, T>();
  constructor(private readonly size: number) {}
  get(key: string): T | undefined {
    return this.values.get(key);
  }
  set(key: string, value: T): void {
    this.values.set(key, value);
    if (this.values.size > this.size) this.values.delete(this.values.keys().next().value!);
  }
  delete(key: string): void {
    this.values.delete(key);
  }
}

/** A fold of a run's stored attempts, kept: what it said, and when and how long it took. */
interface Fold {
  key: string;
  status: RunStatus;
  detail: Promise<RunDetail>;
  at: number;
  /** Infinity while it runs, so requests meanwhile wait for it instead of folding again. */
  tookMs: number;
}

/**
 * The detail of a run without summaries (live or stopped), whose figures fold every stored
 * attempt: kept while its shown status and totals stand still; while attempts still come in, a
 * large fold (100,000 attempts take about a second) is done again at most every five times as
 * long as it took, so a live run's page never keeps the server folding.
 */
export class FoldedDetails {
  private readonly kept = new Kept<Fold>(8);
  /**
   * `largeMs`: a fold this long or longer is large; `spacing`: how many times its length a large
   * fold is kept while attempts come in.
   */
  constructor(
    private readonly store: Store,
    private readonly largeMs = 100,
    private readonly spacing = 5,
  ) {}

  detail(run: StoredRun): Promise<RunDetail> {
    // The status as shown: a run whose writer died reads crashed, though stored as running.
    const status = effectiveStatus(run);
    const key = `${status}\n${JSON.stringify(run.totals)}`;
    const now = performance.now();
    const kept = this.kept.get(run.runId);
    const recent =
      kept?.status === status &&
      kept.tookMs >= this.largeMs &&
      now - kept.at < kept.tookMs * this.spacing;
    if (kept && (kept.key === key || recent)) return kept.detail;
    const fold: Fold = {
      key,
      status,
      at: now,
      tookMs: Number.POSITIVE_INFINITY,
      detail: runDetail(this.store, run),
    };
    fold.detail.then(
      () => {
        fold.tookMs = performance.now() - now;
      },
      () => this.kept.delete(run.runId),
    );
    this.kept.set(run.runId, fold);
    return fold.detail;
  }
}
