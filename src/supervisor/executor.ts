import { type AttemptRecord, type Judgment, unreportedUsage } from "../eval/record.js";
import { resumableStop, runsAgain } from "../eval/run-origin.js";
import { type JudgePushBack, judgePushedBack } from "../judge/retries.js";
import type { AttemptJob, Executor } from "../runner/executor.js";
import { crashed } from "../runner/source.js";
import type { LoadError } from "../runner/summary.js";
import { AheadRun } from "./ahead-run.js";
import { BLOCKED_BEATS, blockedCause, blockedMessage, blockedPastLimit } from "./blocked.js";
import { CaseReads } from "./case-reads.js";
import {
  attemptLabel,
  crashAfterStop,
  crashMessage,
  cutBeforeRerun,
  exitCause,
  exitedOnItsOwn,
  exitOfNoAttempt,
  exitWhat,
  exitWhere,
  hangCause,
  leftOpen,
  loadCrashed,
  loadHung,
  loadingLimitMs,
  MAX_STRIKES,
  notStarted,
  struckOut,
  thrownAfterStop,
  unplacedThrown,
} from "./causes.js";
import { EvalProcess, type EvalProcessListener, type Pending } from "./eval-process.js";
import {
  type AheadPlan,
  type CasesReply,
  type CasesRequest,
  type EvalDescription,
  RECORD_FLAGS,
} from "./protocol.js";
import { aheadClaims, dropParentDeathLauncher, takenCount } from "./spawn.js";
import { exitedAgain, type RunError, Unplaced } from "./unplaced.js";

export type { RunError } from "./unplaced.js";

/** Default limit on an eval process whose event loop does not answer, ms. */
export const DEFAULT_HANG_TIMEOUT_MS = 60_000;
/**
 * Attempts the supervisor asks for beyond the run's concurrency: they wait in the eval process,
 * which starts the next one as soon as one ends instead of waiting for this process to answer.
 */
export const DEFAULT_PREFETCH = 256;
/**
 * Attempts asked for beyond the run's concurrency when the eval process runs ahead: their records
 * are mostly there already, and an attempt waiting for its record costs this process more than
 * the wait.
 */
const AHEAD_PREFETCH = 64;
/** Cases waiting in the eval process take at most about this much (large inputs wait here). */
const MAX_QUEUED_BYTES = 8 * 1024 * 1024;
/**
 * Crashes an attempt may wait through in the child's queue, never started, before it counts as in
 * flight anyway (a bound, should the word that it started ever be lost with the process).
 */
const MAX_REQUEUES = 8;
/** Errors not tied to one case said on stderr as they come; the rest are counted once. */
const SAID_RUN_ERRORS = 10;

/** Options of {@link supervisedExecutor}. */
export interface SupervisorOptions {
  /** The eval files the child loads (the same the run's entries came from). */
  files: readonly string[];
  cwd: string;
  /** False under `--no-cache`. Default true. */
  judgeCache?: boolean;
  /** Kill the eval process when its event loop stays blocked this long, ms (default 60 s). */
  hangTimeoutMs?: number;
  /** Where the child's stdout goes (default: this process's). */
  stdoutFd?: number;
  /** Crashes, restarts and the child's own stderr. Default: process.stderr. */
  stderr?: (text: string) => void;
  /** Start the child now rather than at the first attempt (it loads while the caller does). */
  start?: boolean;
  /** Attempts queued in the eval process beyond the run's concurrency (default 256; 0: none). */
  prefetch?: number;
  /**
   * Given each error not tied to one attempt (`runErrors`) instead of keeping and saying it: a
   * queue worker, whose eval process runs the attempts of any run, has no run to put it on.
   */
  onRunError?: (error: RunError) => void;
}

/** The supervised executor: attempts run in a child process this one watches and replaces. */
export interface SupervisedExecutor extends Executor {
  /**
   * Let the eval process run the run's attempts on its own, ahead of the engine's asking
   * (AheadPlan): the run's engine must then select the same attempts from the same files. Until
   * a crash; attempts are asked for one by one from then on.
   */
  runAhead(plan: AheadPlan, evalIds: readonly string[]): void;
  takeFinished: NonNullable<Executor["takeFinished"]>;
  /** Give up on every attempt not finished: each is errored with `reason`; the child is killed. */
  interrupt(reason: string): void;
  close(): Promise<void>;
  /** Uncaught errors in the eval process that belonged to no one attempt. */
  readonly runErrors: readonly RunError[];
  /**
   * The evals an eval process loaded, described, and why files failed to load, in the order of
   * the files (every file, when no eval process could load them). The CLI runs these without
   * importing the files: their cases come from {@link readCases}.
   */
  childEvals(): Promise<ChildEvals>;
  /** An eval's cases, read by the eval process (at most `max`, after the first `from`). */
  readCases(request: Omit<CasesRequest, "t">): Promise<CasesReply>;
}

/** What {@link SupervisedExecutor.childEvals} gives. */
export interface ChildEvals {
  described: readonly EvalDescription[];
  errors: LoadError[];
}

