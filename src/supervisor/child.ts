// The eval process of a supervised run: loads the eval files, runs the attempts it is sent with
// the in-process executor, and streams the records back. Started by supervisedExecutor.
import { AsyncLocalStorage } from "node:async_hooks";
import { loadEvalFiles } from "../cli/load.js";
import { errorMessage } from "../errors.js";
import { type AttemptRecord, unreportedUsage } from "../eval/record.js";
import type { AttemptContext, CaseSpec, Runnable } from "../eval/runnable.js";
import { closeAnswerStores } from "../judge/cache.js";
import { configureJudges } from "../judge/config.js";
import { safeStringify } from "../report/json-safe.js";
import { inProcessExecutor } from "../runner/executor.js";
import { crashed } from "../runner/source.js";
import type { ChildEvent, ChildInit, ChildJob, ChildMessage, ParentMessage } from "./protocol.js";
import { jsonBatch } from "./wire.js";

// Which attempt a callback belongs to. On Node 20 an AsyncLocalStorage in use slows every promise
// of the process (about a fifth of a fast run), so it is used only once an uncaught error could
// not be placed (`tracking`); until then one running attempt owns any error.
const attemptOf = new AsyncLocalStorage<number>();
let tracking = false;
const running = new Map<number, { runnable: Runnable; spec: CaseSpec }>();
const evals = new Map<string, Runnable>();
const loadErrors = new Map<string, string>();
const controller = new AbortController();
let outbox: ChildEvent[] = [];
let flushing: "now" | "soon" | undefined;
/** Longest an event waits for the attempts still running to join its batch, ms. */
const BATCH_MS = 2;
let ready: Promise<void> | undefined;

const send = (message: ChildMessage): void => {
  try {
    process.send?.(message);
  } catch {}
};

// Events leave in batches: at once when no attempt is still running, else within BATCH_MS, so
// the supervisor gets a round of records in one message and answers with one message of jobs.
const post = (event: ChildEvent): void => {
  outbox.push(event);
  if (running.size === 0) {
    if (flushing === "now") return;
    flushing = "now";
    setImmediate(flush);
  } else if (flushing === undefined) {
    flushing = "soon";
    setTimeout(flush, BATCH_MS);
  }
};

function flush(): void {
  if (flushing === undefined) return;
  flushing = undefined;
  const events = outbox;
  outbox = [];
  if (!process.connected || events.length === 0) return;
  const json = jsonBatch(events);
  if (json !== undefined) {
    send(json);
    return;
  }
  try {
    process.send?.({ t: "events", events } satisfies ChildMessage);
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
  }
}

const settle = (id: number, record: AttemptRecord): void => {
  if (!running.delete(id)) return;
  // The usual app usage (nobody reported any) is a quarter of a record's bytes: it is implied.
  if (record.usage.app !== unreportedUsage()) {
    post({ t: "record", id, record });
    return;
  }
  const usage = { judge: record.usage.judge } as AttemptRecord["usage"];
  post({ t: "record", id, record: { ...record, usage }, unreported: 1 });
};

async function runJob(job: ChildJob): Promise<void> {
  await ready;
  const runnable = evals.get(job.evalId);
  const spec = job.spec ?? (runnable && (await findSpec(runnable, job.caseId)));
  const fallback: CaseSpec = { id: job.caseId, index: job.index };
  if (!runnable || !spec) {
    const why = runnable
      ? `case "${job.caseId}" was not found among its cases in the eval process`
      : `eval "${job.evalId}" did not load in the eval process${loadErrors.size ? ` (${[...loadErrors].map(([f, m]) => `${f}: ${m}`).join("; ")})` : ""}`;
    post({ t: "record", id: job.id, record: crashed(job.evalId, fallback, why) });
    return;
  }
  running.set(job.id, { runnable, spec });
  const context: AttemptContext = {
    runId: job.runId,
    signal: controller.signal,
    ...(job.trial > 0 ? { trial: job.trial } : {}),
    ...(job.keepOutput ? { keepOutput: true } : {}),
    ...(job.timeoutMs !== undefined ? { timeoutMs: job.timeoutMs } : {}),
    ...(job.judgments
      ? { onJudgment: (judgment) => post({ t: "judgment", id: job.id, judgment }) }
      : {}),
  };
  const execute = () =>
    inProcessExecutor.execute({ entry: { eval: runnable }, spec, trial: job.trial, context });
  settle(job.id, await (tracking ? attemptOf.run(job.id, execute) : execute()));
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
    settle(id, crashed(attempt.runnable.id, attempt.spec, message));
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
    for (const job of JSON.parse(message) as ChildJob[]) void runJob(job);
    return;
  }
  switch (message.t) {
    case "init":
      ready = start(message);
      break;
    case "jobs":
      for (const job of message.jobs) void runJob(job);
      break;
    case "abort":
      controller.abort(new Error(message.reason));
      break;
    case "close":
      void closeAnswerStores().finally(() => process.exit(0));
      break;
  }
});
