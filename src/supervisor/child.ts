// The eval process of a supervised run: loads the eval files, runs the attempts it is sent with
// the in-process executor, and streams the records back. Started by supervisedExecutor.

import { AsyncLocalStorage } from "node:async_hooks";
import { setMaxListeners } from "node:events";
import { writeSync } from "node:fs";
import { isLateCall } from "../adapter/lifetime.js";
import { dropWritesToClosedStdio } from "../cli/closed-stdio.js";
import { loadEvalFiles } from "../cli/load.js";
import { clearTimeout, realNow, setImmediate, setInterval, setTimeout } from "../clock.js";
import { errorMessage, thrownAt } from "../errors.js";
import { type AttemptRecord, type Judgment, unreportedUsage } from "../eval/record.js";
import { RunStop } from "../eval/run-origin.js";
import type { AttemptContext, CaseSpec, Runnable } from "../eval/runnable.js";
import { jsonSafeCopy } from "../json-safe.js";
import { closeAnswerStores } from "../judge/cache.js";
import { configureJudges } from "../judge/config.js";
import { onJudgePushBack } from "../judge/retries.js";
import { keepListener } from "../process-listeners.js";
import { stoppedBeforeStart } from "../runner/cut-off.js";
import { inProcessExecutor, isPromise } from "../runner/executor.js";
import { crashed } from "../runner/source.js";
import { lastResortMs, Watchdog } from "../runner/watchdog.js";
import { isAborted } from "../signal-state.js";
import { AheadFeed, type FedJob } from "./ahead-feed.js";
import { CaseServer, describeEvals } from "./case-server.js";
import { DeltaEncoder } from "./delta.js";
import { FirstRuns } from "./first-runs.js";
import { reapGroupWithThisProcess } from "./group-reaper.js";
import { watchSupervisor } from "./orphan-watch.js";
import {
  type AheadPlan,
  aheadKey,
  type CasesReply,
  type CasesRequest,
  type ChildEvent,
  type ChildInit,
  type ChildJob,
  type ChildMessage,
  CLAIMS_FD,
  EXIT_CLAIMS_AT,
  type JobBatch,
  type JobSettings,
  LISTENING,
  PACKED,
  type ParentMessage,
  RECORD_FLAGS,
} from "./protocol.js";
import { isPlainJson, prototypesAreClean } from "./wire.js";

// Its stderr is a pipe the CLI reads, its stdout the run's report: when a reader of either is
// gone (the CLI's, or `| head`'s), writes to it are dropped, never an uncaught error charged to
// an attempt or to the run (cli/closed-stdio.ts).
dropWritesToClosedStdio();

// Which attempt a callback belongs to. On Node 20 an AsyncLocalStorage in use slows every promise
// of the process (about a fifth of a fast run), so it is used only once an uncaught error came
// (`tracking`): the attempts running then run again alone, and one owns an error only when it
// throws it in its own async context (even alone: a timer of top-level code, or one an earlier
// attempt left behind, may throw while it runs).
const attemptOf = new AsyncLocalStorage<number>();
let tracking = false;
/**
 * Attempts started and not settled: their eval and case (the case found once it is looked up),
 * and for one started ahead, its job.
 */
const running = new Map<number, Slot>();
/** Attempts given up on after an unplaced error: they run again once these first runs end. */
const firstRuns = new FirstRuns<Slot>((slot) => {
  if (slot.fed) feed?.release(slot.fed);
}, schedulePump);
const evals = new Map<string, Runnable>();
const loadErrors = new Map<string, string>();
const controller = new AbortController();
// Shared by the attempts without a time limit, as the run's signal is (runner/run.ts).
setMaxListeners(0, controller.signal);
let outbox: ChildEvent[] = [];
/** Every event in the outbox is plain JSON (records are checked as they are encoded). */
let outboxPlain = true;
/** Records leave as changes against the previous ones of their eval (delta.ts). */
const encoder = new DeltaEncoder();
let flushing: "now" | "soon" | undefined;
/** When the outbox was last sent (`realNow()`). */
let flushedAt = 0;
/** Longest an event waits in the outbox while attempts run or wait here, ms. */
const BATCH_MS = 2;
/** Packed batches passed to `process.send` so far (the supervisor counts those it reads). */
let packedSent = 0;
/**
 * Packed batches passed to `process.send` and not yet written (by their number): Node's channel
 * queues what the pipe does not take at once, and `process.exit` drops that queue, so the exit
 * hook writes them to the claims file (claimAtExit).
 */
const unwritten = new Map<number, string>();
let ready: Promise<void> | undefined;
/** Reads the evals' cases for the supervisor, once the files are loaded. */
let caseServer: CaseServer | undefined;
/** The eval files are loaded: a job need not wait for `ready`. */
let loaded = false;

