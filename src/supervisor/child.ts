// The eval process of a supervised run: loads the eval files, runs the attempts it is sent with
// the in-process executor, and streams the records back. Started by supervisedExecutor.
import { AsyncLocalStorage } from "node:async_hooks";
import { writeSync } from "node:fs";
import { loadEvalFiles } from "../cli/load.js";
import { errorMessage } from "../errors.js";
import { type AttemptRecord, type Judgment, unreportedUsage } from "../eval/record.js";
import type { AttemptContext, CaseSpec, Runnable } from "../eval/runnable.js";
import { closeAnswerStores } from "../judge/cache.js";
import { configureJudges } from "../judge/config.js";
import { safeStringify } from "../report/json-safe.js";
import { inProcessExecutor, isPromise } from "../runner/executor.js";
import { crashed } from "../runner/source.js";
import { DeltaEncoder } from "./delta.js";
import {
  type ChildEvent,
  type ChildInit,
  type ChildJob,
  type ChildMessage,
  CLAIMS_FD,
  type JobBatch,
  type JobSettings,
  PACKED,
  type ParentMessage,
  RECORD_FLAGS,
} from "./protocol.js";
import { isPlainJson } from "./wire.js";

// Which attempt a callback belongs to. On Node 20 an AsyncLocalStorage in use slows every promise
// of the process (about a fifth of a fast run), so it is used only once an uncaught error could
// not be placed (`tracking`); until then one running attempt owns any error.
const attemptOf = new AsyncLocalStorage<number>();
let tracking = false;
/** Attempts started and not settled: their eval and case (the case found once it is looked up). */
const running = new Map<number, { evalId: string; spec: CaseSpec }>();
const evals = new Map<string, Runnable>();
const loadErrors = new Map<string, string>();
const controller = new AbortController();
let outbox: ChildEvent[] = [];
/** Every event in the outbox is plain JSON (records are checked as they are encoded). */
let outboxPlain = true;
/** Records leave as changes against the previous ones of their eval (delta.ts). */
const encoder = new DeltaEncoder();
let flushing: "now" | "soon" | undefined;
/** Longest an event waits in the outbox while attempts run or wait here, ms. */
const BATCH_MS = 2;
let ready: Promise<void> | undefined;

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

/** A batch's settings, with the context its first trials share. */
interface Settings extends JobSettings {
  context?: AttemptContext;
}

const queued = () => queue.length - queueHead;
const hasRoom = () => limit === 0 || running.size + starting < limit;

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
  if (queued() > 0 && hasRoom()) schedulePump();
  requestFlush();
};

function requestFlush(): void {
  if ((running.size === 0 && starting === 0 && queued() === 0) || outbox.length >= MAX_BATCH) {
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
    if (!send(JSON.stringify(pack(events)), after)) after?.();
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
        const plain = JSON.parse(safeStringify(event)) as ChildEvent;
        send({ t: "events", events: [plain] });
      }
    }
    if (!send({ t: "beat" }, after)) after?.();
  }
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
      case "rerun":
        out.push(PACKED.rerun, event.id);
        break;
    }
  }
  return out;
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
  if (controller.signal.aborted) {
    // No new case starts after an abort: what waits here is ended, not run.
    const reason = (controller.signal.reason as Error).message;
    while (queued() > 0) {
      const [job] = take();
      outbox.push({
        t: "record",
        id: job.id,
        record: crashed(job.evalId, specOf(job), `${reason} before the attempt started`),
      });
    }
  }
  const ids: number[] = [];
  const jobs: ChildJob[] = [];
  const settings: Settings[] = [];
  while (queued() > 0 && (limit === 0 || running.size + starting + jobs.length < limit)) {
    const [job, of] = take();
    jobs.push(job);
    settings.push(of);
    ids.push(job.id);
  }
  if (jobs.length === 0) {
    if (outbox.length > 0) requestFlush();
    return;
  }
  outbox.push({ t: "started", ids });
  if (claim()) {
    // The claims file says how far this process got: they may start now, and the supervisor
    // learns that they did with the next batch (its time limits count from then).
    requestFlush();
    for (let i = 0; i < jobs.length; i++) void runJob(jobs[i]!, settings[i]!);
    return;
  }
  // No claims file: the word that they start goes first, and they start once it is written.
  starting += jobs.length;
  flush(() => {
    starting -= jobs.length;
    for (let i = 0; i < jobs.length; i++) void runJob(jobs[i]!, settings[i]!);
  });
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

const settle = (id: number, record: AttemptRecord): void => {
  const slot = running.get(id);
  if (!slot) return;
  running.delete(id);
  // Left off, for the supervisor to put back (RECORD_FLAGS): the usual app usage (nobody
  // reported any, a quarter of a record's bytes) and the case id it knows.
  const unreported = record.usage.app === unreportedUsage();
  const sameCase = record.caseId === slot.spec.id;
  let sent = record;
  let flags = 0;
  if (unreported || sameCase) {
    sent = { ...record };
    if (unreported) {
      flags |= RECORD_FLAGS.unreported;
      sent.usage = { judge: record.usage.judge } as AttemptRecord["usage"];
    }
    if (sameCase) {
      flags |= RECORD_FLAGS.caseId;
      sent.caseId = "";
    }
  }
  const encoded = encoder.encode(record.evalId, sent);
  if (encoded) {
    post({ t: "delta", id, ...encoded, ...(flags ? { f: flags } : {}) });
    return;
  }
  outboxPlain = false;
  post({ t: "record", id, record: sent, ...(flags ? { f: flags } : {}) });
};

