import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { NiceevalError } from "../errors.js";
import { MAX_TRIALS } from "../eval/timeout.js";
import type { QueueSource } from "../queue/connection.js";
import { redactUrl } from "../redact-url.js";
import { runNameProblem } from "../run-fields.js";
import { parseShard, type Shard } from "../shard/shard.js";
import { closest } from "../suggest.js";
import { isEvalFileName } from "./discover.js";
import { invalidValue } from "./option-values.js";

/** Options every command that reads or writes runs shares. */
interface StoreArgs {
  /** `--store <path>`; undefined means the default (NICEEVAL_STORE, else .niceeval/niceeval.sqlite). */
  store?: string;
}

/** How a comparison with a baseline decides. */
export interface CompareDecision {
  alpha: number;
  seed: number;
  failOnRegression: boolean;
  failOnNewFailures: boolean;
}

/** Parsed `niceeval run` options. */
export interface RunArgs extends StoreArgs, CompareDecision {
  command: "run";
  paths: string[];
  filter?: string;
  exclude: string[];
  concurrency: number;
  json?: string;
  cache: boolean;
  timeoutMs?: number;
  quiet: boolean;
  failuresOnly: boolean;
  /** `--no-store`: write nothing. */
  noStore: boolean;
  name?: string;
  tags: Record<string, string>;
  trials?: number;
  baseline?: string;
  /** `--reporter` values, in order (default: console). */
  reporters: string[];
  minPassRate?: number;
  minScore?: number;
  /** Run attempts in a supervised child process (default); `--no-supervise` runs them here. */
  supervise: boolean;
  /** `--hang-timeout`: kill the eval process when its event loop is blocked this long, ms. */
  hangTimeoutMs: number;
  /** `--grace`: time attempts in flight get after the first SIGINT or SIGTERM, ms. */
  graceMs: number;
  /** `--otel`: export the run over OTLP/HTTP (also on when OTEL_EXPORTER_OTLP_ENDPOINT is set). */
  otel?: boolean;
  /**
   * `--queue redis://…`, else $NICEEVAL_QUEUE (unless `--no-queue`): enqueue the attempts for
   * `niceeval worker`s instead of running them here.
   */
  queue?: string;
  /** Where {@link queue} came from, for the messages about it. */
  queueFrom?: QueueSource;
  /** `--queue-name`: the BullMQ queue (default "niceeval"). */
  queueName?: string;
  /** `--shard i/n`: run only the cases of shard i of n. */
  shard?: Shard;
  /** `--resume [<run>]` or `--retry-errors [<run>]`: continue a stored run instead of starting one. */
  resume?: { mode: "resume" | "retry-errors"; run?: string };
  /** `--force`: resume a run whose evals changed since it started (the run is marked). */
  force?: boolean;
  /** `--strict`: an unavailable judgment (a judge that could not answer) fails the run. */
  strict?: boolean;
  /**
   * The options with a default that this command line did not give (a continuation takes the
   * stored run's own for these).
   */
  defaulted: readonly DefaultedRunOption[];
}

/** `run` options that always have a value, given or not: --concurrency, --hang-timeout, --grace. */
export type DefaultedRunOption = "concurrency" | "hangTimeoutMs" | "graceMs";

/** The environment the arguments are read with (NICEEVAL_QUEUE). */
export type ArgsEnv = Readonly<Record<string, string | undefined>>;

/** Parsed `niceeval worker`. */
export interface WorkerArgs {
  command: "worker";
  paths: string[];
  exclude: string[];
  /** `--queue`, else $NICEEVAL_QUEUE. */
  queue: string;
  queueFrom: QueueSource;
  queueName?: string;
  concurrency: number;
  cache: boolean;
  /** Run attempts in a supervised eval process (default); `--no-supervise` runs them here. */
  supervise: boolean;
  /** `--hang-timeout`: kill the eval process when its event loop is blocked this long, ms. */
  hangTimeoutMs: number;
  /** `--rate-limit <max>/<duration>`: attempts started per window, across every worker. */
  rateLimit?: { max: number; durationMs: number };
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** Given only to be refused with the reason: the run is the store's writer. */
  store?: string;
}

/** Parsed `niceeval runs`. */
export interface RunsArgs extends StoreArgs {
  command: "runs";
  limit: number;
  evalId?: string;
  json: boolean;
}

/** Parsed `niceeval show <run>`. */
export interface ShowArgs extends StoreArgs {
  command: "show";
  run: string;
  failuresOnly: boolean;
  json: boolean;
}

/** Parsed `niceeval compare <base> <head>`. */
export interface CompareArgs extends StoreArgs, CompareDecision {
  command: "compare";
  base: string;
  head: string;
  json: boolean;
}

/** Parsed `niceeval view`. */
export interface ViewArgs extends StoreArgs {
  command: "view";
  host: string;
  port: number;
  open: boolean;
  /** `--base <run> --head <run>`: the URL opens on their comparison (the link `compare` prints). */
  compare?: { base: string; head: string };
}

