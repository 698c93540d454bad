import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { resolve } from "node:path";
import { errorMessage, NiceevalError } from "../errors.js";
import { closeAnswerStores } from "../judge/cache.js";
import { configureJudges } from "../judge/config.js";
import { consoleReporter } from "../report/console-reporter.js";
import { jsonReporter } from "../report/json-reporter.js";
import type { Reporter } from "../report/reporter.js";
import { runEvals } from "../runner/run.js";
import { HELP, makeFilter, parseCliArgs, type RunArgs } from "./args.js";
import { discoverEvalFiles } from "./discover.js";
import { loadEvalFiles } from "./load.js";

/** What the CLI needs from its process, injected so it can be tested in-process. */
export interface CliIO {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** File descriptor of the report. */
  stdoutFd: number;
  stderr: (text: string) => void;
  isTTY: boolean;
  /** Whether stderr is a terminal: the progress line goes there. */
  stderrIsTTY?: boolean;
}

/** Run the CLI; resolves to the exit code (0 passed, 1 failures, 2 usage error or crash). */
export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  try {
    const args = parseCliArgs(argv);
    // Asked-for output goes to stdout (`niceeval --help | less`); diagnostics to stderr.
    if (args.command === "help") {
      writeSync(io.stdoutFd, `${HELP}\n`);
      return 0;
    }
    if (args.command === "version") {
      writeSync(io.stdoutFd, `${packageVersion()}\n`);
      return 0;
    }
    return await runCommand(args, io);
  } catch (error) {
    if (error instanceof NiceevalError && error.code === "USAGE") {
      io.stderr(`niceeval: ${error.message}\n`);
      return 2;
    }
    io.stderr(
      `niceeval crashed: ${error instanceof Error ? (error.stack ?? error.message) : errorMessage(error)}\n`,
    );
    return 2;
  }
}

async function runCommand(args: RunArgs, io: CliIO): Promise<number> {
  const files = await discoverEvalFiles(args.paths, { cwd: io.cwd, exclude: args.exclude });
  if (files.length === 0) {
    throw new NiceevalError(
      "USAGE",
      `no eval files found in ${args.paths.length ? args.paths.join(", ") : "./evals or ./examples"}. Eval files are named *.eval.ts or *.eval.js.`,
    );
  }
  const filter = args.filter !== undefined ? makeFilter(args.filter) : undefined;
  await configureJudgeCache(args.cache);
  const loaded = await loadEvalFiles(files, io.cwd);
  const ci = Boolean(io.env.CI) && io.env.CI !== "false";
  const reporters: Reporter[] = [
    consoleReporter({
      fd: io.stdoutFd,
      color: io.isTTY && !io.env.NO_COLOR && !ci,
      progress: (io.stderrIsTTY ?? io.isTTY) && !ci && !args.quiet,
      verbose: !args.failuresOnly,
      hideEmptyEvals: args.filter !== undefined,
    }),
  ];
  if (args.json) reporters.push(openJsonReport(args.json, io.cwd));
  const abort = new AbortController();
  const onSignal = () => abort.abort(new Error("interrupted"));
  process.once("SIGINT", onSignal);
  try {
    const summary = await runEvals(loaded.entries, {
      concurrency: args.concurrency,
      reporters,
      signal: abort.signal,
      ...(filter ? { filter } : {}),
      ...(args.timeoutMs !== undefined ? { timeoutMs: args.timeoutMs } : {}),
      loadErrors: loaded.errors,
    });
    if (args.filter !== undefined && summary.totals.cases === 0) {
      // A filter that selects nothing must not pass CI by running nothing.
      const ids = loaded.entries.map((entry) => entry.eval.id).join(", ");
      io.stderr(
        `niceeval: --filter "${args.filter}" selected no case. Evals found: ${ids || "none"}\n`,
      );
      return 2;
    }
    return summary.ok ? 0 : 1;
  } finally {
    process.off("SIGINT", onSignal);
    await closeAnswerStores();
  }
}

async function configureJudgeCache(enabled: boolean): Promise<void> {
  if (!enabled) configureJudges({ cache: false });
}

/** Open the --json file up front, so a bad path is a usage error before anything runs. */
function openJsonReport(file: string, cwd: string): Reporter {
  const path = resolve(cwd, file);
  try {
    closeSync(openSync(path, "w"));
  } catch (error) {
    throw new NiceevalError(
      "USAGE",
      `--json: cannot write ${file} (${(error as NodeJS.ErrnoException).code ?? errorMessage(error)}); pass a path in an existing, writable folder`,
    );
  }
  return jsonReporter(path);
}

function packageVersion(): string {
  const url = new URL("../../package.json", import.meta.url);
  return (JSON.parse(readFileSync(url, "utf8")) as { version: string }).version;
}