// Jobs wait here until a slot is free: the supervisor sends more than the run's concurrency, so
// this process has the next attempt at hand when one ends instead of waiting for the supervisor.
// Each job has its batch's settings beside it.
const queue: ChildJob[] = [];
const queueSettings: Settings[] = [];
let queueHead = 0;
/** The run's concurrency: attempts running at once (0: no limit). */
let limit = 0;
/** Attempts announced as started whose announcement is still being written. */
let starting = 0;
/** Jobs taken from the queue so far (started, or ended unstarted after an abort). */
let taken = 0;
/** Where `taken` is written before attempts start (see spawn.ts); absent: it goes by message. */
let claimsFd: number | undefined;
const claimBuffer = Buffer.alloc(8);
/** An outbox this long leaves at once rather than at the end of its BATCH_MS. */
const MAX_BATCH = 1024;
let pumpScheduled = false;
/** The run's cases as this process reads them itself, when the supervisor asked (AheadPlan). */
let feed: AheadFeed | undefined;
let feedSettings: Settings | undefined;
let feedEndSent = false;
/** The supervisor asked that nothing more run ahead. */
let aheadStopped = false;
/** Attempts started ahead and not settled (what the claims file lists after the taken count). */
const runningAhead = new Set<FedJob>();
let aheadClaimBuffer = Buffer.alloc(8 * 64);
/** Attempts taken from the feed and listed in the claims file; those from `claimedAt` wait. */
let claimed: FedJob[] = [];
let claimedAt = 0;
/** Whether the window's attempts not started yet are listed in the claims file. */
let restListed = false;
/** How many attempts the next window takes (see pumpAhead). */
let claimSize = 1;
const CLAIM_MAX = 256;
/** Attempts started ahead that had not answered when the turn that started them ended. */
let awaited: FedJob[] = [];
/** The last of those had all ended by the next turn that started attempts (see pumpAhead). */
let endedByNextTurn = false;

/** A batch's settings, with the context its first trials share. */
interface Settings extends JobSettings {
  context?: AttemptContext;
}

const queued = () => queue.length - queueHead;
const hasRoom = () => limit === 0 || running.size + starting < limit;
/** Nothing starts while the first runs of attempts to run again go on (first-runs.ts). */
const mayStart = () => !firstRuns.holding();

const send = (message: ChildMessage, after?: () => void): boolean => {
  if (!process.send) return false;
  try {
    if (after) process.send(message, after);
    else process.send(message);
    return true;
  } catch {
    return false;
  }
};

// Events leave in batches: at once when nothing runs or waits here (the supervisor waits for
// them), else within BATCH_MS, so the supervisor gets many records in one message: each message
// costs both sides a wake-up and buffers to collect, more than its records cost.
const post = (event: ChildEvent): void => {
  outbox.push(event);
  if ((queued() > 0 || (feed && !feedEndSent)) && hasRoom()) schedulePump();
  requestFlush();
};

function requestFlush(): void {
  // Nothing running or waiting here, nor to read ahead: the supervisor waits for these now.
  const idle =
    running.size === 0 &&
    starting === 0 &&
    queued() === 0 &&
    (!feed || (feed.finished && claimedAt === claimed.length));
  if (idle || outbox.length >= MAX_BATCH) {
    if (flushing === "now") return;
    flushing = "now";
    setImmediate(flush);
  } else if (flushing === undefined) {
    flushing = "soon";
    setTimeout(flush, BATCH_MS);
  }
}

/** Send what the outbox holds; `after` runs once it is written (the last message's callback). */
function flush(after?: () => void): void {
  flushing = undefined;
  flushedAt = realNow();
  const events = outbox;
  const plain = outboxPlain;
  outbox = [];
  outboxPlain = true;
  if (!process.connected) return;
  if (events.length === 0) {
    after?.();
    return;
  }
  if (plain) {
    sendPacked(JSON.stringify(pack(events)), after);
    return;
  }
  try {
    const message = { t: "events", events } satisfies ChildMessage;
    if (after) process.send?.(message, after);
    else process.send?.(message);
  } catch {
    // A value structured clone cannot carry (a function, a symbol): send that one as JSON.
    for (const event of events) {
      try {
        process.send?.({ t: "events", events: [event] } satisfies ChildMessage);
      } catch {
        const plain = jsonSafeCopy(event) as ChildEvent;
        send({ t: "events", events: [plain] });
      }
    }
    if (!send({ t: "beat" }, after)) after?.();
  }
}

/** Send a packed batch, kept in `unwritten` until the channel has written it. */
function sendPacked(json: string, after?: () => void): void {
  const seq = packedSent++;
  unwritten.set(seq, json);
  const written = (error?: Error | null) => {
    if (!error) unwritten.delete(seq);
    after?.();
  };
  if (!send(json, written)) after?.();
}