/**
 * Runs attempts in a child process (`child.ts`) that loads the same eval files. It is handed
 * `prefetch` attempts beyond the run's concurrency, which wait in the child's queue: the child
 * runs at most the concurrency at once and starts the next as soon as one ends, while this process
 * handles the records, so the two work at the same time instead of taking turns. The child sends
 * a heartbeat; when it exits, crashes, runs out of memory or stops answering for longer than
 * the hang timeout, the attempts in flight run again one at a time in a fresh child, those only
 * waiting in its queue run again as they were, and an attempt in flight at two crashes is errored
 * with the cause. Records come back to this process (as changes against earlier ones, delta.ts),
 * so the report and the store are written here whatever the child does.
 */
export function supervisedExecutor(options: SupervisorOptions): SupervisedExecutor {
  const supervisor = new Supervisor(options);
  return {
    // Read when a run starts: one run ahead needs few asked for in advance (most are there).
    get prefetch() {
      return supervisor.prefetch;
    },
    runErrors: supervisor.runErrors,
    runAhead: (plan, evalIds) => supervisor.runAhead(plan, evalIds),
    takeFinished: (entry, spec, trial) => supervisor.ahead.take(entry, spec, trial),
    ranAhead: supervisor.ahead,
    execute: (job) => supervisor.execute(job),
    interrupt: (reason) => supervisor.interrupt(reason),
    finished: () => void supervisor.close(),
    close: () => supervisor.close(),
    childEvals: () => supervisor.childEvals(),
    readCases: (request) => supervisor.caseReads.read(request),
  };
}

/**
 * The attempts of a supervised run and the eval process that runs them: which wait to be sent
 * (`fresh`), which run alone after a crash (`suspects`), and what a crash, a hang or an interrupt
 * does to each. What the eval process says reaches it as an {@link EvalProcessListener}.
 */
class Supervisor implements EvalProcessListener {
  readonly runErrors: RunError[] = [];
  readonly ahead: AheadRun<Pending, EvalProcess>;
  readonly caseReads = new CaseReads(
    // Not beside a suspect running alone: the read then waits to go alone itself.
    (request) => {
      const { child } = this;
      if (!(child?.ready && !child.exit && child.alone === 0 && child.postRead(request)))
        return false;
      // After the read, which leaves at the end of this turn's microtasks (postRead).
      queueMicrotask(() => this.startAhead(child));
      return true;
    },
    () => this.schedule(),
  );
  /** The evals the last eval process that got ready loaded, and the files it could not. */
  private described: readonly EvalDescription[] = [];
  private loadErrors: readonly LoadError[] = [];
  private readonly hangMs: number;
  private readonly beatMs: number;
  /** How often the heartbeat is checked, ms. */
  private readonly checkMs: number;
  private readonly writeStderr: (text: string) => void;
  private readonly fresh: Pending[] = [];
  /** Attempts in flight at a crash: each runs alone, so a second crash names its culprit. */
  private readonly suspects: Pending[] = [];
  private readonly watched = new WeakSet<AbortSignal>();
  private child: EvalProcess | undefined;
  private nextId = 0;
  private scheduled = false;
  private startupFailures = 0;
  private broken: string | undefined;
  private stopped: string | undefined;
  private aborted: string | undefined;
  /** The stop that set `aborted` leaves a run `--resume` continues. */
  private resumable = false;
  private closing = false;
  private closed: Promise<void> | undefined;
  private monitor: ReturnType<typeof setInterval> | undefined;
  /** A child reported an uncaught error it could not place: children from now on track attempts. */
  private track = false;
  /** The last such error, while the attempts that run again for it may still say whose it is. */
  private unplaced: Unplaced | undefined;
  /** That error as an attempt run again for it names it, should the run's stop come first. */
  private unplacedWhy = "";
  /** Every such error or exit of an eval process, ended (decided) at the latest with the run. */
  private readonly placings: Unplaced[] = [];
  private lastCheck = performance.now();
  /** Since when this process has checked on time (a heartbeat not read before is no silence). */
  private steadySince = performance.now();
  /** The eval process may run the run's attempts ahead of the engine (AheadPlan). */
  private planned = false;
  /** The run's trials, when known (an eval's own win): crash notices then name each trial. */
  private trials = 1;
  /** The eval files each new eval process loads: the run's, but those whose import hung one. */
  private files: readonly string[];
  /** Files whose import hung (or twice crashed) an eval process, with the load error. */
  private readonly hung = new Map<string, string>();
  /** How many eval processes crashed while importing each file. */
  private readonly loadCrashes = new Map<string, number>();
  private loadWaiters: (() => void)[] = [];

  constructor(private readonly options: SupervisorOptions) {
    this.files = options.files;
    this.hangMs = options.hangTimeoutMs ?? DEFAULT_HANG_TIMEOUT_MS;
    // Often enough to see a loop blocked past an attempt's time limit before the engine's own
    // last-resort limit (a second later) takes it (blocked.ts).
    this.beatMs = Math.max(10, Math.min(100, Math.floor(this.hangMs / 4)));
    this.checkMs = Math.max(5, Math.min(100, Math.floor(this.hangMs / 4)));
    this.writeStderr = options.stderr ?? ((text: string) => process.stderr.write(text));
    this.ahead = new AheadRun<Pending, EvalProcess>({
      ask: (pending) => this.send(pending),
      // Only after an uncaught error nobody could place (one the engine asks for later included).
      isolate: (pending) => {
        pending.alone = true;
        pending.rerunFor = this.unplacedWhy;
        if (this.unplaced) placeWith(pending, this.unplaced);
        this.rerun(pending);
      },
      strike: (pending, strikes, cause, afterEnd, marks) => {
        // Before it is struck: one errored now ended the process again, and owns those exits.
        for (const mark of marks) if (mark instanceof Unplaced) placeWith(pending, mark);
        if (this.strike(pending, strikes, cause, afterEnd)) this.rerun(pending);
      },
      cutOff: (pending, reason) => this.fail(pending, reason, pending.ranMs),
      post: (message) => {
        const { child } = this;
        if (child && this.ahead.owns(child) && !child.exit) child.post(message);
      },
      warn: this.writeStderr,
    });
    if (options.start) this.child = this.spawn();
  }

