import type { Runnable } from "../eval/runnable.js";

/** An eval to run, with the file it came from when known. */
export interface RunEntry {
  eval: Runnable;
  file?: string;
}