/** Plain events as one flat array (see PACKED in protocol.ts). */
function pack(events: readonly ChildEvent[]): unknown[] {
  const out: unknown[] = [];
  for (const event of events) {
    switch (event.t) {
      case "delta":
        if ("d" in event) {
          out.push(PACKED.delta, event.id, event.f ?? 0, event.b, event.d.length);
          for (const item of event.d) out.push(item);
        } else out.push(PACKED.whole, event.id, event.f ?? 0, event.nb, event.v);
        break;
      case "record":
        out.push(PACKED.whole, event.id, event.f ?? 0, -1, event.record);
        break;
      case "started":
        out.push(PACKED.started, event.ids.length);
        for (const id of event.ids) out.push(id);
        break;
      case "judgment":
        out.push(PACKED.judgment, event.id, event.judgment);
        break;
      case "began":
        out.push(PACKED.began, event.keys.length);
        for (const key of event.keys) out.push(key);
        break;
      case "ahead-end":
        out.push(PACKED.aheadEnd, 0);
        break;
      case "ahead-stalled":
        out.push(PACKED.aheadStalled, 0);
        break;
    }
  }
  return out;
}

/**
 * Send the outbox now if its batch is overdue. Attempts start synchronously, and one whose
 * target holds the thread would hold the batch timer too: the records that ended before it and
 * the word that it began would reach the supervisor only once it ends.
 */
function flushIfLate(): void {
  if (outbox.length > 0 && realNow() - flushedAt >= BATCH_MS) flush();
}

function schedulePump(): void {
  if (pumpScheduled) return;
  pumpScheduled = true;
  setImmediate(pump);
}

/**
 * Start, in order, what the free slots allow. Before any starts, how far this process got is
 * written where the supervisor finds it after a crash (the claims file, else a message it waits
 * for), so it can tell the attempts that may have caused a crash from those that never ran.
 */
function pump(): void {
  pumpScheduled = false;
  // An attempt may hold the thread for good: the cases read for the supervisor leave first.
  if (caseReplies.length > 0) sendCaseReplies();
  if (isAborted(controller.signal)) {
    // No new case starts after an abort: what waits here is ended, not run.
    while (queued() > 0) {
      const [job] = take();
      outbox.push({
        t: "record",
        id: job.id,
        record: stoppedBeforeStart(
          evals.get(job.evalId) ?? { id: job.evalId },
          specOf(job),
          controller.signal,
        ),
      });
    }
    feed?.stop();
  }
  const ids: number[] = [];
  const jobs: ChildJob[] = [];
  const settings: Settings[] = [];
  while (
    queued() > 0 &&
    mayStart() &&
    (limit === 0 || running.size + starting + jobs.length < limit)
  ) {
    const [job, of] = take();
    jobs.push(job);
    settings.push(of);
    ids.push(job.id);
  }
  const fed = pumpAhead(jobs.length);
  if (jobs.length === 0) {
    if (outbox.length > 0 || fed) requestFlush();
    return;
  }
  outbox.push({ t: "started", ids });
  if (claim()) {
    // The claims file says how far this process got: they may start now, and the supervisor
    // learns that they did with the next batch (its time limits count from then).
    requestFlush();
    flushIfLate();
    for (let i = 0; i < jobs.length; i++) runJob(jobs[i]!, settings[i]!);
    return;
  }
  // No claims file: the word that they start goes first, and they start once it is written.
  starting += jobs.length;
  flush(() => {
    starting -= jobs.length;
    for (let i = 0; i < jobs.length; i++) runJob(jobs[i]!, settings[i]!);
  });
}

/**
 * Start what the free slots allow of the attempts read ahead (after those the supervisor sent),
 * and say which they are; they are not in the claims file's taken count (the supervisor counts
 * them apart). Once none will start any more, that is said after the last of them.
 *
 * Attempts are listed in the claims file before they start, a window at a time (`claimed`):
 * while they answer synchronously the window doubles, up to CLAIM_MAX, and the next batch starts
 * in the same turn, so a run of fast attempts costs one write per window rather than one per
 * slot. An attempt listed and not started when the process dies is run again alone, as one in
 * flight is. As soon as an attempt does not answer at once, the window is small again and the
 * rest of it is no longer listed (each is listed when it starts): slow attempts never wait listed,
 * so a crash beside them does not send a window of them to run alone.
 */