  get prefetch(): number {
    if (this.planned) return AHEAD_PREFETCH;
    return Math.max(0, this.options.prefetch ?? DEFAULT_PREFETCH);
  }

  runAhead(plan: AheadPlan, evalIds: readonly string[]): void {
    this.planned = true;
    this.trials = plan.trials ?? 1;
    this.ahead.configure(plan, evalIds);
    const { child } = this;
    // After any read asked for in this turn (see startAhead).
    if (child) queueMicrotask(() => this.startAhead(child));
  }

  /**
   * Let `child` run the run's attempts ahead, once it is ready and a read of cases went to it: an
   * attempt that holds its thread for good then cannot keep the engine from the cases it asked
   * for first (its reply leaves before any attempt starts, child.ts).
   */
  private startAhead(child: EvalProcess): void {
    if (this.planned && child === this.child && child.ready && child.readsSent > 0)
      this.ahead.start(child, child.evals);
  }

  execute(job: AttemptJob): Promise<AttemptRecord> {
    const finished = this.ahead.take(job.entry, job.spec, job.trial);
    if (finished) return Promise.resolve(finished.record);
    return new Promise<AttemptRecord>((resolve) => {
      const pending: Pending = {
        id: this.nextId++,
        job,
        resolve,
        strikes: 0,
        alone: false,
        sentAt: 0,
        started: false,
        requeues: 0,
        bytes: 0,
        pos: 0,
      };
      // Stopped: what ran ahead and was cut off is errored so when the engine reaches it.
      if (this.stopped !== undefined && this.ahead.claimStopped(pending)) return;
      const refusal =
        this.stopped !== undefined ? notStarted(job.context.signal, this.stopped) : this.broken;
      if (refusal !== undefined) return this.fail(pending, refusal);
      this.watchAbort(job.context.signal);
      // One the eval process runs ahead needs no sending, but an eval process to run it (or to be
      // sent it, after a fallback).
      if (this.ahead.claim(pending)) this.schedule();
      else this.send(pending);
    });
  }

  /**
   * Send `pending` to the eval process. After the run's stop no case starts (an eval process
   * would refuse it alike), so it is refused here: no eval process is started for it after a crash.
   */
  private send(pending: Pending): void {
    const { signal } = pending.job.context;
    if (signal.aborted) {
      this.fail(pending, notStarted(signal, this.aborted ?? ""));
      return;
    }
    this.fresh.push(pending);
    this.schedule();
  }

  interrupt(reason: string): void {
    if (this.stopped !== undefined) return;
    this.stopped = reason;
    // Attempts that were to run again for an unplaced error or exit will not: whose it is stays
    // open (decided before those running alone are cut off, which cannot tell it either).
    this.endPlacings(true);
    this.settleLoad();
    this.caseReads.end();
    const current = this.retire();
    if (current) {
      current.process.kill("SIGKILL");
      for (const pending of current.inFlight.values()) this.fail(pending, reason);
      // What it ran ahead and did not finish, by what it said and by its claims file.
      if (this.ahead.owns(current))
        for (const pending of this.ahead.interrupted(reason, aheadClaims(current.process)))
          this.fail(pending, reason);
    }
    for (const pending of this.ahead.drain()) this.fail(pending, reason);
    for (const pending of this.suspects.splice(0)) this.cutOff(pending);
    for (const pending of this.fresh.splice(0)) this.fail(pending, reason);
  }

  /** End the eval process (once: the run's end starts it, the command's end waits for it). */
  close(): Promise<void> {
    this.closed ??= this.closeNow();
    return this.closed;
  }

