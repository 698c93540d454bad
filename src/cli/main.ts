import { writeSync } from "node:fs";
import { resolve } from "node:path";
import { errorMessage, isClosedOutput, NiceevalError } from "../errors.js";
import { packageVersion } from "../package-files.js";
import type { Store } from "../store/types.js";
import { HELP, type MergeArgs, parseCliArgs, type RunsArgs } from "./args.js";
import { isNdjsonToStdout } from "./early.js";
import type { CliIO } from "./io.js";
import { openFilesAdvice } from "./open-files.js";
import {
  absentPostgresStore,
  assertStoreExists,
  openStoreAt,
  storeExists,
  storeLocation,
} from "./store.js";

export type { CliIO } from "./io.js";

/** Errors that are the user's to fix (a bad flag, store or run reference): exit 2, no stack. */
const isUserError = (error: unknown): error is NiceevalError =>
  error instanceof NiceevalError && /^(USAGE$|STORE_|RUN_|COMPARE_|QUEUE_)/.test(error.code);

/** Run the CLI; resolves to the exit code (0 passed, 1 failures, 2 usage error or crash). */
export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  try {
    const args = parseCliArgs(argv, io.env, io.cwd);
    // Asked-for output goes to stdout (`niceeval --help | less`); diagnostics to stderr.
    switch (args.command) {
      case "help":
        writeSync(io.stdoutFd, `${HELP}\n`);
        return 0;
      case "version":
        writeSync(io.stdoutFd, `${packageVersion()}\n`);
        return 0;
      case "run": {
        // Each command is imported when it runs: startup loads only what the command needs.
        // The eval process starts booting while this one loads the command and its files.
        const spawn =
          args.supervise && args.queue === undefined && !args.resume
            ? await import("../supervisor/spawn.js")
            : undefined;
        spawn?.startEvalProcessEarly(
          io.cwd,
          args.reporters.some(isNdjsonToStdout) ? 2 : io.stdoutFd,
        );
        try {
          const { runCommand } = await import("./commands/run.js");
          return await runCommand(args, io, packageVersion());
        } finally {
          spawn?.discardEarlyEvalProcess();
        }
      }
      case "worker": {
        const { workerCommand } = await import("./commands/worker.js");
        return await workerCommand(args, io);
      }
      case "runs":
        return await runs(args, io);
      case "show": {
        const { showCommand } = await import("./commands/history.js");
        return await withStore(args.store, io, (store) => showCommand(args, store, io), READ);
      }
      case "compare": {
        const { compareCommand } = await import("./commands/compare.js");
        return await withStore(args.store, io, (store) => compareCommand(args, store, io), READ);
      }
      case "view": {
        const { viewCommand } = await import("../viewer/command.js");
        return await withStore(args.store, io, (store) => viewCommand(args, store, io), READ);
      }
      case "export": {
        const { exportCommand } = await import("../viewer/command.js");
        return await withStore(args.store, io, (store) => exportCommand(args, store, io), READ);
      }
      case "import": {
        const { importCommand } = await import("./commands/merge.js");
        return await withStore(args.store, io, (store) => importCommand(args, store, io));
      }
      case "merge":
        return await merge(args, io);
    }
  } catch (error) {
    // The reader of stdout left (`niceeval show latest | head`): what it asked for ends there,
    // as with other command-line tools, and that is no failure. (`run` handles this itself, so
    // its exit code stays the run's.)
    if (isClosedOutput(error)) return 0;
    if (isUserError(error)) {
      // A message that names its command ("niceeval run: …") says niceeval already.
      io.stderr(`${error.message.startsWith("niceeval ") ? "" : "niceeval: "}${error.message}\n`);
      return 2;
    }
    const advice = openFilesAdvice(error);
    if (advice !== undefined) {
      io.stderr(`${advice}\n`);
      return 2;
    }
    io.stderr(
      `niceeval crashed: ${error instanceof Error ? (error.stack ?? error.message) : errorMessage(error)}\n`,
    );
    return 2;
  }
}

/** `niceeval runs`: nothing stored yet is an empty list, not an error; nothing is created. */
async function runs(args: RunsArgs, io: CliIO): Promise<number> {
  const { runsCommand } = await import("./commands/history.js");
  const location = storeLocation(args.store, io.env);
  const none = (where: string, why: string) => {
    writeSync(io.stdoutFd, args.json ? "[]\n" : `no runs stored in ${where} (${why})\n`);
    return 0;
  };
  if (!storeExists(location, io.cwd)) return none(resolve(io.cwd, location), "no such file yet");
  let store: Store;
  try {
    store = await openStoreAt(location, io.cwd, true);
  } catch (error) {
    const absent = absentPostgresStore(location, error);
    if (absent !== undefined) return none(absent, "no niceeval tables yet");
    throw error;
  }
  try {
    return await runsCommand(args, store, io);
  } finally {
    await store.close();
  }
}

/**
 * `niceeval merge`: the exports it names are read, and refused when they cannot be merged,
 * before the store opens (none made for a refusal).
 */
async function merge(args: MergeArgs, io: CliIO): Promise<number> {
  const command = await import("./commands/merge.js");
  const files = await command.openMergeFiles(args.runs, io.cwd);
  try {
    command.refuseMergeFiles(args, files);
    return await withStore(
      args.store,
      io,
      (store) => command.mergeCommand(args, files, store, io),
      {
        mustExist: files.size === 0,
      },
    );
  } catch (error) {
    throw command.namingMergeFiles(error, files);
  } finally {
    await command.closeMergeFiles(files);
  }
}

/** A command that only reads the store, which must be there. */
const READ = { reads: true, mustExist: true } as const;

/**
 * Run `work` with the store a command names. `mustExist`: a missing SQLite file is an error
 * rather than a new empty store; `reads`: the command writes nothing to it (see openStoreAt).
 */
async function withStore(
  flag: string | undefined,
  io: CliIO,
  work: (store: Store) => Promise<number>,
  { reads = false, mustExist = false }: { reads?: boolean; mustExist?: boolean } = {},
): Promise<number> {
  const location = storeLocation(flag, io.env);
  if (mustExist) assertStoreExists(location, io.cwd);
  const store = await openStoreAt(location, io.cwd, reads);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}
