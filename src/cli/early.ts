import { writeSync } from "node:fs";
import { keepListener } from "../process-listeners.js";

/**
 * Whether these arguments may start a supervised run, read before the CLI's parser is loaded:
 * `run` without the flags that run elsewhere (`--no-supervise`, `--queue`, or a NICEEVAL_QUEUE
 * without `--no-queue`), continue a stored run (its own options decide) or only print help. A
 * wrong guess costs an eval process that is ended unused (bin.ts), never a different run.
 */
export function mayStartEvalProcess(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): boolean {
  if (argv[0] !== "run") return false;
  if (env.NICEEVAL_QUEUE && !argv.includes("--no-queue")) return false;
  return !argv.some(
    (arg) =>
      arg === "--no-supervise" ||
      isHelp(arg) ||
      arg === "--resume" ||
      arg === "--retry-errors" ||
      arg.startsWith("--queue"),
  );
}

/** A signal that stops a run: its exit code is 128 + its number. */
export const STOP_SIGNALS = { SIGINT: 2, SIGTERM: 15 } as const;
export type StopSignal = keyof typeof STOP_SIGNALS;

/** SIGINT and SIGTERM held from the CLI's first lines until the run's signal guard takes them. */
export interface HeldSignals {
  /** Stop holding them; the ones received so far, in order, for the guard to act on at once. */
  take(): StopSignal[];
}

/**
 * For `run`, from bin.ts's first lines: a SIGINT or SIGTERM that comes while the CLI's modules
 * load, or before the run's guard is installed (a `--resume` opening a busy store), is held, so
 * the guard stops the run with it as soon as it is installed (the loading ends, the reports are
 * written, exit 130 or 143) instead of Node ending the process with no report. A second one
 * before then exits at once, as a third does later. Node's own start-up, before this runs, is
 * not covered.
 */
export function holdSignals(argv: readonly string[]): HeldSignals | undefined {
  if (argv[0] !== "run" || argv.some(isHelp)) return undefined;
  const held: StopSignal[] = [];
  const hold = (signal: StopSignal) => () => {
    held.push(signal);
    if (held.length < 2) return;
    try {
      writeSync(2, `\nniceeval: ${signal}, a second signal before the run began: exiting now\n`);
    } catch {}
    process.exit(128 + STOP_SIGNALS[held[0]!]);
  };
  const onInt = hold("SIGINT");
  const onTerm = hold("SIGTERM");
  const removers = [keepListener("SIGINT", onInt), keepListener("SIGTERM", onTerm)];
  return {
    take() {
      for (const remove of removers) remove();
      return held.splice(0);
    },
  };
}

const isHelp = (arg: string) => arg === "--help" || arg === "-h";

/**
 * Whether these arguments likely start a stored run, read as {@link mayStartEvalProcess} is:
 * `run` without `--no-store` or help. A wrong guess costs one `git status` whose answer is unused.
 */
export function mayStoreRun(argv: readonly string[]): boolean {
  return argv[0] === "run" && !argv.some((arg) => arg === "--no-store" || isHelp(arg));
}

/** Whether one `--reporter` value is NDJSON to standard output (`ndjson=-`), as the parser reads it. */
export const isNdjsonToStdout = (value: string): boolean => /^\s*ndjson\s*=\s*-\s*$/.test(value);

/**
 * Where the eval process's standard output goes, read before the CLI's parser is loaded: with
 * `--reporter ndjson=-` standard output carries the NDJSON stream alone, so what the code under
 * test prints goes to stderr (2), with the human report; otherwise to stdout (1).
 */
export function evalProcessStdout(argv: readonly string[]): 1 | 2 {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--reporter" && isNdjsonToStdout(argv[i + 1] ?? "")) return 2;
    if (arg.startsWith("--reporter=") && isNdjsonToStdout(arg.slice("--reporter=".length)))
      return 2;
  }
  return 1;
}