/** Parsed `niceeval export <run> --html <file> | --ndjson <file>`. */
export interface ExportArgs extends StoreArgs {
  command: "export";
  run: string;
  html?: string;
  /** `--ndjson <file or ->`: the stored run as NDJSON, for `niceeval import`. */
  ndjson?: string;
  baseline?: string;
}

/** Parsed `niceeval import <file>...`. */
export interface ImportArgs extends StoreArgs {
  command: "import";
  files: string[];
}

/** Parsed `niceeval merge <run or file>... [--name <name>]`. */
export interface MergeArgs extends StoreArgs {
  command: "merge";
  /** Run references, or paths of `export --ndjson` files. */
  runs: string[];
  name?: string;
  json: boolean;
}

export type CliArgs =
  | RunArgs
  | WorkerArgs
  | ViewArgs
  | ExportArgs
  | ImportArgs
  | MergeArgs
  | RunsArgs
  | ShowArgs
  | CompareArgs
  | { command: "help" }
  | { command: "version" };

export const HELP = `niceeval — evaluations for LLM applications and agents

Usage
  niceeval run [paths...] [options]       run eval files (*.eval.ts, *.eval.js) and store the run
  niceeval worker [--queue redis://host:6379] [paths...] [--concurrency N]
                                          run the attempts \`run --queue\` enqueues (any number of workers)
  niceeval runs [--limit N] [--eval <id>] [--json]
                                          list stored runs, newest first (the latest 20;
                                          --limit N lists up to N, at most 100000)
  niceeval show <run> [--failures-only] [--json]
                                          print a stored run like the live report
  niceeval compare <base> <head> [--json] [--fail-on-regression] [--alpha 0.05] [--seed N]
                                          compare two runs case by case, with statistics; a
                                          run may be branch:<name> (as for --baseline)
  niceeval view [--store <path or url>] [--port N] [--host 127.0.0.1] [--open]
                [--base <run> --head <run>]
                                          browse stored runs in a local web app (prints its URL;
                                          with --base and --head, it opens on their comparison)
  niceeval export <run> --html <file> [--baseline <run>]
                                          write one self-contained HTML report of a run
  niceeval export <run> --ndjson <file>   write a stored run as NDJSON (for import; - is stdout)
  niceeval import <file>...               read NDJSON exports (- is stdin) into the store by run id
  niceeval merge <run or file>... [--name <name>] [--json]
                                          merge runs (the shards of one run: stored runs or
                                          export files) into one new stored run

Paths default to ./evals and ./examples; folders are searched recursively.
A run is named by its id, a unique id prefix (6+ characters), its --name, latest, or latest~N.

Run options
  --filter <text>        run only evals or cases whose "evalId" or "evalId/caseId" contains
                         <text> (or matches /regex/); an empty <text> filters nothing
  --exclude <path>       skip a file or folder that exists (repeatable; globs are not expanded)
  --concurrency <n>      attempts running at once (default 8, at most 1024)
  --timeout <ms>         limit on each attempt: target or adapter, scorers and judge calls
  --trials <k>           run every case k times (an eval's own trials option wins)
  --reporter <spec>      console (default), json=<file>, ndjson=<file or ->, junit=<file>,
                         markdown=<file>, github (repeatable; console and github once)
  --json <file>          same as --reporter json=<file>
  --name <name>          name the stored run
  --tag <key=value>      tag the stored run (repeatable, each key once)
  --baseline <run>       compare with a stored run at the end: a run reference or
                         branch:<name> (the latest finished run on that git branch holding
                         every eval of this run, with no other --filter)
  --min-pass-rate <0..1> exit 1 when an eval's pass rate is below this; failed cases within
                         it no longer fail the run
  --min-score <0..1>     exit 1 when an eval's mean score is below this
  --no-cache             do not read or write the judge cache
  --strict               exit 1 when any judgment was unavailable (a judge that could not answer)
  --failures-only        print only the failed and errored cases
  --quiet                no progress line
  --hang-timeout <ms>    kill and replace the eval process when its event loop is blocked this
                         long; the attempts in flight run again, and one in flight at two
                         crashes is errored. Also how long an eval file may take to load and a
                         dataset to give its next case (default 60000, at least 100)
  --grace <ms>           after SIGINT or SIGTERM, time attempts in flight get to finish
                         (default 10000; a second signal stops them at once)
  --no-supervise         run attempts in the CLI process instead of a supervised child process
  --resume [<run>]       continue a stopped run (default: the latest interrupted or crashed
                         one) under its id: stored attempts are kept, the rest run
  --retry-errors [<run>] run the errored attempts of a run again (default: the latest
                         finished run); the replaced attempts stay in the store as history;
                         the run may be given as --resume=<run>; a path there is refused:
                         the eval files are the run's own
  --force                continue even though its eval files or configurations changed
                         (the run is marked resumedWithChanges)
  --shard <i/n>          run only shard i of n (1-based): each case by a hash of its eval and
                         case ids, every trial of a case in the same shard; merge the shards'
                         runs with niceeval merge
  --otel                 export the run to OpenTelemetry over OTLP/HTTP (spans, and a
                         gen_ai.evaluation.result log per judgment); on when
                         OTEL_EXPORTER_OTLP_ENDPOINT is set; OTEL_EXPORTER_OTLP_HEADERS and
                         OTEL_SERVICE_NAME are honoured
  --queue <redis-url>    enqueue one BullMQ job per attempt for \`niceeval worker\`s and wait for
                         them; --concurrency is then the jobs enqueued at once (default 256).
                         Default: $NICEEVAL_QUEUE (keeps a password off the command line;
                         the run then says so on stderr)
  --no-queue             run the attempts here even though NICEEVAL_QUEUE is set
  --queue-name <name>    the BullMQ queue (default niceeval; the run and its workers must agree)

Worker options
  --queue <redis-url>    the Redis to take jobs from (redis://[user:password@]host:6379[/db]);
                         default: $NICEEVAL_QUEUE, which keeps a password off the command line
  --concurrency <n>      attempts this worker runs at once (default 8)
  --rate-limit <n>/<t>   at most n attempts start per t (ms, or 10s, 1m) across every worker
  --lock-duration <ms>   a worker silent this long loses its job to another (default 30000)
  --stalled-interval <ms>
                         how often workers look for the jobs of dead workers (default 30000)
  --hang-timeout <ms>    as for run: kill and replace the eval process when its event loop is
                         blocked this long (default 60000, at least 100)
  --no-supervise         run attempts in the worker's own process instead of a supervised eval
                         process (no eval process to start), but a case that exits, crashes or
                         leaves an error unhandled then ends the worker and every job it runs

Store options (run, runs, show, compare, view, export, import, merge)
  --store <path or url>  the store: a SQLite file (a path or file:// URL) or postgres://…
                         (default: $NICEEVAL_STORE, else .niceeval/niceeval.sqlite)
  --no-store             (run) store nothing

Comparison options (compare, and run with --baseline)
  --fail-on-regression   exit 1 when a regression is statistically significant at --alpha
  --fail-on-new-failures with --fail-on-regression: also exit 1 when a case that passed every
                         trial now fails every trial
  --alpha <p>            significance level (default 0.05)
  --seed <n>             seed of the bootstrap resampling (default 1)

  -h, --help, help       show this help
  -v, --version          show the version

Exit codes: 0 all passed · 1 a case failed or errored (unless --min-pass-rate is met), a gate
or regression check failed, or a file failed to load · 2 usage error or crash · 130 interrupted by SIGINT · 143 by SIGTERM`;

