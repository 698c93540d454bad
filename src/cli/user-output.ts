/**
 * Sends what code running in this process writes to `process.stdout` (`console.log` included)
 * to stderr, for a run whose standard output carries only the NDJSON stream (`--reporter
 * ndjson=-`): eval files print when they load, targets and scorers while they run
 * (`--no-supervise`), and one stray line would break every reader of that stream. niceeval's
 * own reports write to file descriptors, never through `process.stdout`, so they are unaffected.
 */
export function userOutputToStderr(): void {
  Object.defineProperty(process, "stdout", {
    configurable: true,
    enumerable: true,
    get: () => process.stderr,
  });
}
