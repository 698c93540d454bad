/**
 * Whether these arguments may start a supervised run, read before the CLI's parser is loaded:
 * `run` without the flags that run elsewhere (`--no-supervise`, `--queue`), continue a stored run
 * (its own options decide) or only print help. A wrong guess costs an eval process that is ended
 * unused (bin.ts), never a different run.
 */
export function mayStartEvalProcess(argv: readonly string[]): boolean {
  if (argv[0] !== "run") return false;
  return !argv.some(
    (arg) =>
      arg === "--no-supervise" ||
      arg === "--help" ||
      arg === "-h" ||
      arg === "--resume" ||
      arg === "--retry-errors" ||
      arg.startsWith("--queue"),
  );
}

/**
 * Whether these arguments likely start a stored run, read as {@link mayStartEvalProcess} is:
 * `run` without `--no-store` or help. A wrong guess costs one `git status` whose answer is unused.
 */
export function mayStoreRun(argv: readonly string[]): boolean {
  return (
    argv[0] === "run" &&
    !argv.some((arg) => arg === "--no-store" || arg === "--help" || arg === "-h")
  );
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