const usage = (message: string) => {
  // Node's parser ends its own messages with a period: one is enough, and none after a question.
  const said = message.replace(/\.$/, "");
  return new NiceevalError(
    "USAGE",
    `${said}${said.endsWith("?") ? "" : "."} Run \`niceeval --help\`.`,
  );
};

/**
 * The `run` arguments of a stored command line (a run manifest's `command`: argv after `node`),
 * when it still parses; undefined for another command, or one this version no longer reads.
 */
export function storedRunArgs(command: readonly string[]): RunArgs | undefined {
  const at = command.indexOf("run");
  if (at < 0) return undefined;
  try {
    const parsed = parseCliArgs(command.slice(at));
    return parsed.command === "run" ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Parse argv (without node and script). Throws a USAGE NiceevalError on bad input. `env` gives the
 * variables that stand for a flag not given (NICEEVAL_QUEUE; the store's NICEEVAL_STORE is read
 * where the store is opened); `cwd`, the directory relative paths are read from (a path given
 * with `--resume` is refused as one).
 */
export function parseCliArgs(
  argv: readonly string[],
  env: ArgsEnv = {},
  cwd: string = process.cwd(),
): CliArgs {
  const [first] = argv;
  // `niceeval help` as git and npm read it.
  if (first === undefined || first === "-h" || first === "--help" || first === "help") {
    return { command: "help" };
  }
  if (first === "-v" || first === "--version") return { command: "version" };
  const rest = argv.slice(1);
  if (rest.includes("--help") || rest.includes("-h")) return { command: "help" };
  switch (first) {
    case "run":
      return parseRun(rest, env, cwd);
    case "worker":
      return parseWorker(rest, env);
    case "runs":
      return parseRuns(rest);
    case "show":
      return parseShow(rest);
    case "compare":
      return parseCompare(rest);
    case "view":
      return parseView(rest);
    case "export":
      return parseExport(rest);
    case "import":
      return parseImport(rest);
    case "merge":
      return parseMerge(rest);
    default: {
      const meant = closest(first, COMMANDS);
      throw new NiceevalError(
        "USAGE",
        `unknown command "${first}"${meant ? `; did you mean ${meant}?` : "."} Commands: ${COMMANDS.join(", ")}. Run \`niceeval --help\`.`,
      );
    }
  }
}

const COMMANDS = ["run", "worker", "runs", "show", "compare", "view", "export", "import", "merge"];

const storeOptions = { store: { type: "string" } } as const;
const compareOptions = {
  "fail-on-regression": { type: "boolean" },
  "fail-on-new-failures": { type: "boolean" },
  alpha: { type: "string" },
  seed: { type: "string" },
} as const;

type Values = Record<string, string | boolean | string[] | undefined>;
type OptionSpec = Record<
  string,
  { type: "string" | "boolean"; multiple?: boolean; short?: string }
>;

function strictParse(
  command: string,
  argv: readonly string[],
  options: OptionSpec,
): { values: Values; positionals: string[] } {
  try {
    const parsed = parseArgs({ args: [...argv], allowPositionals: true, strict: true, options });
    return { values: parsed.values as Values, positionals: parsed.positionals };
  } catch (error) {
    throw usage(
      `niceeval ${command}: ${unknownOption(error, options) ?? invalidValue(error, argv) ?? (error as Error).message}`,
    );
  }
}

/** Node's message for an unknown option, said plainly and with the option likely meant. */
function unknownOption(error: unknown, options: OptionSpec): string | undefined {
  if ((error as { code?: unknown }).code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") return undefined;
  const given = /'(-[^']*)'/.exec((error as Error).message)?.[1];
  if (!given) return undefined;
  const name = given.replace(/^-+/, "").split("=")[0]!;
  const meant = closest(name, Object.keys(options));
  return meant === undefined
    ? `unknown option ${given}`
    : `unknown option ${given}; did you mean --${meant}?`;
}

/** The options `niceeval run` takes. */
const runOptions = {
  ...storeOptions,
  ...compareOptions,
  filter: { type: "string" },
  exclude: { type: "string", multiple: true },
  concurrency: { type: "string" },
  timeout: { type: "string" },
  json: { type: "string" },
  "no-cache": { type: "boolean" },
  "failures-only": { type: "boolean" },
  quiet: { type: "boolean" },
  "no-store": { type: "boolean" },
  name: { type: "string" },
  tag: { type: "string", multiple: true },
  trials: { type: "string" },
  baseline: { type: "string" },
  reporter: { type: "string", multiple: true },
  "min-pass-rate": { type: "string" },
  "min-score": { type: "string" },
  "no-supervise": { type: "boolean" },
  "hang-timeout": { type: "string" },
  grace: { type: "string" },
  otel: { type: "boolean" },
  queue: { type: "string" },
  "no-queue": { type: "boolean" },
  "queue-name": { type: "string" },
  shard: { type: "string" },
  resume: { type: "boolean" },
  "retry-errors": { type: "boolean" },
  force: { type: "boolean" },
  strict: { type: "boolean" },
} as const;

function parseRun(argv: readonly string[], env: ArgsEnv, cwd: string): RunArgs {
  const inline = inlineRuns(argv);
  const { values, positionals } = strictParse("run", inline.argv, runOptions);
  const v = values;
  const queue = runQueue(v, env);
  const args: RunArgs = {
    command: "run",
    paths: positionals,
    exclude: (v.exclude as string[] | undefined) ?? [],
    concurrency: wholeNumber(
      "--concurrency",
      v.concurrency as string | undefined,
      queue !== undefined ? 256 : 8,
      1024,
    ),
    cache: !v["no-cache"],
    quiet: v.quiet === true,
    failuresOnly: v["failures-only"] === true,
    noStore: v["no-store"] === true,
    tags: parseTags((v.tag as string[] | undefined) ?? []),
    reporters: (v.reporter as string[] | undefined) ?? [],
    supervise: v["no-supervise"] !== true,
    // Below about 100 ms a busy but healthy event loop (a large report, a GC pause) looks hung.
    hangTimeoutMs: ms("--hang-timeout", v["hang-timeout"], 60_000, 100),
    graceMs: ms("--grace", v.grace, 10_000, 0),
    defaulted: (
      [
        ["concurrency", v.concurrency],
        ["hangTimeoutMs", v["hang-timeout"]],
        ["graceMs", v.grace],
      ] as const
    ).flatMap(([key, given]) => (given === undefined ? [key] : [])),
    ...decision(v),
  };
  if (args.noStore && v.store !== undefined)
    throw usage("--store and --no-store exclude each other");
  if (typeof v.store === "string") args.store = v.store;
  // An empty filter (`--filter "$FILTER"` with the variable unset) filters nothing: the run is
  // not said to filter, so its header and manifest tell the truth.
  if (typeof v.filter === "string" && v.filter !== "") args.filter = v.filter;
  if (typeof v.json === "string") {
    if (v.json.trim() === "-")
      throw usage(
        "--json writes a file; for one JSON object per line on standard output use --reporter ndjson=-",
      );
    args.json = v.json;
  }
  if (typeof v.name === "string") {
    if (v.name.trim() === "") throw usage("--name must not be empty");
    checkRunName(v.name);
    args.name = v.name;
  }
  if (typeof v.baseline === "string") args.baseline = v.baseline;
  else if (args.failOnRegression)
    // Nothing to compare with: the flag would never fail the run.
    throw usage("--fail-on-regression compares with a baseline; pass --baseline <run> too");
  else {
    // Nothing to compare with: they would change nothing without a word.
    const comparing = (["alpha", "seed"] as const).filter((name) => v[name] !== undefined);
    if (comparing.length)
      throw usage(
        `--${comparing.join(" and --")} ${comparing.length > 1 ? "set" : "sets"} the comparison with a baseline; pass --baseline <run> too, or drop ${comparing.length > 1 ? "them" : "it"}`,
      );
  }
  if (v.otel === true) args.otel = true;
  if (queue !== undefined) Object.assign(args, queue);
  if (typeof v["queue-name"] === "string") {
    // Without a queue the run is not on one: the name would be ignored without a word.
    if (args.queue === undefined)
      throw usage(
        `--queue-name names the queue of --queue <redis-url> or NICEEVAL_QUEUE; ${v["no-queue"] === true ? "drop it with --no-queue" : "pass --queue too"}`,
      );
    args.queueName = queueName(v["queue-name"]);
  }
  if (v.timeout !== undefined) args.timeoutMs = ms("--timeout", v.timeout, 0, 1);
  if (v.strict === true) args.strict = true;
  if (v.trials !== undefined)
    args.trials = wholeNumber("--trials", v.trials as string, 1, MAX_TRIALS);
  if (typeof v.shard === "string") args.shard = parseShard(v.shard);
  if (v.resume === true || v["retry-errors"] === true)
    continuation(args, v, positionals, inline.runs, cwd);
  else if (v.force === true) throw usage("--force belongs to --resume or --retry-errors");
  const minPassRate = fraction("--min-pass-rate", v["min-pass-rate"] as string | undefined);
  if (minPassRate !== undefined) args.minPassRate = minPassRate;
  const minScore = fraction("--min-score", v["min-score"] as string | undefined);
  if (minScore !== undefined) args.minScore = minScore;
  return args;
}

/** The flags that continue a stored run. */
type ContinuationFlag = "--resume" | "--retry-errors";

/**
 * The runs given as `--resume=<run>` and `--retry-errors=<run>`, taken out of `argv`: both flags
 * stand alone too (the latest run), so the parser reads them as switches.
 */
function inlineRuns(argv: readonly string[]): {
  argv: string[];
  runs: Partial<Record<ContinuationFlag, string>>;
} {
  const runs: Partial<Record<ContinuationFlag, string>> = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    // After `--` every argument is a positional.
    if (arg === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    const match = /^(--resume|--retry-errors)=(.*)$/s.exec(arg);
    if (match === null) {
      rest.push(arg);
      continue;
    }
    const flag = match[1] as ContinuationFlag;
    const run = match[2]!;
    if (run.trim() === "")
      throw usage(
        `${flag}= names no run: give ${flag}=<run> (an id, prefix, name or latest~N), or ${flag} alone for the latest interrupted or crashed run`,
      );
    const before = runs[flag];
    if (before !== undefined && before !== run)
      throw usage(`${flag} continues one run; it was given ${before} and ${run}`);
    runs[flag] = run;
    rest.push(flag);
  }
  return { argv: rest, runs };
}

/**
 * `--resume [<run>]`, `--retry-errors [<run>]`: the run is the positional or given inline
 * (`--resume=<run>`); the files, filter, trials, shard and timeout are the run's own (from its
 * manifest), so they cannot be given again; but `--retry-errors` takes a `--timeout`, for the
 * attempts that errored by timing out.
 */
function continuation(
  args: RunArgs,
  v: Values,
  positionals: string[],
  runs: Partial<Record<ContinuationFlag, string>>,
  cwd: string,
): void {
  const flag: ContinuationFlag = v.resume === true ? "--resume" : "--retry-errors";
  if (v.resume === true && v["retry-errors"] === true)
    throw usage("--resume and --retry-errors are two ways to continue a run; give one");
  const run = continuedRun(flag, runs[flag], positionals, cwd);
  // A retry may give attempts that timed out more time (--timeout): it runs only errored ones.
  const own = ["filter", "trials", "shard", "timeout", "exclude", "name", "tag"].filter(
    (name) => v[name] !== undefined && !(name === "timeout" && v.resume !== true),
  );
  if (own.length)
    throw usage(
      `${flag} continues the run as it started; drop --${own.join(", --")} (the run's own are used)`,
    );
  if (args.noStore) throw usage(`${flag} continues a stored run; drop --no-store`);
  args.resume = {
    mode: v.resume === true ? "resume" : "retry-errors",
    ...(run !== undefined ? { run } : {}),
  };
  args.paths = [];
  if (v.force === true) args.force = true;
}

/**
 * The run `flag` continues: given inline, or as the one positional unless that is an eval file
 * or a path that exists, which would be read as a run reference that names no run.
 */
function continuedRun(
  flag: ContinuationFlag,
  inline: string | undefined,
  positionals: string[],
  cwd: string,
): string | undefined {
  const noPaths = "the eval files are the run's own, so give no paths";
  if (positionals.length > (inline === undefined ? 1 : 0))
    throw usage(
      inline === undefined
        ? `${flag} takes at most one run (${flag} [<run>]); ${noPaths}`
        : `${flag}=${inline} names the run; ${noPaths} (given: ${positionals.join(" ")})`,
    );
  const given = positionals[0];
  if (inline !== undefined || given === undefined) return inline;
  if (isEvalFileName(given) || existsSync(resolve(cwd, given)))
    throw usage(
      `${flag} ${given}: ${given} is ${isEvalFileName(given) ? "an eval file" : "a path"}, not a run; ${noPaths} (a run named so is given as ${flag}=${given})`,
    );
  return given;
}

/**
 * The run's queue: `--queue`, else $NICEEVAL_QUEUE unless `--no-queue` (empty is unset, as for
 * NICEEVAL_STORE); checked alike, the messages naming where it came from.
 */
function runQueue(v: Values, env: ArgsEnv): { queue: string; queueFrom: QueueSource } | undefined {
  if (v["no-queue"] === true) {
    if (v.queue !== undefined) throw usage("--queue and --no-queue exclude each other");
    return undefined;
  }
  return givenQueue(v, env);
}

/** `--queue`, else $NICEEVAL_QUEUE, as a Redis URL. */
function givenQueue(
  v: Values,
  env: ArgsEnv,
): { queue: string; queueFrom: QueueSource } | undefined {
  if (typeof v.queue === "string")
    return { queue: queueUrl(v.queue, "--queue"), queueFrom: "--queue" };
  const fromEnv = env.NICEEVAL_QUEUE;
  if (!fromEnv) return undefined;
  return { queue: queueUrl(fromEnv, "NICEEVAL_QUEUE"), queueFrom: "NICEEVAL_QUEUE" };
}

function parseWorker(argv: readonly string[], env: ArgsEnv): WorkerArgs {
  const { values: v, positionals } = strictParse("worker", argv, {
    ...storeOptions,
    queue: { type: "string" },
    "queue-name": { type: "string" },
    exclude: { type: "string", multiple: true },
    concurrency: { type: "string" },
    "no-cache": { type: "boolean" },
    "no-supervise": { type: "boolean" },
    "hang-timeout": { type: "string" },
    "rate-limit": { type: "string" },
    "lock-duration": { type: "string" },
    "stalled-interval": { type: "string" },
  });
  const queue = givenQueue(v, env);
  if (queue === undefined)
    throw usage(
      "niceeval worker needs --queue redis://host:6379, or NICEEVAL_QUEUE set to that URL (which keeps a password off the command line)",
    );
  const args: WorkerArgs = {
    command: "worker",
    paths: positionals,
    exclude: (v.exclude as string[] | undefined) ?? [],
    ...queue,
    concurrency: wholeNumber("--concurrency", v.concurrency as string | undefined, 8, 1024),
    cache: !v["no-cache"],
    supervise: v["no-supervise"] !== true,
    hangTimeoutMs: ms("--hang-timeout", v["hang-timeout"], 60_000, 100),
  };
  if (typeof v["queue-name"] === "string") args.queueName = queueName(v["queue-name"]);
  if (typeof v.store === "string") args.store = v.store;
  if (typeof v["rate-limit"] === "string") args.rateLimit = rateLimit(v["rate-limit"]);
  const period = (flag: string, text: string) => wholeNumber(flag, text, 0, 2 ** 31 - 1, 100);
  if (typeof v["lock-duration"] === "string")
    args.lockDurationMs = period("--lock-duration", v["lock-duration"]);
  if (typeof v["stalled-interval"] === "string")
    args.stalledIntervalMs = period("--stalled-interval", v["stalled-interval"]);
  return args;
}

function queueUrl(text: string, from: QueueSource): string {
  if (!/^rediss?:\/\//i.test(text)) {
    // Masked even without a scheme ("user:password@host").
    const shown = redactUrl(text).replace(/:[^/]*@/, ":***@");
    throw usage(
      `${from} must be a Redis URL (redis://host:6379, rediss:// for TLS), got "${shown}"`,
    );
  }
  return text;
}

function queueName(text: string): string {
  if (!/^[\w.-]+$/.test(text))
    throw usage(`--queue-name must be letters, digits, _ . or -, got "${text}"`);
  return text;
}

/** `60/1m`, `10/s`, `5/1000ms`, `5/1000` (ms). */
function rateLimit(text: string): { max: number; durationMs: number } {
  const match = /^(\d+)\/(\d+(?:\.\d+)?)?(ms|s|m)?$/.exec(text.trim());
  const max = Number(match?.[1]);
  const amount = match?.[2] === undefined ? 1 : Number(match[2]);
  const unit = match?.[3] ?? (match?.[2] === undefined ? "s" : "ms");
  const durationMs = amount * (unit === "m" ? 60_000 : unit === "s" ? 1000 : 1);
  if (!match || !Number.isInteger(durationMs))
    throw usage(
      `--rate-limit must be <max>/<duration> such as 60/1m, 10/s or 5/1000ms, got "${text}"`,
    );
  if (!(max >= 1))
    throw usage(
      `--rate-limit ${text} lets no attempt start: give at least 1 per window, or leave the option out for no limit`,
    );
  if (!(durationMs >= 1))
    throw usage(`--rate-limit ${text} has an empty window: give a duration of at least 1 ms`);
  return { max, durationMs };
}

function parseRuns(argv: readonly string[]): RunsArgs {
  const { values, positionals } = strictParse("runs", argv, {
    ...storeOptions,
    limit: { type: "string" },
    eval: { type: "string" },
    json: { type: "boolean" },
  });
  if (positionals.length > 0)
    throw usage(`niceeval runs takes no arguments, got "${positionals[0]}"`);
  const args: RunsArgs = {
    command: "runs",
    limit: wholeNumber("--limit", values.limit as string | undefined, 20, 100_000),
    json: values.json === true,
  };
  if (typeof values.store === "string") args.store = values.store;
  if (typeof values.eval === "string") args.evalId = values.eval;
  return args;
}

function parseShow(argv: readonly string[]): ShowArgs {
  const { values, positionals } = strictParse("show", argv, {
    ...storeOptions,
    "failures-only": { type: "boolean" },
    json: { type: "boolean" },
  });
  if (positionals.length !== 1) {
    throw usage("niceeval show takes one run: an id, an id prefix, a name, latest or latest~N");
  }
  const args: ShowArgs = {
    command: "show",
    run: positionals[0]!,
    failuresOnly: values["failures-only"] === true,
    json: values.json === true,
  };
  if (typeof values.store === "string") args.store = values.store;
  return args;
}

function parseCompare(argv: readonly string[]): CompareArgs {
  const { values, positionals } = strictParse("compare", argv, {
    ...storeOptions,
    ...compareOptions,
    json: { type: "boolean" },
  });
  if (positionals.length !== 2) {
    throw usage("niceeval compare takes two runs, <base> and <head> (e.g. latest~1 latest)");
  }
  const v = values;
  const args: CompareArgs = {
    command: "compare",
    base: positionals[0]!,
    head: positionals[1]!,
    json: v.json === true,
    ...decision(v),
  };
  if (typeof v.store === "string") args.store = v.store;
  return args;
}

function parseView(argv: readonly string[]): ViewArgs {
  const { values, positionals } = strictParse("view", argv, {
    ...storeOptions,
    host: { type: "string" },
    port: { type: "string" },
    open: { type: "boolean" },
    base: { type: "string" },
    head: { type: "string" },
  });
  if (positionals.length > 0)
    throw usage(`niceeval view takes no arguments, got "${positionals[0]}"`);
  const { base, head } = values as { base?: string; head?: string };
  if ((base === undefined) !== (head === undefined))
    throw usage(
      `niceeval view ${base === undefined ? "--head" : "--base"} needs ${base === undefined ? "--base" : "--head"} too: the two runs to open on the comparison of (niceeval view --base <run> --head <run>)`,
    );
  const host = (values.host as string | undefined) ?? "127.0.0.1";
  if (host.trim() === "") throw usage("--host must not be empty");
  const args: ViewArgs = {
    command: "view",
    host,
    port: wholeNumber("--port", values.port as string | undefined, 7420, 65_535, 0),
    open: values.open === true,
  };
  if (base !== undefined && head !== undefined) args.compare = { base, head };
  if (typeof values.store === "string") args.store = values.store;
  return args;
}

function parseExport(argv: readonly string[]): ExportArgs {
  const { values, positionals } = strictParse("export", argv, {
    ...storeOptions,
    html: { type: "string" },
    ndjson: { type: "string" },
    baseline: { type: "string" },
  });
  if (
    positionals.length !== 1 ||
    (typeof values.html !== "string" && typeof values.ndjson !== "string")
  ) {
    throw usage(
      "niceeval export takes one run and --html <file> or --ndjson <file> (e.g. export latest --html report.html)",
    );
  }
  const args: ExportArgs = { command: "export", run: positionals[0]! };
  if (typeof values.html === "string") args.html = values.html;
  if (typeof values.ndjson === "string") args.ndjson = values.ndjson;
  if (typeof values.baseline === "string") {
    if (args.html === undefined)
      throw usage("--baseline belongs to --html; the NDJSON export holds one run");
    args.baseline = values.baseline;
  }
  if (typeof values.store === "string") args.store = values.store;
  return args;
}

function parseImport(argv: readonly string[]): ImportArgs {
  const { values, positionals } = strictParse("import", argv, storeOptions);
  if (positionals.length === 0)
    throw usage(
      "niceeval import takes one or more files written by `niceeval export <run> --ndjson <file>`",
    );
  if (positionals.filter((file) => file === "-").length > 1)
    throw usage("niceeval import reads standard input (-) once; give - only once");
  const args: ImportArgs = { command: "import", files: positionals };
  if (typeof values.store === "string") args.store = values.store;
  return args;
}

function parseMerge(argv: readonly string[]): MergeArgs {
  // What `run` compares with is compared with the merged run by `compare`, a step of its own.
  const comparing = argv.find((arg) =>
    /^--(baseline|fail-on-regression|fail-on-new-failures)(=|$)/.test(arg),
  );
  if (comparing !== undefined)
    throw usage(
      `niceeval merge has no ${comparing.split("=")[0]}: merge, then compare the merged run with its baseline, as \`niceeval compare branch:main <merged run> --fail-on-regression\` (branch:NAME is the latest finished run on that git branch holding the merged run's evals)`,
    );
  // Gates and reports are of the run they are given to: each shard's, or the merged run's after.
  const gating = argv.find((arg) => /^--(min-pass-rate|min-score|strict|reporter)(=|$)/.test(arg));
  if (gating !== undefined)
    throw usage(
      `niceeval merge has no ${gating.split("=")[0]}: gates and reports apply to the run they are given to (with \`run --shard\`, each shard's, of its own cases); gate the merged run after the merge: \`niceeval show <merged run> --failures-only\` exits 1 when an attempt failed or errored, and \`niceeval show <merged run> --json\` gives each eval's counts and mean score (run.summaries) for a floor of your own (see "Sharding in CI" in the README)`,
    );
  const { values, positionals } = strictParse("merge", argv, {
    ...storeOptions,
    name: { type: "string" },
    json: { type: "boolean" },
  });
  if (positionals.length === 0)
    throw usage("niceeval merge takes the runs to merge (e.g. merge shard-1 shard-2 --name all)");
  const args: MergeArgs = { command: "merge", runs: positionals, json: values.json === true };
  if (typeof values.name === "string") {
    if (values.name.trim() === "") throw usage("--name must not be empty");
    checkRunName(values.name);
    args.name = values.name;
  }
  if (typeof values.store === "string") args.store = values.store;
  return args;
}

/**
 * A run name a reference would read as something else (latest, latest~2, branch:main) is refused,
 * and so is one that is not text on one line (a line break, a terminal's escape).
 */
function checkRunName(name: string): void {
  const problem = runNameProblem(name);
  if (problem !== undefined) throw usage(`--name ${problem}; choose a name you can type`);
  if (/^latest(~\d+)?$/.test(name) || name.startsWith("branch:"))
    throw usage(
      `--name "${name}" reads as a run reference (latest, latest~N, branch:NAME), so no command could name the run by it; choose another name`,
    );
}

function decision(v: Record<string, unknown>): CompareDecision {
  const alpha = v.alpha === undefined ? 0.05 : Number(v.alpha);
  if (!(alpha > 0 && alpha < 1))
    throw usage(`--alpha must be a number between 0 and 1, got "${v.alpha}"`);
  if (v["fail-on-new-failures"] && !v["fail-on-regression"]) {
    throw usage("--fail-on-new-failures refines --fail-on-regression; pass both");
  }
  return {
    alpha,
    seed: wholeNumber("--seed", v.seed as string | undefined, 1, 2 ** 32 - 1, 0),
    failOnRegression: v["fail-on-regression"] === true,
    failOnNewFailures: v["fail-on-new-failures"] === true,
  };
}

function wholeNumber(
  flag: string,
  text: string | undefined,
  fallback: number,
  max: number,
  min = 1,
): number {
  if (text === undefined) return fallback;
  // Digits only: Number() would also read "1e3", "0x10" and " 8".
  const value = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw usage(`${flag} must be a whole number from ${min} to ${max}, got "${text}"`);
  }
  return value;
}

/** A whole number of milliseconds a timer can arm. */
function ms(flag: string, text: unknown, fallback: number, min: number): number {
  return wholeNumber(flag, text as string | undefined, fallback, 2 ** 31 - 1001, min);
}

/** A decimal such as 0.9, .9, 1 or 1e-2 (no hex, no blanks: `Number` reads "" and " " as 0). */
const DECIMAL = /^(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

function fraction(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = DECIMAL.test(text) ? Number(text) : Number.NaN;
  if (!(value >= 0 && value <= 1))
    throw usage(`${flag} must be a number from 0 to 1, got "${text}"`);
  return value;
}

function parseTags(values: readonly string[]): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf("=");
    if (at <= 0) throw usage(`--tag must be key=value, got "${value}"`);
    const key = value.slice(0, at);
    const before = tags[key];
    // The last would win without a word: the run stored with a tag other than meant. The same
    // value again (a CI template's tags and a job's) is the same tag.
    if (before !== undefined && before !== value.slice(at + 1))
      throw usage(
        `--tag ${key} is given twice (${key}=${before} and ${value}); a tag has one value: give it once`,
      );
    tags[key] = value.slice(at + 1);
  }
  return tags;
}
