import type { HeldSignals } from "./early.js";

/** What the CLI needs from its process, injected so it can be tested in-process. */
export interface CliIO {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** File descriptor of the report. */
  stdoutFd: number;
  /** File descriptor `import -` reads (default 0, standard input). */
  stdinFd?: number;
  stderr: (text: string) => void;
  isTTY: boolean;
  /** Whether stderr is a terminal: the progress line goes there. */
  stderrIsTTY?: boolean;
  /** The command line, for the run's manifest (default: process.argv after node). */
  argv?: readonly string[];
  /** Signals received before the run's guard was installed (bin.ts holds them: `holdSignals`). */
  heldSignals?: HeldSignals;
}