function pumpAhead(taking: number): boolean {
  if (!feed || feedEndSent) return false;
  // The claims file must not go on listing what will not start here.
  if ((aheadStopped || isAborted(controller.signal)) && dropClaimed()) claimAhead();
  if (awaited.length > 0) {
    endedByNextTurn = !awaited.some((job) => runningAhead.has(job));
    awaited = [];
  }
  const turnEnds = realNow() + BATCH_MS;
  let started = 0;
  let room = roomAhead(taking);
  while (room > 0) {
    if (claimed.length === claimedAt && !claimWindow(room)) break;
    const fed = claimed.slice(claimedAt, claimedAt + room);
    claimedAt += fed.length;
    started += fed.length;
    if (!restListed) listAhead(fed);
    const keys: number[] = [];
    for (const job of fed) keys.push(job.id, job.evalIndex, job.spec.index, job.trial);
    outbox.push({ t: "began", keys });
    if (claimsFd === undefined) {
      // No claims file: the word that they start goes first, as for the supervisor's jobs.
      starting += fed.length;
      flush(() => {
        starting -= fed.length;
        for (const job of fed) runJob(job, feedSettings!, job);
      });
      break;
    }
    // Attempts that do not answer at once (claimSize 1) may hold the thread for good: what ended
    // before them leaves first, or a stop that kills this process would count them unfinished;
    // unless those before them all ended by the next turn (an async target that resolves at
    // once), whose records leave in batches as synchronous ones do.
    if (claimSize === 1 && !endedByNextTurn && outbox.length > 1) flush();
    else flushIfLate();
    const before = running.size;
    for (const job of fed) runJob(job, feedSettings!, job);
    // All answered at once: the next window may be larger; else it is what the slots allow.
    if (running.size === before) claimSize = Math.min(claimSize * 2, CLAIM_MAX);
    else {
      for (const job of fed) if (runningAhead.has(job)) awaited.push(job);
      claimSize = 1;
      if (restListed && claimedAt < claimed.length) {
        for (let i = claimedAt; i < claimed.length; i++) runningAhead.delete(claimed[i]!);
        restListed = false;
        claimAhead();
      }
    }
    if (realNow() >= turnEnds) {
      schedulePump();
      break;
    }
    room = roomAhead(taking);
  }
  if (feed.finished && claimedAt === claimed.length) {
    feedEndSent = true;
    outbox.push({ t: "ahead-end" });
  }
  return started > 0 || feedEndSent;
}

const roomAhead = (taking: number): number =>
  !mayStart() ? 0 : limit === 0 ? 1024 : limit - running.size - starting - taking;

/**
 * Take the next window of attempts from the feed and list them in the claims file (with those
 * running ahead); false when the feed has none now. Without a claims file, only what the slots
 * allow is taken.
 */
function claimWindow(room: number): boolean {
  const fed = feed!.take(claimsFd === undefined ? room : Math.max(room, claimSize));
  claimed = fed;
  claimedAt = 0;
  restListed = true;
  if (fed.length === 0) return false;
  listAhead(fed);
  return true;
}

/** List these attempts in the claims file, with those already listed. */
function listAhead(jobs: readonly FedJob[]): void {
  for (const job of jobs) runningAhead.add(job);
  claimAhead();
}

/**
 * The window's attempts not started are not run ahead: the supervisor asks for them. True when
 * there were some (the claims file still lists them until it is written again).
 */
function dropClaimed(): boolean {
  const dropped = claimedAt < claimed.length;
  for (let i = claimedAt; i < claimed.length; i++) {
    feed?.release(claimed[i]!);
    runningAhead.delete(claimed[i]!);
  }
  claimed = [];
  claimedAt = 0;
  return dropped;
}

/**
 * Write the attempts running ahead to the claims file, after the taken count: how many, then
 * their keys (aheadKey). Those that ended since stay listed until the next write; the supervisor
 * knows them by their records. False when there is no claims file (any more).
 */
function claimAhead(): boolean {
  if (claimsFd === undefined) return false;
  const size = 8 * (runningAhead.size + 1);
  if (aheadClaimBuffer.length < size) aheadClaimBuffer = Buffer.alloc(size * 2);
  aheadClaimBuffer.writeDoubleLE(runningAhead.size, 0);
  let at = 8;
  for (const job of runningAhead) {
    aheadClaimBuffer.writeDoubleLE(aheadKey(job.evalIndex, job.spec.index, job.trial), at);
    at += 8;
  }
  try {
    writeSync(claimsFd, aheadClaimBuffer, 0, size, 8);
    return true;
  } catch {
    claimsFd = undefined;
    return false;
  }
}

/** Write how many jobs were taken to the claims file; false when there is none (any more). */
function claim(): boolean {
  if (claimsFd === undefined) return false;
  claimBuffer.writeDoubleLE(taken, 0);
  try {
    writeSync(claimsFd, claimBuffer, 0, 8, 0);
    return true;
  } catch {
    claimsFd = undefined;
    return false;
  }
}

function take(): [ChildJob, Settings] {
  const job = queue[queueHead]!;
  const settings = queueSettings[queueHead]!;
  queueHead++;
  taken++;
  if (queueHead >= 1024 && queueHead * 2 >= queue.length) {
    queue.splice(0, queueHead);
    queueSettings.splice(0, queueHead);
    queueHead = 0;
  }
  return [job, settings];
}

