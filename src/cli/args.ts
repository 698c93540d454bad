import { parseArgs } from "node:util";
import { NiceevalError } from "../errors.js";

/** Parsed `niceeval run` options. */
export interface RunArgs {
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
}

export type CliArgs = RunArgs | { command: "help" } | { command: "version" };

export const HELP = `niceeval — evaluations for LLM applications and agents

Usage
  niceeval run [paths...] [options]   run eval files (*.eval.ts, *.eval.js)

Paths default to ./evals and ./examples; folders are searched recursively.

Options
  --filter <text>        run only evals or cases whose "evalId" or "evalId/caseId" contains
                         <text> (or matches /regex/)
  --exclude <path>       skip a file or folder (repeatable)
  --concurrency <n>      cases running at once (default 8)
  --timeout <ms>         per-case timeout of targets and adapters
  --json <file>          also write every record and the summary as JSON
  --no-cache             do not read or write the judge cache
  --failures-only        print only the cases that did not pass
  --quiet                no progress line
  -h, --help             show this help
  -v, --version          show the version

Exit codes: 0 all passed · 1 a case failed or errored, or a file failed to load · 2 usage error or crash`;

/** Parse argv (without node and script). Throws a USAGE NiceevalError on bad input. */
export function parseCliArgs(argv: readonly string[]): CliArgs {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new NiceevalError("USAGE", `${(error as Error).message}. Run \`niceeval --help\`.`);
  }
  const { values, positionals } = parsed;
  if (values.help) return { command: "help" };
  if (values.version) return { command: "version" };
  const [command, ...paths] = positionals;
  if (command === undefined) return { command: "help" };
  if (command !== "run") {
    throw new NiceevalError(
      "USAGE",
      `unknown command "${command}". Did you mean \`niceeval run\`?`,
    );
  }
  const concurrency = values.concurrency === undefined ? 8 : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new NiceevalError(
      "USAGE",
      `--concurrency must be a positive integer, got "${values.concurrency}"`,
    );
  }
  let timeoutMs: number | undefined;
  if (values.timeout !== undefined) {
    timeoutMs = Number(values.timeout);
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new NiceevalError(
        "USAGE",
        `--timeout must be a positive number of milliseconds, got "${values.timeout}"`,
      );
    }
  }
  const args: RunArgs = {
    command: "run",
    paths,
    exclude: values.exclude ?? [],
    concurrency,
    cache: !values["no-cache"],
    quiet: values.quiet ?? false,
    failuresOnly: values["failures-only"] ?? false,
  };
  if (values.filter !== undefined) args.filter = values.filter;
  if (values.json !== undefined) args.json = values.json;
  if (timeoutMs !== undefined) args.timeoutMs = timeoutMs;
  return args;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      filter: { type: "string" },
      exclude: { type: "string", multiple: true },
      concurrency: { type: "string" },
      timeout: { type: "string" },
      json: { type: "string" },
      "no-cache": { type: "boolean" },
      "failures-only": { type: "boolean" },
      quiet: { type: "boolean" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "v" },
    },
  });
}

/** Build the case filter of `--filter`. */
export function makeFilter(text: string): (evalId: string, caseId: string) => boolean {
  const regex = /^\/(.+)\/([a-z]*)$/.exec(text);
  if (regex) {
    let pattern: RegExp;
    try {
      pattern = new RegExp(regex[1]!, regex[2]);
    } catch (error) {
      throw new NiceevalError(
        "USAGE",
        `--filter: invalid pattern ${text}: ${(error as Error).message}`,
      );
    }
    return (evalId, caseId) => pattern.test(evalId) || pattern.test(`${evalId}/${caseId}`);
  }
  return (evalId, caseId) => evalId.includes(text) || `${evalId}/${caseId}`.includes(text);
}