  private async closeNow(): Promise<void> {
    this.closing = true;
    // Before the run's summary is made (the run's end calls this at once): an attempt that was to
    // run again for it and never did (the engine's time limit took it) leaves it the run's, unless
    // the run's stop kept it from running again.
    this.endPlacings(this.aborted !== undefined || this.stopped !== undefined);
    this.countUnsaidRunErrors();
    this.settleLoad();
    this.caseReads.end();
    if (this.monitor) clearInterval(this.monitor);
    const current = this.retire();
    if (!current) return;
    if (current.process.exitCode === null && current.process.signalCode === null) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => current.process.kill("SIGKILL"), 5000);
        current.process.once("exit", () => {
          clearTimeout(timer);
          resolve();
        });
        // One still loading the eval files ran nothing, and may not answer until they load (a
        // top-level await): it is ended at once.
        if (!current.ready || !current.post({ t: "close" })) current.process.kill("SIGKILL");
      });
    }
    // What the code under test wrote to stderr just before the end reaches the CLI's stderr.
    await current.stderrRead();
  }

  // What the eval process says (EvalProcessListener).

  ready(from: EvalProcess): void {
    this.startupFailures = 0;
    this.described = from.described;
    this.loadErrors = from.loadErrors;
    this.settleLoad();
    this.caseReads.resend();
    this.schedule();
  }

  started(from: EvalProcess, id: number, now: number): void {
    const pending = from.inFlight.get(id);
    if (!pending || pending.started) return;
    pending.started = true;
    pending.sentAt = now;
    from.unqueue(pending);
    pending.job.queue?.started();
  }

  record(from: EvalProcess, id: number, record: AttemptRecord, flags: number): void {
    if (id < 0) {
      this.recordLater(from, id, () => record, flags);
      return;
    }
    const pending = from.settle(id);
    if (!pending) return;
    // A rerun the run's stop came before (the eval process refused it unstarted): cut off.
    if (!pending.started && pending.rerunFor !== undefined && this.aborted !== undefined) {
      this.cutOff(pending);
      return;
    }
    // What the child left off (RECORD_FLAGS), put back.
    if (flags & RECORD_FLAGS.caseId) record.caseId = pending.job.spec.id;
    if (flags & RECORD_FLAGS.unreported)
      record.usage = { app: unreportedUsage(), judge: record.usage.judge };
    this.finish(pending, record);
  }

  recordLater(from: EvalProcess, id: number, decode: () => AttemptRecord, flags: number): void {
    if (!this.ahead.owns(from)) return;
    if (!(flags & RECORD_FLAGS.unreported)) {
      this.ahead.onRecord(id, decode);
      return;
    }
    this.ahead.onRecord(id, () => {
      const record = decode();
      record.usage = { app: unreportedUsage(), judge: record.usage.judge };
      return record;
    });
  }

  judgment(from: EvalProcess, id: number, judgment: Judgment): void {
    from.inFlight.get(id)?.job.context.onJudgment?.(judgment);
  }

  began(from: EvalProcess, keys: readonly unknown[], at: number, count: number, now: number) {
    if (this.ahead.owns(from)) this.ahead.onBegan(keys, at, count, now);
  }

  aheadEnd(from: EvalProcess): void {
    if (this.ahead.owns(from)) this.ahead.onEnd();
  }

  cases(from: EvalProcess, reply: CasesReply): void {
    if (from === this.child) this.caseReads.answer(reply);
  }

  /** Its attempts' judges are this process's: their push-back is told here (a queue worker's). */
  pushBack(event: JudgePushBack): void {
    judgePushedBack(event);
  }

  aheadStalled(from: EvalProcess): void {
    if (this.ahead.owns(from)) this.ahead.onStalled();
  }

  runError(from: EvalProcess, message: string, where: string, reruns?: readonly number[]): void {
    if (reruns === undefined) {
      this.addRunError({ message, where });
      return;
    }
    // From now on eval processes follow each callback to its attempt.
    this.track = true;
    if (this.aborted !== undefined || this.stopped !== undefined) {
      this.thrownStopped(from, message, reruns);
      return;
    }
    const some = reruns.length === 1 ? "1 attempt was" : `${reruns.length} attempts were`;
    const each = reruns.length === 1 ? "it runs" : "each runs";
    this.writeStderr(
      `niceeval: ${message}, thrown while ${some} in flight: ${each} again alone to find whose it is\n`,
    );
    const error = {
      message: `${message}, thrown while ${some} in flight; none threw it again when run alone`,
      where,
    };
    const unplaced = new Unplaced(error, reruns.length, {
      runError: (e) => this.addRunError(e),
      open: () => this.sayOpen(`${message}, thrown while ${some} in flight`),
    });
    this.unplaced = unplaced;
    this.unplacedWhy = unplacedThrown(message);
    this.placings.push(unplaced);
    // One no longer known here (given up on meanwhile) will not say.
    for (const id of reruns) if (!this.runAlone(from, id)) unplaced.gone();
    this.schedule();
  }

  /**
   * An uncaught error nobody could place, thrown once the run's stop had come: nothing runs again
   * alone, so the attempts then in flight are cut off (`rerun`), and whose it was is not known
   * (not the run's, as for an exit then: endedStopped).
   */
  private thrownStopped(from: EvalProcess, message: string, reruns: readonly number[]): void {
    this.writeStderr(thrownAfterStop(message, reruns.length, this.resumable));
    // Decided now: nothing waits for their records (nor puts them on an earlier error's account).
    this.unplaced = undefined;
    this.unplacedWhy = unplacedThrown(message);
    for (const id of reruns) this.runAlone(from, id);
  }

  /** An attempt in flight at an unplaced error runs again alone; false when it is not known. */
  private runAlone(from: EvalProcess, id: number): boolean {
    // One run ahead runs again once the engine asks for it (AheadRun, then `isolate`).
    if (id < 0) return this.ahead.owns(from) && this.ahead.onRerun(id);
    const pending = from.settle(id);
    if (!pending) return false;
    pending.alone = true;
    pending.rerunFor = this.unplacedWhy;
    pending.ranMs = performance.now() - pending.sentAt;
    if (this.unplaced) placeWith(pending, this.unplaced);
    this.rerun(pending);
    return true;
  }

  /**
   * Decide each error or exit still waiting for its attempts to run again: they will not (`stop`:
   * the run's stop keeps them from it, so whose it is stays open).
   */
  private endPlacings(stop = false): void {
    for (const placing of this.placings.splice(0)) {
      if (stop) placing.cutOff();
      else placing.end();
    }
  }

  /** An error or exit whose attempts the run's stop kept from running again alone (`what`). */
  private sayOpen(what: string): void {
    this.writeStderr(`niceeval: ${leftOpen(what, this.resumable)}\n`);
  }

  private addRunError(error: RunError): void {
    if (this.options.onRunError) {
      this.options.onRunError(error);
      return;
    }
    this.runErrors.push(error);
    // Said as they come, up to a few: the report lists them all.
    const said = this.runErrors.length;
    if (said <= SAID_RUN_ERRORS)
      this.writeStderr(
        `niceeval: ${error.message} (not tied to one case; the run is marked failed)\n`,
      );
    if (said === SAID_RUN_ERRORS + 1)
      this.writeStderr(
        "niceeval: more errors not tied to one case: they are counted when the run ends, and the report lists every one\n",
      );
  }

  /** How many run errors were not said one by one, once the run has all of them. */
  private countUnsaidRunErrors(): void {
    const more = this.runErrors.length - SAID_RUN_ERRORS;
    if (more > 0)
      this.writeStderr(
        `niceeval: ${more} more ${more === 1 ? "error" : "errors"} not tied to one case than the ${SAID_RUN_ERRORS} said (${this.runErrors.length} in all); the report lists every one\n`,
      );
  }

  read(from: EvalProcess): void {
    const { suspects } = this;
    if (this.fresh.length > 0) this.schedule();
    const waiting = suspects.length > 0 || this.caseReads.waitingAlone;
    if (waiting && from.inFlight.size === 0 && this.ahead.runningFor(from) === 0) this.schedule();
  }

  stderr(text: string): void {
    this.writeStderr(text);
  }

  /** After a child ended: its attempts run again, or are errored, in a new one. */
  ended(from: EvalProcess): void {
    if (from !== this.child) return;
    this.retire();
    if (this.closing || this.stopped !== undefined) return;
    const cause = exitCause(from);
    // An exit of its own while it ran attempts (user code called process.exit) is put on the
    // attempts in flight only if one ends it again when run alone; else it is the run's.
    // (Not while a read of cases was under way: that read is sent again, and may be what exits.)
    const ownExit = from.ready && exitedOnItsOwn(from) && !this.caseReads.anyUnderWay;
    // After the run's stop reached it nothing runs again alone (endedStopped).
    const stopping = this.aborted !== undefined;
    const exitError: RunError = { message: cause, where: exitWhere(from) };
    let exitOpen = cause;
    const exit =
      ownExit && !stopping
        ? new Unplaced(exitError, 1, {
            runError: (e) => this.addRunError(e),
            open: () => this.sayOpen(exitOpen),
            owns: exitedAgain,
          })
        : undefined;
    const sorted = this.sortInFlight(from, cause);
    const { inFlight, afterEnd, rerun, requeued } = sorted;
    const struckAhead = this.ahead.owns(from) ? this.strikeAhead(from, cause, sorted, exit) : 0;
    if (exit) this.placings.push(exit);
    // Reads of cases went to it only once it was ready.
    if (from.ready) this.caseReads.crashed(cause, this.hangMs);
    if (stopping && from.ready) {
      this.endedStopped(from, cause, sorted, struckAhead, ownExit);
      this.schedule();
      return;
    }
    // A suspect that had not started yet waits its turn to run alone again, the rest as before.
    this.fresh.unshift(...requeued.filter((p) => !p.alone));
    this.suspects.unshift(...requeued.filter((p) => p.alone));
    this.suspects.push(...rerun);
    // An eval process that never said a word, started through setpriv: the next starts without
    // it. A hang or a crash put on one file is that file's load error (said in the report). Neither
    // is a failed start.
    const launcherFailed = !from.heard && dropParentDeathLauncher(from.process);
    if (!from.ready && (launcherFailed || this.leaveOutLoadingFile(from, cause))) {
      this.child ??= this.spawn();
      this.schedule();
      return;
    }
    // A crash while a file was imported is that file's (left out at its second, so this is
    // bounded by the files), not a failed start of the eval process.
    if (!from.ready && from.loading === undefined) this.startupFailures++;
    const givenUp = this.startupFailures >= MAX_STRIKES;
    const crash = this.crashOf(from, sorted, struckAhead, givenUp);
    this.writeStderr(crashMessage(cause, crash));
    if (exit) {
      exitError.message = exitOfNoAttempt(cause, { ...crash, rerun: rerun.length + struckAhead });
      exitOpen = exitWhat(cause, crash);
      // An attempt errored for it now was in flight at an exit before and ended it again alone;
      // one whose record was kept just before it exited is named as what it came after.
      if (inFlight.length + afterEnd.length > rerun.length || from.keptAtExit.length > 0)
        exit.own();
      for (const pending of rerun) placeWith(pending, exit);
      exit.expect(rerun.length + struckAhead);
      // The hold it was made with: from now on it is decided by what runs again.
      exit.gone();
    }
    if (givenUp) this.giveUp(cause);
    else this.schedule();
  }

  /**
   * An eval process that ended after the run's stop reached it (its grace period): nothing runs
   * again alone, so the attempts it was running are errored as cut off (with how long they ran; a
   * resumed run runs them), as are those waiting in it to run again alone, and those it had not
   * started did not start. One in flight at its second crash is errored with the cause, as ever.
   * An exit of its own is then put on the run only when no attempt was running; else whose it was
   * is not known, and said so.
   */
  private endedStopped(
    from: EvalProcess,
    cause: string,
    sorted: ReturnType<Supervisor["sortInFlight"]>,
    struckAhead: number,
    ownExit: boolean,
  ): void {
    const { inFlight, afterEnd, rerun, requeued } = sorted;
    for (const pending of requeued) {
      if (pending.alone) this.cutOff(pending);
      else this.fail(pending, notStarted(pending.job.context.signal, cause));
    }
    for (const pending of rerun) this.cutOff(pending);
    // Those struck ahead are cut off as the engine asks for them (AheadHost.strike).
    const cut = rerun.length + struckAhead;
    const owned = inFlight.length + afterEnd.length > rerun.length || from.keptAtExit.length > 0;
    const crash = this.crashOf(from, sorted, struckAhead, false);
    const open = ownExit && !owned && cut > 0;
    this.writeStderr(crashAfterStop(cause, crash, cut, open, this.resumable));
    if (ownExit && !owned && cut === 0)
      this.addRunError({
        message: exitOfNoAttempt(cause, { ...crash, rerun: 0 }),
        where: exitWhere(from),
      });
  }

  /** What a crash notice says of an ended eval process and the attempts it had. */
  private crashOf(
    from: EvalProcess,
    { inFlight, afterEnd, rerun }: ReturnType<Supervisor["sortInFlight"]>,
    struckAhead: number,
    last: boolean,
  ) {
    const label = (p: Pending) => this.label(p.job.entry.eval.id, p.job.spec.id, p.job.trial);
    return {
      inFlight: inFlight.map(label),
      afterEnd: [
        ...from.keptAtExit.map((a) => this.label(a.evalId, a.caseId, a.trial)),
        ...afterEnd.map(label),
      ],
      struckAhead,
      rerun: rerun.length,
      ready: from.ready,
      ...(from.ready || from.loading === undefined ? {} : { loading: from.loading }),
      last,
    };
  }

  /**
   * No eval process could load the eval files (`cause`: how the last one ended): the run's
   * attempts are errored.
   */
  private giveUp(cause: string): void {
    this.broken = `the eval process could not start: ${cause} while loading the eval files`;
    this.settleLoad();
    this.caseReads.end(this.broken);
    this.endPlacings();
    for (const pending of [
      ...this.suspects.splice(0),
      ...this.fresh.splice(0),
      ...this.ahead.drain(),
    ])
      this.fail(pending, this.broken);
  }

  /**
   * The attempts an ended eval process was sent and did not finish. Waiting in its queue, never
   * started (the child writes how far it got before it starts any, or says so by message): not a
   * suspect, no strike, back to the queue as it was. Running when it ended: in flight, struck.
   * When it exited (the claims it wrote then), one it had started that was not running had just
   * ended, and its record did not come (the child writes the records it had not sent on its way
   * out, unless structured clone alone can carry them): struck too (`afterEnd`), so that one that
   * ends the process each time it ends is not run again without end.
   */
  private sortInFlight(from: EvalProcess, cause: string) {
    const inFlight: Pending[] = [];
    const afterEnd: Pending[] = [];
    const rerun: Pending[] = [];
    const requeued: Pending[] = [];
    const atExit = from.runningAtExit;
    for (const pending of from.inFlight.values()) {
      const started = pending.started || (from.taken !== undefined && pending.pos < from.taken);
      const ended = atExit !== undefined && started && !atExit.has(pending.id);
      if (
        !(atExit ? atExit.has(pending.id) || ended : started) &&
        pending.requeues < MAX_REQUEUES
      ) {
        pending.requeues++;
        pending.sentAt = 0;
        pending.bytes = 0;
        requeued.push(pending);
        continue;
      }
      (ended ? afterEnd : inFlight).push(pending);
      pending.ranMs = performance.now() - pending.sentAt;
      if (this.strike(pending, pending.strikes + 1, cause, ended)) rerun.push(pending);
    }
    return { inFlight, afterEnd, rerun, requeued };
  }

  /** An attempt as crash notices name it, with its trial when its eval runs several. */
  private label(evalId: string, caseId: string, trial: number): string {
    const described = this.described.find((d) => d.id === evalId);
    return attemptLabel(evalId, caseId, trial, described?.trials ?? this.trials);
  }

  /**
   * Resolves once an eval process has loaded the files it could, or none could start. A file
   * whose top-level code never ends kept an eval process busy until `--hang-timeout` and is left
   * out by the next one (`hung`).
   */
  private childLoad(): Promise<void> {
    const { child } = this;
    if (this.broken !== undefined || this.stopped !== undefined || this.closing || child?.ready)
      return Promise.resolve();
    const loaded = new Promise<void>((resolve) => this.loadWaiters.push(resolve));
    // Without an eval process (none started yet, or the last one ended), one is started for it.
    if (!child) this.schedule();
    return loaded;
  }

  async childEvals(): Promise<ChildEvals> {
    await this.childLoad();
    const { broken, loadErrors } = this;
    const errors: ChildEvals["errors"] = [];
    for (const file of this.options.files) {
      const hung = this.hung.get(file);
      if (hung !== undefined) errors.push({ file, message: hung });
      else if (broken !== undefined) errors.push({ file, message: broken });
      else for (const error of loadErrors) if (error.file === file) errors.push(error);
    }
    // A failure of the loading itself, not of one file.
    if (broken === undefined)
      for (const error of loadErrors)
        if (!this.options.files.includes(error.file)) errors.push(error);
    return { described: broken === undefined ? this.described : [], errors };
  }

  // The supervisor's own work.

  /** Answer those waiting for {@link childLoad}. */
  private settleLoad(): void {
    for (const resolve of this.loadWaiters.splice(0)) resolve();
  }

  /**
   * An eval process that ended before it was ready, while it imported a file. Killed for a hang,
   * that file's top-level code does not end: it fails to load at once (each try costs the loading
   * limit). Crashed (a kill, an abort, out of memory), it fails to load once a second eval process
   * crashed on it too (a crash may happen once, then not). Either way a new eval process loads
   * the others and the CLI never imports it. False when nothing is put on the file (yet).
   */
  private leaveOutLoadingFile(from: EvalProcess, cause: string): boolean {
    const file = from.loading;
    if (file === undefined || this.hung.has(file)) return false;
    if (from.killedFor !== undefined) {
      this.hung.set(file, loadHung(loadingLimitMs(this.hangMs)));
    } else {
      const crashes = (this.loadCrashes.get(file) ?? 0) + 1;
      this.loadCrashes.set(file, crashes);
      if (crashes < 2) return false;
      this.hung.set(file, loadCrashed(cause));
    }
    this.files = this.files.filter((f) => f !== file);
    return true;
  }

  private spawn(): EvalProcess {
    const { options } = this;
    const created = new EvalProcess(
      options.cwd,
      options.stdoutFd,
      {
        files: this.files,
        cwd: options.cwd,
        judgeCache: options.judgeCache ?? true,
        beatMs: this.beatMs,
        loadWaitMs: this.hangMs,
        ...(this.aborted !== undefined ? { aborted: this.aborted } : {}),
        ...(this.resumable ? { resumable: true as const } : {}),
        ...(this.track ? { track: true as const } : {}),
      },
      this,
    );
    this.monitor ??= setInterval(() => this.check(), this.checkMs);
    this.monitor.unref();
    return created;
  }

  /** The current eval process is given up: what it says from now on is not read. */
  private retire(): EvalProcess | undefined {
    const current = this.child;
    this.child = undefined;
    if (current) current.retired = true;
    return current;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.dispatch());
  }

  private dispatch(): void {
    this.scheduled = false;
    const { suspects, ahead } = this;
    // Attempts waiting for a record run ahead need an eval process too (one that will run ahead).
    // So is one waiting for the eval files to be loaded (childLoad).
    const wanted =
      this.fresh.length +
      suspects.length +
      ahead.waitingCount +
      this.loadWaiters.length +
      this.caseReads.size;
    if (this.stopped !== undefined || this.closing || wanted === 0) return;
    this.child ??= this.spawn();
    const { child } = this;
    if (!child.ready || child.exit || child.alone > 0) return;
    // A careful read of cases goes alone and runs alone (CaseReads), before any suspect.
    const { caseReads } = this;
    if (caseReads.aloneUnderWay) return;
    if (caseReads.waitingAlone) {
      if (ahead.mayStart(child)) {
        ahead.stop();
        return;
      }
      if (child.inFlight.size === 0 && ahead.runningFor(child) === 0) caseReads.sendAlone();
      return;
    }
    if (suspects.length > 0) {
      // A suspect runs alone: nothing more starts ahead, and it waits for what did.
      // It may start attempts ahead until it says it ended: the suspect waits for that.
      if (ahead.mayStart(child)) {
        ahead.stop();
        return;
      }
      // Nor beside a read of cases: a crash then could be the dataset's.
      if (child.inFlight.size === 0 && ahead.runningFor(child) === 0 && !caseReads.anyUnderWay)
        child.send([suspects.shift()!]);
      return;
    }
    // Large cases: no more waits in the child until some of what waits there has started.
    if (child.queuedBytes >= MAX_QUEUED_BYTES) return;
    child.send(this.fresh.splice(0));
  }

  /** `pending` is errored with `message`; `elapsedMs`: how long it ran, when not since sent. */
  private fail(pending: Pending, message: string, elapsedMs?: number): void {
    this.finish(pending, {
      ...crashed(pending.job.entry.eval, pending.job.spec, message),
      elapsedMs: elapsedMs ?? (pending.sentAt ? performance.now() - pending.sentAt : 0),
    });
  }

  /** The attempt's record, for the engine (and for an unplaced error it ran again for). */
  private finish(pending: Pending, record: AttemptRecord): void {
    const { placing } = pending;
    if (placing) {
      pending.placing = undefined;
      for (const each of placing) each.settled(record);
    }
    pending.resolve(record);
  }

  /**
   * An attempt in flight at `strikes` crashes, the last for `cause` (`afterEnd`: just after it
   * ended): errored at MAX_STRIKES, else to run again alone (true).
   */
  private strike(pending: Pending, strikes: number, cause: string, afterEnd = false): boolean {
    pending.strikes = strikes;
    if (strikes >= MAX_STRIKES) {
      // It started (perhaps ahead, before the engine asked): its record is kept, stopped or not.
      pending.job.queue?.started();
      this.fail(pending, struckOut(cause, this.hangMs, afterEnd));
      return false;
    }
    pending.alone = true;
    pending.rerunFor = cause;
    return true;
  }

  /**
   * `pending` runs again alone, once the eval process has nothing else in flight. After the run's
   * stop nothing new starts: it is cut off instead.
   */
  private rerun(pending: Pending): void {
    if (this.aborted !== undefined || this.stopped !== undefined) {
      this.cutOff(pending);
      return;
    }
    this.suspects.push(pending);
    this.schedule();
  }

  /**
   * An attempt that was to run again alone (`rerunFor`) when the run's stop came: nothing new
   * starts, so it is errored as cut off (`error.interrupted`: a resumed run runs it), with how long
   * its last run went. The engine keeps its record, as of an attempt that started.
   */
  private cutOff(pending: Pending): void {
    const { job } = pending;
    const { reason } = job.context.signal;
    const why = pending.rerunFor ?? "the eval process ended";
    const message = cutBeforeRerun(why, this.aborted) + runsAgain(reason);
    const record = crashed(job.entry.eval, job.spec, message);
    job.queue?.started();
    this.finish(pending, {
      ...record,
      error: { ...record.error!, interrupted: true },
      elapsedMs: pending.ranMs ?? 0,
    });
  }

  /**
   * The attempts an eval process that crashed was running ahead: each is struck like one in
   * flight; one the engine waits for joins `inFlight` (and `rerun`, or is failed), the others are
   * struck for when it asks. Whatever else the engine waits for is asked for from now on.
   */
  private strikeAhead(
    from: EvalProcess,
    cause: string,
    to: { inFlight: Pending[]; afterEnd: Pending[]; rerun: Pending[] },
    mark?: Unplaced,
  ) {
    const exact = from.runningAtExit !== undefined;
    const struck = this.ahead.crashed(cause, from.claimedAhead, exact, mark);
    for (const [list, afterEnd] of [
      [struck.inFlight, false],
      [struck.afterEnd, true],
    ] as const) {
      for (const pending of list) {
        (afterEnd ? to.afterEnd : to.inFlight).push(pending);
        if (this.strike(pending, pending.strikes + 1, cause, afterEnd)) to.rerun.push(pending);
      }
    }
    return struck.notAsked;
  }

  private check(): void {
    const now = performance.now();
    const { child } = this;
    // This process itself was blocked (a long synchronous write): no heartbeat could arrive.
    if (child && now - this.lastCheck > this.checkMs * 2 + 1000) child.lastSeen = now;
    if (now - this.lastCheck > this.checkMs * 2) this.steadySince = now;
    this.lastCheck = now;
    if (!child || child.killedFor !== undefined || child.exit) return;
    const cause = hangCause(child, now, this.hangMs) ?? this.blockedPastLimit(child, now);
    if (cause === undefined) return;
    child.killedFor = cause;
    child.process.kill("SIGKILL");
  }

  /**
   * Why `child` is to be killed when its event loop has missed BLOCKED_BEATS heartbeats while
   * attempts ran past their time limits (blocked.ts): the one attempt running is errored so at
   * once; with several, each runs again alone, and one that blocks the loop again is errored so.
   */
  private blockedPastLimit(child: EvalProcess, now: number): string | undefined {
    // A case read under way may be what blocks the loop; attempts past their limits are killed
    // for all the same (each runs again alone, never beside a read), and the read is sent again.
    if (!child.ready) return undefined;
    const silentMs = now - Math.max(child.lastSeen, this.steadySince);
    if (silentMs <= BLOCKED_BEATS * this.beatMs) return undefined;
    // The word that an attempt started may be held in the blocked process: its claims file says.
    const taken = takenCount(child.process) ?? 0;
    const started = [...child.inFlight.values()].filter((p) => p.started || p.pos < taken);
    started.push(...this.ahead.startedFor(child));
    const past = started.filter((p) => blockedPastLimit(p, child.lastSeen, now));
    if (past.length === 0) return undefined;
    const label = (p: Pending) => this.label(p.job.entry.eval.id, p.job.spec.id, p.job.trial);
    const [pending] = past as [Pending];
    if (started.length > 1) {
      for (const p of past) p.blockedLimitMs ??= p.job.context.timeoutMs;
      return blockedCause(silentMs, past.length, started.length);
    }
    const limit = pending.blockedLimitMs ?? pending.job.context.timeoutMs ?? 0;
    if (!child.settle(pending.id)) this.ahead.answered(pending);
    const rerun = pending.blockedLimitMs !== undefined;
    this.fail(pending, blockedMessage(silentMs, limit, rerun, this.hangMs));
    return `the event loop was blocked for ${Math.round(silentMs)} ms by ${label(pending)}, past its ${limit} ms time limit (synchronous code cannot be timed out), so the eval process was killed`;
  }

  private watchAbort(signal: AbortSignal): void {
    if (this.watched.has(signal)) return;
    this.watched.add(signal);
    const forward = () => {
      this.aborted = String((signal.reason as Error | undefined)?.message ?? "aborted");
      this.resumable = resumableStop(signal.reason);
      this.child?.post({
        t: "abort",
        reason: this.aborted,
        ...(this.resumable ? { resumable: true as const } : {}),
      });
      // Those waiting to run again alone will not start now.
      for (const pending of this.suspects.splice(0)) this.cutOff(pending);
    };
    if (signal.aborted) forward();
    else signal.addEventListener("abort", forward, { once: true });
  }
}

/** `pending` runs again (or is errored) to say whose `placing` is. */
function placeWith(pending: Pending, placing: Unplaced): void {
  const placings = pending.placing ?? [];
  if (!placings.includes(placing)) pending.placing = [...placings, placing];
}
