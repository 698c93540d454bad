import { type ChildProcess, fork, type StdioOptions, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync, readSync, statSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { builtFile } from "../package-files.js";
import { keepListener } from "../process-listeners.js";
import { CLAIMS_FD, EXIT_CLAIMS_AT } from "./protocol.js";

const childUrl = builtFile("supervisor/child.js");

interface Early {
  readonly process: ChildProcess;
  readonly cwd: string;
  readonly stdoutFd: number | undefined;
  /** Stop listening for its spawn's failure: a run listens from now on. */
  readonly adopted: () => void;
}

let early: Early | undefined;
// An eval process ignores SIGTERM (its supervisor decides what a signal means), and one not yet
// adopted has run no user code: it is ended with SIGKILL.

/**
 * A small file the eval process writes, before it starts attempts, how many of the jobs it was
 * sent it has taken from its queue; its supervisor reads it only after the process ended, to tell
 * the attempts that may have caused that from those that never started. A write to a file wakes
 * no one, unlike a message. Unlinked at once where the system allows.
 */
interface ClaimsFile {
  fd: number;
  /** Still to remove (a system that cannot unlink an open file). */
  path?: string;
}

const claimsFiles = new WeakMap<ChildProcess, ClaimsFile>();

function openClaimsFile(): ClaimsFile | undefined {
  // Created exclusively ("wx"), so a name taken by anything else (a link included) is refused,
  // never followed; not from node:crypto, whose loading would delay the eval process's start.
  const unique = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
  const path = join(tmpdir(), `niceeval-claims-${process.pid}-${unique}`);
  let fd: number;
  try {
    fd = openSync(path, "wx+", 0o600);
  } catch {
    return undefined;
  }
  try {
    unlinkSync(path);
    return { fd };
  } catch {
    return { fd, path };
  }
}

/** Eval processes the kernel kills when their supervisor ends (see {@link parentDeathLauncher}). */
const killedWithParent = new WeakSet<ChildProcess>();

function forkEvalProcess(cwd: string, stdoutFd: number | undefined): ChildProcess {
  const claims = openClaimsFile();
  const stdio: (string | number)[] = ["inherit", stdoutFd ?? "inherit", "pipe", "ipc"];
  if (claims) stdio[CLAIMS_FD] = claims.fd;
  const execArgv = childExecArgv(process.execArgv);
  const launcher = parentDeathLauncher();
  let child: ChildProcess;
  try {
    child = launcher
      ? // setpriv sets the signal, then execs Node in the same process: the IPC channel and the
        // claims file are inherited like any fd, and NODE_CHANNEL_FD says where the channel is.
        spawn(
          launcher,
          ["--pdeathsig", "KILL", "--", process.execPath, ...execArgv, fileURLToPath(childUrl)],
          { cwd, serialization: "advanced", stdio: stdio as StdioOptions, detached: OWN_GROUP },
        )
      : fork(childUrl, [], {
          cwd,
          execArgv,
          serialization: "advanced",
          stdio: stdio as StdioOptions,
          detached: OWN_GROUP,
        });
  } catch (error) {
    if (claims) closeClaims(claims);
    throw error;
  }
  if (OWN_GROUP) endGroupWith(child);
  if (launcher) killedWithParent.add(child);
  if (claims) claimsFiles.set(child, claims);
  return child;
}

/**
 * Each eval process leads a process group of its own (a new session, where there are groups), so
 * the processes its targets started, and theirs, can be ended with it: a target that spawns a
 * server, a shell or a `sleep 1000` and never ends it would otherwise leave it running after the
 * run, or after the eval process was killed for a hang. A terminal's Ctrl-C reaches the CLI alone,
 * which stops the run as it decides (run-guard.ts); a process a target put in a group of its own
 * (`detached: true`) is not followed.
 */
const OWN_GROUP = process.platform !== "win32";
/** The process groups of eval processes still running. */
const groups = new Set<number>();
let groupsEndOnExit = false;

function endGroupWith(child: ChildProcess): void {
  const pid = child.pid;
  if (pid === undefined) return;
  groups.add(pid);
  // What is left of the group once its eval process ended, however it ended.
  child.once("exit", () => {
    groups.delete(pid);
    killGroup(pid);
  });
  if (!groupsEndOnExit) {
    groupsEndOnExit = true;
    // A CLI that exits before its eval process's exit was heard still ends their groups (the
    // kernel ends the eval process itself: parentDeathLauncher).
    keepListener("exit", () => {
      for (const group of groups) killGroup(group);
    });
    // A terminal that hangs up signals the CLI's group alone: the groups end with the CLI, which
    // then ends as the signal would have ended it (no listener left, its default action).
    let removeHangUp = () => {};
    const onHangUp = () => {
      for (const group of groups) killGroup(group);
      removeHangUp();
      process.kill(process.pid, "SIGHUP");
    };
    if (process.platform !== "win32") removeHangUp = keepListener("SIGHUP", onHangUp);
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {}
}

/**
 * An eval process started through setpriv ended before it said anything: setpriv may not be able
 * to set the signal where this runs (a sandbox refusing the call). Eval processes start without
 * it from now on (each with its watching thread); true when that is a change.
 */
export function dropParentDeathLauncher(child: ChildProcess): boolean {
  if (!killedWithParent.has(child) || launcherFound === null) return false;
  launcherFound = null;
  return true;
}

/** Whether the kernel ends this eval process when its supervisor ends (so it needs no watching thread). */
export function endsWithParent(child: ChildProcess): boolean {
  return killedWithParent.has(child);
}

let launcherFound: string | null | undefined;

/**
 * The program that starts an eval process with the kernel's parent-death signal, or undefined.
 * An eval process must not outlive its supervisor, even with a target holding its event loop
 * (which never sees the IPC channel close). On Linux, util-linux's `setpriv --pdeathsig KILL`
 * asks the kernel to SIGKILL it the moment the thread that started it ends, at no cost. Elsewhere,
 * or with a setpriv older than the option (util-linux 2.33), the eval process starts a thread
 * that watches its parent instead (orphan-watch.ts), which costs a Node start-up on a thread.
 * `NICEEVAL_ORPHAN_WATCH=thread` chooses the thread (the tests of that path use it).
 */
export function parentDeathLauncher(): string | undefined {
  if (launcherFound === undefined) launcherFound = findSetpriv() ?? null;
  return launcherFound ?? undefined;
}

function findSetpriv(): string | undefined {
  if (process.platform !== "linux" || process.env.NICEEVAL_ORPHAN_WATCH === "thread")
    return undefined;
  for (const dir of (process.env.PATH ?? "/usr/bin:/bin").split(delimiter)) {
    if (!dir) continue;
    const path = join(dir, "setpriv");
    try {
      // Asked without throwing first: most folders of PATH have none, and an error costs its
      // stack (a folder that cannot be read still throws, and is passed over).
      if (!statSync(path, { throwIfNoEntry: false })?.isFile()) continue;
      // The option's name is in the program's own option table: reading it is cheaper than
      // starting the program to ask, and a setpriv without it is passed over.
      if (readFileSync(path).includes("pdeathsig")) return path;
    } catch {}
  }
  return undefined;
}

/**
 * The Node flags an eval process starts with: this process's (memory limits, `--import` hooks,
 * `--conditions` and the like carry over), without those about code given on the command line
 * (`-e`, `-p` and their code, `--input-type`): a script run with `node --input-type=module -e …`
 * that starts a supervised run would otherwise start eval processes that run that code again or
 * refuse their own entry file.
 */
export function childExecArgv(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const flag = execArgv[i]!;
    if (CODE_FLAGS.has(flag)) {
      // And the code (or the type) that follows, unless a flag follows: `-p -e <code>`.
      if (!execArgv[i + 1]?.startsWith("-")) i++;
      continue;
    }
    if (
      flag.startsWith("--input-type=") ||
      flag.startsWith("--eval=") ||
      flag.startsWith("--print=")
    )
      continue;
    kept.push(flag);
  }
  return kept;
}

/** Flags followed by code (or, for `--input-type`, the type of that code). */
const CODE_FLAGS = new Set(["-e", "--eval", "-p", "--print", "-pe", "--input-type"]);

function closeClaims(claims: ClaimsFile): void {
  try {
    closeSync(claims.fd);
  } catch {}
  if (claims.path) {
    try {
      unlinkSync(claims.path);
    } catch {}
  }
}

/** Close the claims file of an eval process that ended (its supervisor has read it). */
export function releaseClaims(child: ChildProcess): void {
  const claims = claimsFiles.get(child);
  if (!claims) return;
  claimsFiles.delete(child);
  closeClaims(claims);
}

/** Whether this eval process has a claims file (on fd {@link CLAIMS_FD}). */
export function hasClaimsFile(child: ChildProcess): boolean {
  return claimsFiles.has(child);
}

/**
 * How many of the jobs sent to this (ended) eval process it had taken from its queue, as its
 * claims file says; undefined without one. A job it had not taken never started.
 */
export function takenCount(child: ChildProcess): number | undefined {
  const claims = claimsFiles.get(child);
  if (!claims) return undefined;
  const buffer = Buffer.alloc(8);
  try {
    if (readSync(claims.fd, buffer, 0, 8, 0) < 8) return 0;
  } catch {
    return undefined;
  }
  const count = buffer.readDoubleLE(0);
  return Number.isInteger(count) && count >= 0 ? count : undefined;
}

/**
 * The attempts an (ended) eval process running ahead had started and perhaps not finished, as
 * its claims file says (after the taken count: how many, then their keys); undefined without one.
 */
export function aheadClaims(child: ChildProcess): number[] | undefined {
  const claims = claimsFiles.get(child);
  if (!claims) return undefined;
  const head = Buffer.alloc(8);
  try {
    if (readSync(claims.fd, head, 0, 8, 8) < 8) return [];
    const count = head.readDoubleLE(0);
    if (!(Number.isInteger(count) && count >= 0 && count <= 1 << 16)) return [];
    const body = Buffer.alloc(8 * count);
    const read = readSync(claims.fd, body, 0, body.length, 16);
    const keys: number[] = [];
    for (let at = 0; at + 8 <= read; at += 8) keys.push(body.readDoubleLE(at));
    return keys;
  } catch {
    return undefined;
  }
}

/** What an ended eval process wrote on its way out of `process.exit` ({@link exitClaims}). */
export interface ExitClaims {
  running: Set<number>;
  events: string | undefined;
  /** Where user code called process.exit, when it did. */
  exitAt: string | undefined;
  /** Where user code called process.disconnect ("" when not known), when it did. */
  disconnectAt: string | undefined;
}

/**
 * What this (ended) eval process wrote on its way out of `process.exit`: which of the attempts it
 * was sent were running then, and the events it had not sent yet (a packed batch, as JSON);
 * undefined when it wrote nothing (killed, out of memory, no claims file). An attempt it finished
 * whose record was still to be sent is not among the running ones.
 */
export function exitClaims(child: ChildProcess): ExitClaims | undefined {
  const claims = claimsFiles.get(child);
  if (!claims) return undefined;
  const head = Buffer.alloc(16);
  try {
    if (readSync(claims.fd, head, 0, 16, EXIT_CLAIMS_AT) < 16) return undefined;
    const count = head.readDoubleLE(8);
    if (head.readDoubleLE(0) !== 1 || !(Number.isInteger(count) && count >= 0 && count <= 1 << 16))
      return undefined;
    const body = Buffer.alloc(8 * count + 8);
    if (readSync(claims.fd, body, 0, body.length, EXIT_CLAIMS_AT + 16) < body.length)
      return undefined;
    const running = new Set<number>();
    for (let at = 0; at < 8 * count; at += 8) running.add(body.readDoubleLE(at));
    const eventsLength = body.readDoubleLE(8 * count);
    const events = exitEvents(claims.fd, eventsLength, 24 + 8 * count);
    const whereAt =
      24 + 8 * count + (Number.isInteger(eventsLength) && eventsLength > 0 ? eventsLength : 0);
    const exit = exitText(claims.fd, whereAt);
    const cut = exit && exitText(claims.fd, exit.next);
    return { running, events, exitAt: exit?.text || undefined, disconnectAt: cut?.text };
  } catch {
    return undefined;
  }
}

/**
 * The text whose length is written at `at` past EXIT_CLAIMS_AT (undefined for a length below 0,
 * or none written), and where the next begins.
 */
function exitText(fd: number, at: number): { text: string | undefined; next: number } | undefined {
  const head = Buffer.alloc(8);
  if (readSync(fd, head, 0, 8, EXIT_CLAIMS_AT + at) < 8) return undefined;
  const length = head.readDoubleLE(0);
  if (!Number.isInteger(length) || length < 0) return { text: undefined, next: at + 8 };
  const text = length === 0 ? "" : exitEvents(fd, length, at + 8);
  return { text, next: at + 8 + length };
}

/** Text an exiting eval process wrote after its running attempts: its events, where it exited. */
function exitEvents(fd: number, length: number, at: number): string | undefined {
  if (!(Number.isInteger(length) && length > 0)) return undefined;
  const bytes = Buffer.alloc(length);
  if (readSync(fd, bytes, 0, length, EXIT_CLAIMS_AT + at) < length) return undefined;
  return bytes.toString("utf8");
}

/**
 * Start an eval process now, before the command has read its files: Node's own start-up in the
 * child overlaps the parent's. The next {@link takeEvalProcess} with the same cwd and stdout
 * adopts it; {@link discardEarlyEvalProcess} ends it when nothing did.
 */
export function startEvalProcessEarly(cwd: string, stdoutFd: number | undefined): void {
  if (early) return;
  const child = forkEvalProcess(cwd, stdoutFd);
  // A spawn that failed (out of file descriptors, say) says so by an event, before any run could
  // listen: it is not adopted, and the run's own start meets the cause and says it. Only until
  // it is adopted: a send to an adopted one that died is its run's to hear (its claims file is
  // read when its exit is heard).
  const onSpawnError = () => {
    if (child.pid !== undefined) return;
    spawnFailed.add(child);
    releaseClaims(child);
  };
  child.on("error", onSpawnError);
  early = { process: child, cwd, stdoutFd, adopted: () => child.off("error", onSpawnError) };
}

/** Eval processes started early whose spawn failed. */
const spawnFailed = new WeakSet<ChildProcess>();

/** An eval process waiting for its `init`: the one started early when it fits, else a new one. */
export function takeEvalProcess(cwd: string, stdoutFd: number | undefined): ChildProcess {
  const waiting = early;
  early = undefined;
  if (
    waiting &&
    waiting.cwd === cwd &&
    waiting.stdoutFd === stdoutFd &&
    waiting.process.connected &&
    waiting.process.exitCode === null &&
    !spawnFailed.has(waiting.process)
  ) {
    waiting.adopted();
    return waiting.process;
  }
  if (waiting) {
    waiting.process.kill("SIGKILL");
    releaseClaims(waiting.process);
  }
  return forkEvalProcess(cwd, stdoutFd);
}

/** End the eval process started early that no run adopted (a usage error, `--no-supervise` on resume). */
export function discardEarlyEvalProcess(): void {
  if (early) {
    early.process.kill("SIGKILL");
    releaseClaims(early.process);
  }
  early = undefined;
}
