import { NiceevalError } from "../errors.js";
import { storeAdvice } from "../store/advice.js";
import { checkResumable } from "../store/manifest.js";
import { resolveRunRef } from "../store/resolve.js";
import type { Store, StoredRun } from "../store/types.js";
import { writerGone } from "../store/writer.js";

/** What a continuation does: finish a stopped run, or run a finished run's errored attempts again. */
export type ResumeMode = "resume" | "retry-errors";

/** The flag of a mode, for messages. */
export const flagOf = (mode: ResumeMode) => `--${mode}`;

/** Where a run stands for a continuation: stopped (interrupted, crashed, or a dead writer), finished, or live. */
export function runState(run: StoredRun): "stopped" | "finished" | "live" {
  if (run.status === "finished") return "finished";
  if (run.status === "running") return writerGone(run) ? "stopped" : "live";
  return "stopped";
}

/**
 * The run to continue: the one named, or by default the latest stopped run (`--resume`) or the
 * latest finished one (`--retry-errors`). A live run is refused (its writer is still at work),
 * unless `force`: then the caller takes the writer's word for being gone.
 */
export async function findRunToContinue(
  store: Store,
  mode: ResumeMode,
  ref: string | undefined,
  force: boolean,
): Promise<StoredRun> {
  const run = ref !== undefined ? await resolveRunRef(store, ref) : await latestFor(store, mode);
  // Only the CLI continues runs this way (--resume, --retry-errors).
  checkResumable(run.status, run, force, storeAdvice("cli"));
  const state = runState(run);
  const id = run.runId.slice(0, 8);
  if (mode === "resume" && state === "finished")
    throw new NiceevalError(
      "RUN_NOT_RESUMABLE",
      `run ${id} finished; there is nothing to resume. To run its errored attempts again, use --retry-errors ${id}.`,
    );
  return run;
}

async function latestFor(store: Store, mode: ResumeMode): Promise<StoredRun> {
  // The newest run still being written, if one is met before the run looked for.
  let live: StoredRun | undefined;
  // Newest first; a page at a time, so a long history is not read whole.
  for (let offset = 0; ; offset += 50) {
    const page = await store.listRuns({ limit: offset + 50 });
    for (const run of page.slice(offset)) {
      const state = runState(run);
      if (mode === "resume" ? state === "stopped" : state === "finished") return run;
      if (state === "live") live ??= run;
    }
    if (page.length < offset + 50) break;
  }
  const wanted = mode === "resume" ? "interrupted or crashed" : "finished";
  // A run still at work is not one to continue: said, as what the user most likely meant.
  const running = live
    ? ` (run ${live.runId.slice(0, 8)} is still running${live.writer ? `: pid ${live.writer.pid} on ${live.writer.host}` : ""}; a run is continued once it stopped)`
    : "";
  throw new NiceevalError(
    "RUN_NOT_FOUND",
    `${flagOf(mode)}: no ${wanted} run in ${store.location}${running}. Name one (${flagOf(mode)} <run>), or see \`niceeval runs\`.`,
  );
}