function enqueue(batch: JobBatch): void {
  limit = batch.c ?? 0;
  const { jobs, ...settings } = batch;
  for (const job of jobs) {
    queue.push(job);
    queueSettings.push(settings);
  }
  schedulePump();
}

/** The case as far as the job names it (its full spec may be looked up later). */
const specOf = (job: ChildJob): CaseSpec =>
  job.spec ?? { id: job.caseId ?? "", index: job.index ?? -1 };

/**
 * An attempt ended: its record leaves. `slot` is the run that ended, when known: a first run
 * given up on (first-runs.ts) has the id of the attempt run again in its place.
 */
const settle = (id: number, record: AttemptRecord, slot = running.get(id)): void => {
  if (!slot) return;
  if (running.get(id) !== slot) {
    firstRuns.ended(slot);
    return;
  }
  running.delete(id);
  if (slot.fed) {
    feed?.release(slot.fed);
    runningAhead.delete(slot.fed);
  }
  // Left off, for the supervisor to put back (RECORD_FLAGS): the usual app usage (nobody
  // reported any, a quarter of a record's bytes) and the case id it knows.
  const unreported = record.usage.app === unreportedUsage();
  // One run ahead keeps its case id: the supervisor checks it against the case it expected.
  const sameCase = slot.fed === undefined && record.caseId === slot.spec.id;
  // The record is this process's own, sent and then dropped: it is changed in place.
  let flags = 0;
  if (unreported) {
    flags |= RECORD_FLAGS.unreported;
    record.usage = { judge: record.usage.judge } as AttemptRecord["usage"];
  }
  if (sameCase) {
    flags |= RECORD_FLAGS.caseId;
    record.caseId = "";
  }
  const encoded = encodeRecord(record);
  if (encoded) {
    // The encoding is this call's own too: it becomes the event.
    const event = encoded as Extract<ChildEvent, { t: "delta" }>;
    event.t = "delta";
    event.id = id;
    if (flags) event.f = flags;
    post(event);
    return;
  }
  outboxPlain = false;
  post({ t: "record", id, record, ...(flags ? { f: flags } : {}) });
};

/**
 * A record as changes against a base, or undefined to send it whole by structured clone (which
 * copies own properties only). A value of the code under test whose getter or proxy throws
 * while it is read is first replaced by its JSON-safe copy (a marker where reading failed), so
 * the record still leaves and the encoder's bases stay those both ends know.
 */
function encodeRecord(record: AttemptRecord): ReturnType<DeltaEncoder["encode"]> {
  if (!prototypesAreClean()) return undefined;
  try {
    return encoder.encode(record.evalId, record);
  } catch {
    for (const key of USER_VALUES)
      if (record[key] !== undefined)
        (record as unknown as Record<string, unknown>)[key] = jsonSafeCopy(record[key]);
    try {
      return encoder.encode(record.evalId, record);
    } catch {
      return undefined;
    }
  }
}

/** The fields of a record that hold values of the code under test. */
const USER_VALUES = ["input", "expected", "output", "metadata", "trace"] as const;

/** An attempt running here: its eval, its case, when it started, and its job when run ahead. */
type Slot = { evalId: string; spec: CaseSpec; started: number; fed?: FedJob };

/**
 * Run a job: at once when the files are loaded and the job carries its case (an attempt run
 * ahead, or one whose case crossed whole), with no promise of its own when the attempt answers
 * synchronously; else once its eval and case are found.
 */
function runJob(job: ChildJob, settings: Settings, fed?: FedJob): void {
  const slot: Slot = {
    evalId: job.evalId,
    spec: specOf(job),
    started: realNow(),
    ...(fed ? { fed } : {}),
  };
  running.set(job.id, slot);
  const runnable = loaded ? evals.get(job.evalId) : undefined;
  if (runnable && job.spec) runFound(job, settings, slot, runnable);
  else void runLater(job, settings, slot);
}

async function runLater(job: ChildJob, settings: Settings, slot: Slot): Promise<void> {
  if (!loaded) await ready;
  const runnable = evals.get(job.evalId);
  const spec = job.spec ?? (runnable && (await caseServer?.find(runnable, slot.spec.id)));
  if (!runnable || !spec) {
    const why = runnable
      ? `case "${slot.spec.id}" was not found among its cases in the eval process`
      : `eval "${job.evalId}" did not load in the eval process${loadErrors.size ? ` (${[...loadErrors].map(([f, m]) => `${f}: ${m}`).join("; ")})` : ""}`;
    settle(job.id, crashed(runnable ?? { id: job.evalId }, slot.spec, why), slot);
    return;
  }
  slot.spec = spec;
  runFound(job, settings, slot, runnable);
}

