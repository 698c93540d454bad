// What each CLI option that takes a value expects, for the message of an option given without
// one: Node's parser says only "argument missing", or, when the next argument is an option,
// "argument is ambiguous" with a '--baseline=-XYZ' nobody meant.

/** What an option's value is, and an example of the option with one. */
interface ValueKind {
  what: string;
  example: string;
}

const MS = "a whole number of milliseconds";
const RUN_REF = "a run reference (an id, an id prefix, a name, latest, latest~N or branch:<name>)";

/** Every option of every command that takes a value, by its name without dashes. */
const VALUE_KINDS: Readonly<Record<string, ValueKind>> = {
  store: { what: "a SQLite file path or a postgres:// URL", example: "store.sqlite" },
  alpha: { what: "a significance level between 0 and 1", example: "0.05" },
  seed: { what: "a whole number", example: "1" },
  filter: { what: 'the text (or /regex/) an "evalId/caseId" contains', example: "qa/" },
  exclude: { what: "a file or folder path", example: "evals/slow.eval.ts" },
  concurrency: { what: "a whole number of attempts", example: "4" },
  timeout: { what: MS, example: "30000" },
  json: { what: "a file path to write the JSON report to", example: "results.json" },
  name: { what: "a name for the stored run", example: "nightly" },
  tag: { what: "key=value", example: "model=small" },
  trials: { what: "a whole number of trials per case", example: "5" },
  baseline: { what: RUN_REF, example: "branch:main" },
  base: { what: `the base run of the comparison, ${RUN_REF}`, example: "branch:main" },
  head: { what: `the head run of the comparison, ${RUN_REF}`, example: "latest" },
  reporter: {
    what: "a reporter: console, json=<file>, ndjson=<file or ->, junit=<file>, markdown=<file> or github",
    example: "junit=junit.xml",
  },
  "min-pass-rate": { what: "a number from 0 to 1", example: "0.9" },
  "min-score": { what: "a number from 0 to 1", example: "0.8" },
  "hang-timeout": { what: MS, example: "60000" },
  grace: { what: MS, example: "10000" },
  queue: { what: "a Redis URL", example: "redis://localhost:6379" },
  "queue-name": { what: "a queue name (letters, digits, _ . or -)", example: "niceeval" },
  shard: { what: "i/n, shard i of n counted from 1", example: "1/3" },
  "rate-limit": { what: "<max>/<duration>", example: "60/1m" },
  "lock-duration": { what: MS, example: "30000" },
  "stalled-interval": { what: MS, example: "30000" },
  limit: { what: "a whole number of runs", example: "20" },
  eval: { what: "an eval id", example: "qa" },
  host: { what: "a host name or address to listen on", example: "127.0.0.1" },
  port: { what: "a port number", example: "7420" },
  html: { what: "a file path to write the HTML report to", example: "report.html" },
  ndjson: { what: "a file path, or - for standard output", example: "run.ndjson" },
};

/**
 * niceeval's message for Node's ERR_PARSE_ARGS_INVALID_OPTION_VALUE (an option that takes a value
 * given none: last on the line, or followed by another option; a switch given one, `--quiet=1`),
 * or undefined for another error.
 * A value that starts with a dash is still given inline, `--opt=-value`, as the parser allows.
 */
export function invalidValue(error: unknown, argv: readonly string[]): string | undefined {
  if ((error as { code?: unknown }).code !== "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") return;
  const message = (error as Error).message;
  const name = /'(?:-\w, )?--([\w-]+)/.exec(message)?.[1];
  if (name === undefined) return;
  if (/does not take an argument/.test(message)) {
    const given = argv.find((arg) => arg.startsWith(`--${name}=`)) ?? `--${name}=…`;
    return `--${name} is a switch and takes no value; write --${name} alone, not ${given}`;
  }
  if (!/argument (missing|is ambiguous)/.test(message)) return;
  const kind = VALUE_KINDS[name];
  const flag = `--${name}`;
  const expected = kind ? `: ${kind.what} (e.g. ${flag} ${kind.example})` : "";
  const at = argv.findIndex((arg, i) => arg === flag && argv[i + 1]?.startsWith("-"));
  const next = at >= 0 ? argv[at + 1]! : undefined;
  const where =
    next === undefined
      ? "nothing came after it"
      : next.startsWith("--")
        ? `the option ${next} came next`
        : `${next} came next, which reads as an option: a value that starts with a dash is written ${flag}=${next}`;
  return `${flag} needs a value${expected}; ${where}`;
}