async function runJob(job: ChildJob, settings: Settings): Promise<void> {
  const slot = { evalId: job.evalId, spec: specOf(job) };
  running.set(job.id, slot);
  await ready;
  const runnable = evals.get(job.evalId);
  const spec = job.spec ?? (runnable && (await findSpec(runnable, slot.spec.id)));
  if (!runnable || !spec) {
    const why = runnable
      ? `case "${slot.spec.id}" was not found among its cases in the eval process`
      : `eval "${job.evalId}" did not load in the eval process${loadErrors.size ? ` (${[...loadErrors].map(([f, m]) => `${f}: ${m}`).join("; ")})` : ""}`;
    settle(job.id, crashed(job.evalId, slot.spec, why));
    return;
  }
  slot.spec = spec;
  const trial = job.trial ?? 0;
  const execute = () =>
    inProcessExecutor.executeNow({
      entry: { eval: runnable },
      spec,
      trial,
      context: contextOf(job, trial, settings),
    });
  // A record given at once is settled at once (synchronous targets and scorers).
  const record = tracking ? attemptOf.run(job.id, execute) : execute();
  settle(job.id, isPromise(record) ? await record : record);
}

/** An attempt's context: one shared by a batch's first trials when judgments are not streamed. */
function contextOf(job: ChildJob, trial: number, settings: Settings): AttemptContext {
  if (trial === 0 && !settings.judgments && settings.context) return settings.context;
  const context: AttemptContext = {
    runId: settings.runId,
    signal: controller.signal,
    ...(trial > 0 ? { trial } : {}),
    ...(settings.keepOutput ? { keepOutput: true } : {}),
    ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
    ...(settings.judgments
      ? {
          onJudgment: (judgment: Judgment) => {
            if (!isPlainJson(judgment)) outboxPlain = false;
            post({ t: "judgment", id: job.id, judgment });
          },
        }
      : {}),
  };
  if (trial === 0 && !settings.judgments) settings.context = context;
  return context;
}

// Cases whose values structured clone cannot carry are found by id in the child's own cases.
const casesById = new Map<Runnable, Promise<Map<string, CaseSpec>>>();
function findSpec(runnable: Runnable, caseId: string): Promise<CaseSpec | undefined> {
  let cases = casesById.get(runnable);
  if (!cases) {
    cases = (async () => {
      const byId = new Map<string, CaseSpec>();
      for await (const spec of runnable.cases()) if (!byId.has(spec.id)) byId.set(spec.id, spec);
      return byId;
    })();
    casesById.set(runnable, cases);
  }
  return cases.then((byId) => byId.get(caseId));
}

async function start(init: ChildInit): Promise<void> {
  if (init.claims) claimsFd = CLAIMS_FD;
  if (!init.judgeCache) configureJudges({ cache: false });
  if (init.aborted !== undefined) controller.abort(new Error(init.aborted));
  if (init.track) tracking = true;
  setInterval(() => send({ t: "beat" }), init.beatMs).unref();
  const loaded = await loadEvalFiles(init.files, init.cwd).catch((error: unknown) => ({
    entries: [],
    errors: [{ file: "(eval process)", message: errorMessage(error) }],
  }));
  for (const entry of loaded.entries) evals.set(entry.eval.id, entry.eval);
  for (const error of loaded.errors) loadErrors.set(error.file, error.message);
  send({ t: "ready", evals: [...evals.keys()], errors: loaded.errors });
}

/** The first frame of a stack outside Node's own modules: where an uncaught error came from. */
function origin(error: unknown): string {
  const stack = error instanceof Error ? (error.stack ?? "") : "";
  const frame = stack
    .split("\n")
    .map((line) => line.trim())
    .find((line) => line.startsWith("at ") && !line.includes("node:"));
  return frame ? frame.slice(3) : "unknown location";
}

// An uncaught error belongs to the attempt whose async context threw it, or the only one
// running; otherwise it is the run's, reported with where it came from. Before tracking, an
// error while several attempts run is placed by running each of them again alone.
function uncaught(kind: string, error: unknown): void {
  const tracked = tracking ? attemptOf.getStore() : undefined;
  const id = tracked ?? (running.size === 1 ? running.keys().next().value : undefined);
  const attempt = id === undefined ? undefined : running.get(id);
  const message = `${kind} in user code: ${errorMessage(error)} (at ${origin(error)})`;
  if (id !== undefined && attempt) {
    settle(id, crashed(attempt.evalId, attempt.spec, message));
  } else if (!tracking && running.size > 1) {
    tracking = true;
    const ids = [...running.keys()];
    running.clear();
    for (const rerun of ids) post({ t: "rerun", id: rerun });
    // Still the run's error (it fails the run) even if no rerun throws it again.
    send({
      t: "run-error",
      message: `${message}, thrown while ${ids.length} attempts were in flight: each runs again alone to find whose it is`,
      where: origin(error),
    });
  } else {
    send({ t: "run-error", message, where: origin(error) });
  }
}

process.on("uncaughtException", (error) => uncaught("uncaught exception", error));
process.on("unhandledRejection", (reason) => uncaught("unhandled rejection", reason));
// Ctrl-C reaches the whole process group: the supervisor decides what a signal means.
process.on("SIGINT", () => {});
process.on("SIGTERM", () => {});
process.on("disconnect", () => process.exit(0));
process.on("message", (message: ParentMessage) => {
  if (typeof message === "string") {
    enqueue(JSON.parse(message) as JobBatch);
    return;
  }
  switch (message.t) {
    case "init":
      ready = start(message);
      break;
    case "jobs":
      enqueue(message);
      break;
    case "abort":
      controller.abort(new Error(message.reason));
      pump();
      break;
    case "close":
      void closeAnswerStores().finally(() => process.exit(0));
      break;
  }
});