function runFound(job: ChildJob, settings: Settings, slot: Slot, runnable: Runnable): void {
  const { spec } = slot;
  // Stopped while it waited for the files to load: it does not start, as in pump.
  if (isAborted(controller.signal)) {
    settle(job.id, stoppedBeforeStart(runnable, spec, controller.signal), slot);
    return;
  }
  const trial = job.trial ?? 0;
  const attempt = {
    entry: { eval: runnable },
    spec,
    trial,
    context: contextOf(job, trial, settings, slot),
  };
  // A record given at once is settled at once (synchronous targets and scorers).
  const record = tracking
    ? attemptOf.run(job.id, () => inProcessExecutor.executeNow(attempt))
    : inProcessExecutor.executeNow(attempt);
  if (!isPromise(record)) {
    settle(job.id, record, slot);
    return;
  }
  // The run's last resort is kept here: the supervisor does not time attempts out (one may wait
  // behind a crash), so a promise that never settles would otherwise hold its slot for good.
  void watchdogFor(settings.timeoutMs)
    .guard(() => record)
    .then(
      (done) => settle(job.id, done, slot),
      (error: unknown) => {
        const timedOut = crashed(
          runnable,
          spec,
          `eval "${runnable.id}" crashed on case "${spec.id}": ${errorMessage(error)}`,
        );
        timedOut.elapsedMs = realNow() - slot.started;
        settle(job.id, timedOut, slot);
      },
    );
}

/** One watchdog per last-resort limit (runs of one `--timeout` have one). */
const watchdogs = new Map<number, Watchdog>();
function watchdogFor(timeoutMs: number | undefined): Watchdog {
  const limit = lastResortMs(timeoutMs);
  let watchdog = watchdogs.get(limit);
  if (!watchdog) {
    watchdog = new Watchdog(limit, "cli");
    watchdogs.set(limit, watchdog);
  }
  return watchdog;
}

/** An attempt's context: one shared by a batch's first trials when judgments are not streamed. */
function contextOf(job: ChildJob, trial: number, settings: Settings, slot: Slot): AttemptContext {
  if (trial === 0 && !settings.judgments && settings.context) return settings.context;
  const context: AttemptContext = {
    runId: settings.runId,
    signal: controller.signal,
    // Only the CLI runs an eval process: errors advise its flags.
    origin: "cli",
    ...(trial > 0 ? { trial } : {}),
    ...(settings.keepOutput ? { keepOutput: true } : {}),
    ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
    ...(settings.judgments
      ? {
          onJudgment: (judgment: Judgment) => {
            // A first run given up on (first-runs.ts) shares its id with the attempt run again.
            if (running.get(job.id) !== slot) return;
            if (!isPlainJson(judgment)) outboxPlain = false;
            post({ t: "judgment", id: job.id, judgment });
          },
        }
      : {}),
  };
  if (trial === 0 && !settings.judgments) settings.context = context;
  return context;
}

async function start(init: ChildInit): Promise<void> {
  if (init.claims) claimsFd = CLAIMS_FD;
  if (!init.judgeCache) configureJudges({ cache: false });
  if (init.aborted !== undefined)
    controller.abort(new RunStop(init.aborted, init.resumable === true));
  if (init.track) tracking = true;
  setInterval(() => send({ t: "beat" }), init.beatMs).unref();
  if (!init.endsWithParent) watchSupervisor();
  reapGroupWithThisProcess();
  const loaded = await loadEvalFiles(init.files, init.cwd, {
    waitMs: init.loadWaitMs,
    onImport: (file) => send({ t: "loading", file }),
  }).catch((error: unknown) => ({
    entries: [],
    errors: [{ file: "(eval process)", message: errorMessage(error) }],
  }));
  for (const entry of loaded.entries) evals.set(entry.eval.id, entry.eval);
  for (const error of loaded.errors) loadErrors.set(error.file, error.message);
  caseServer = new CaseServer(evals, controller.signal);
  send({
    t: "ready",
    described: describeEvals(loaded.entries),
    errors: loaded.errors,
  });
}

/** Run the run's attempts ahead of the supervisor, reading the cases here (AheadPlan). */
function startAhead(plan: AheadPlan): void {
  if (aheadStopped) {
    feedEndSent = true;
    post({ t: "ahead-end" });
    return;
  }
  limit = plan.concurrency;
  feedSettings = {
    c: plan.concurrency,
    runId: plan.runId,
    ...(plan.keepOutput ? { keepOutput: true as const } : {}),
    ...(plan.timeoutMs !== undefined ? { timeoutMs: plan.timeoutMs } : {}),
  };
  try {
    feed = new AheadFeed([...evals.values()], plan, controller.signal, {
      wake: schedulePump,
      stalled: () => post({ t: "ahead-stalled" }),
    });
  } catch (error) {
    // A plan this process cannot follow: it ends at once, and the supervisor asks for each attempt.
    feed = undefined;
    feedEndSent = true;
    post({ t: "ahead-end" });
    process.stderr.write(`niceeval: reading the cases ahead failed: ${errorMessage(error)}\n`);
    return;
  }
  schedulePump();
}

