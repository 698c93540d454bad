#!/usr/bin/env node
import { isatty } from "node:tty";
import { dropWritesToClosedStdio } from "./closed-stdio.js";
import { evalProcessStdout, holdSignals, mayStartEvalProcess, mayStoreRun } from "./early.js";
import { guardSilentExit } from "./exit-guard.js";
import { openFilesAdvice } from "./open-files.js";

// A reader that leaves (`niceeval run 2>&1 | head`): what is written to it after is dropped.
dropWritesToClosedStdio();
const argv = process.argv.slice(2);
const exitGuard = guardSilentExit();
/** A module of the CLI, loaded; a process out of file descriptors is told what to raise. */
const loading = <T>(module: Promise<T>): Promise<T> =>
  module.catch((error: unknown) => {
    const advice = openFilesAdvice(error);
    if (advice === undefined) throw error;
    process.stderr.write(`${advice}\n`);
    return exitGuard.exit(2);
  });
// A signal before the run's guard is installed is the run's too: held until the guard takes it.
const heldSignals = holdSignals(argv);
// A run starts its eval process before this one loads the CLI, so that Node's start-up there
// overlaps the loading here; the run adopts it, and a command that does not is ended with it.
const spawn = mayStartEvalProcess(argv, process.env)
  ? await loading(import("../supervisor/spawn.js"))
  : undefined;
spawn?.startEvalProcessEarly(process.cwd(), evalProcessStdout(argv));
// Likewise the `git status` of a stored run's manifest, while this process is still small to fork.
if (mayStoreRun(argv)) (await loading(import("./git-state.js"))).readGitStateEarly(process.cwd());
const { main } = await loading(import("./main.js"));
const code = await main(argv, {
  cwd: process.cwd(),
  env: process.env,
  stdoutFd: 1,
  stderr: (text) => process.stderr.write(text),
  // isatty rather than process.stdout.isTTY: creating the stream makes a pipe non-blocking, and
  // the report's synchronous writes would then have to wait for room themselves.
  isTTY: isatty(1),
  stderrIsTTY: isatty(2),
  ...(heldSignals ? { heldSignals } : {}),
});
spawn?.discardEarlyEvalProcess();
exitGuard.exit(code);
