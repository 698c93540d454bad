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