/** The first frame of a stack outside Node's own modules: where an uncaught error came from. */
function origin(error: unknown): string {
  let stack = "";
  try {
    // A thrown proxy can throw from instanceof (its prototype) or from its stack getter.
    stack = error instanceof Error ? String(error.stack ?? "") : "";
  } catch {}
  const frame = stack
    .split("\n")
    .map((line) => line.trim())
    .find((line) => line.startsWith("at ") && !line.includes("node:"));
  return frame ? frame.slice(3) : "unknown location";
}

// An uncaught error belongs to the attempt whose async context threw it; otherwise it is the
// run's, reported with where it came from. Before tracking, an error while attempts run is placed
// by running each of them again alone.
/** Within the turn of an error that sent the attempts in flight to run again alone. */
let placingTurn = false;

/** Attempts an uncaught error of their own ended (by id): later ones of theirs are not the run's. */
const erroredByUncaught = new Set<number>();

function uncaught(kind: string, error: unknown): void {
  const id = tracking ? attemptOf.getStore() : undefined;
  const attempt = id === undefined ? undefined : running.get(id);
  const message = `${kind} in user code: ${errorMessage(error)} (at ${origin(error)})`;
  // More errors from an attempt that one of them already errored are its own too; more that no
  // attempt can own, thrown in the turn of one that sent attempts to run again alone (many
  // rejections leaked at once), go with that one.
  if (id !== undefined && !attempt && erroredByUncaught.has(id)) return;
  if (id === undefined && placingTurn) return;
  // A call made after its test ended names its own attempt, which had finished: it is the run's,
  // and no attempt running now runs again for it.
  if (isLateCall(error)) {
    send({ t: "run-error", message, where: origin(error) });
    return;
  }
  if (id !== undefined && attempt) {
    erroredByUncaught.add(id);
    // Its time is the attempt's until the error, not none.
    const record = crashed(
      evals.get(attempt.evalId) ?? { id: attempt.evalId },
      attempt.spec,
      message,
    );
    record.elapsedMs = realNow() - attempt.started;
    settle(id, record);
  } else if (!tracking && running.size > 0) runAgainAlone(message, origin(error));
  else send({ t: "run-error", message, where: origin(error) });
}

/**
 * An uncaught error nobody can place: from now on callbacks are followed to their attempt, and
 * the attempts running now run again alone (their first runs go on, holding their slots). The
 * supervisor keeps the error as the run's unless one of them throws again when alone.
 */
function runAgainAlone(message: string, where: string): void {
  tracking = true;
  placingTurn = true;
  setImmediate(() => {
    placingTurn = false;
  });
  const ids = [...running.keys()];
  for (const slot of running.values()) if (slot.fed) runningAhead.delete(slot.fed);
  firstRuns.add(running.values());
  running.clear();
  // The claims file lists what still runs ahead: these now run again, one at a time.
  claimAhead();
  // The events that say they started leave first: the supervisor must know them to run them again.
  flush();
  send({ t: "run-error", message, where, reruns: ids });
}

/** Replies to reads of cases, sent together once this turn's reads have ended. */
let caseReplies: CasesReply[] = [];

/** Read cases the supervisor asked for, once the files are loaded; see caseReplies. */
function readCases(request: CasesRequest): void {
  void ready?.then(async () => {
    if (!caseServer) return;
    // Read before the push: a reply must join the replies not yet sent, not those of its turn.
    const reply = await caseServer.read(request);
    caseReplies.push(reply);
    if (caseReplies.length === 1) setImmediate(sendCaseReplies);
  });
}

/** Send the replies read so far (once per turn, or before attempts start: see pump). */
function sendCaseReplies(): void {
  if (caseReplies.length === 0) return;
  const replies = caseReplies;
  caseReplies = [];
  send(replies.length === 1 ? replies[0]! : { t: "cases-many", replies });
}

/**
 * On the way out of `process.exit` (user code, usually): which attempts were running, and the
 * events that had not left (the records of attempts that finished just before: in the outbox, or
 * sent and still queued in the channel), which would leave with the process: the supervisor
 * reads those it did not get after the messages that did leave, so those attempts do not run
 * again (the layout is in protocol.ts, EXIT_CLAIMS_AT).
 */
function claimAtExit(): void {
  if (claimsFd === undefined) return;
  const where = exitCalledAt ? Buffer.from(exitCalledAt) : undefined;
  const cut = disconnectCalledAt === undefined ? undefined : Buffer.from(disconnectCalledAt);
  // Listed and never started: not in flight at the exit.
  dropClaimed();
  claimAhead();
  const ids: number[] = [];
  for (const id of running.keys()) if (id >= 0) ids.push(id);
  const events = unsentEvents();
  const tail = 24 + 8 * ids.length + events.length;
  const cutAt = tail + 8 + (where?.length ?? 0);
  const buffer = Buffer.alloc(cutAt + 8 + (cut?.length ?? 0));
  buffer.writeDoubleLE(1, 0);
  buffer.writeDoubleLE(ids.length, 8);
  for (const [i, id] of ids.entries()) buffer.writeDoubleLE(id, 16 + 8 * i);
  buffer.writeDoubleLE(events.length, 16 + 8 * ids.length);
  if (events) events.copy(buffer, 24 + 8 * ids.length);
  // Where user code called process.exit, for the cause the supervisor gives.
  buffer.writeDoubleLE(where?.length ?? 0, tail);
  if (where) where.copy(buffer, tail + 8);
  // Where user code called process.disconnect (-1: it did not), for the same.
  buffer.writeDoubleLE(cut?.length ?? -1, cutAt);
  if (cut) cut.copy(buffer, cutAt + 8);
  try {
    writeSync(claimsFd, buffer, 0, buffer.length, EXIT_CLAIMS_AT);
  } catch {}
}

/**
 * The packed batches that may not have reached the supervisor, each after its number (protocol.ts,
 * EXIT_CLAIMS_AT): those sent and not yet written, then the outbox (numbered as the next sent).
 */
function unsentEvents(): Buffer | "" {
  const parts: string[] = [];
  for (const [seq, json] of unwritten) parts.push(String(seq), json);
  // Only plain events can be written (a record structured clone would carry is run again).
  if (outboxPlain && outbox.length > 0)
    parts.push(String(packedSent), JSON.stringify(pack(outbox)));
  return parts.length > 0 ? Buffer.from(`[${parts.join(",")}]`) : "";
}

/**
 * Resolves once what the code under test wrote to stdout and stderr has left this process (a
 * pipe takes it asynchronously: exiting with 70 KB still queued lost the last of it), or after
 * 2 s when nobody reads it.
 */
function outputWritten(): Promise<void> {
  const queued = [process.stdout, process.stderr].filter((stream) => stream.writableLength > 0);
  if (queued.length === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 2000);
    let left = queued.length;
    for (const stream of queued) {
      stream.once("drain", () => {
        if (--left > 0) return;
        clearTimeout(timer);
        resolve();
      });
    }
  });
}

/** Where user code called process.exit (its first frame outside Node, niceeval and packages). */
let exitCalledAt: string | undefined;
const nodeExit = process.exit.bind(process);
process.exit = ((code?: number | string | null) => {
  exitCalledAt ??= thrownAt(new Error("process.exit"));
  return nodeExit(code as number | undefined);
}) as typeof process.exit;

/**
 * Where user code called process.disconnect ("" when its stack shows no place of the user's): it
 * cuts the channel to the supervisor, so the eval process ends (the 'disconnect' listener below).
 */
let disconnectCalledAt: string | undefined;
const nodeDisconnect = process.disconnect?.bind(process);
if (nodeDisconnect) {
  process.disconnect = () => {
    disconnectCalledAt ??= thrownAt(new Error("process.disconnect")) ?? "";
    nodeDisconnect();
  };
}

// Kept: an attempt that removes one has it put back and is errored (process-listeners.ts).
keepListener("exit", claimAtExit);
keepListener("uncaughtException", (error) => uncaught("uncaught exception", error));
keepListener("unhandledRejection", (reason) => uncaught("unhandled rejection", reason));
// Ctrl-C reaches the whole process group: the supervisor decides what a signal means.
keepListener("SIGINT", () => {});
keepListener("SIGTERM", () => {});
keepListener("disconnect", () => process.exit(0));
// A judge's push-back is told on as it comes: a queue worker pauses its whole fleet for it.
onJudgePushBack((event) => send({ t: "push-back", event }));
keepListener("message", (message: ParentMessage) => {
  if (typeof message === "string") {
    enqueue(JSON.parse(message) as JobBatch);
    return;
  }
  switch (message.t) {
    case "init":
      ready = start(message).then(() => {
        loaded = true;
      });
      break;
    case "jobs":
      enqueue(message);
      break;
    case "ahead":
      void ready?.then(() => startAhead(message.plan));
      break;
    case "ack":
      feed?.ack(message.taken);
      break;
    case "cases":
      readCases(message);
      break;
    case "cases-many":
      for (const read of message.reads) readCases(read);
      break;
    case "ahead-stop":
      // It may come before the feed exists (the plan waits for the files to load).
      aheadStopped = true;
      feed?.stop();
      schedulePump();
      break;
    case "abort":
      controller.abort(new RunStop(message.reason, message.resumable === true));
      pump();
      break;
    case "close":
      void closeAnswerStores()
        .then(outputWritten, () => {})
        .finally(() => process.exit(0));
      break;
  }
});
// Only now: the supervisor sends nothing until it hears this (see LISTENING).
send(LISTENING);
