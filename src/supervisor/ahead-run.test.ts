import { describe, expect, it } from "vitest";
import { type AttemptRecord, erroredRecord, type Judgment } from "../eval/record.js";
import type { Runnable } from "../eval/runnable.js";
import type { RunEntry } from "../runner/entry.js";
import { type AheadPending, AheadRun } from "./ahead-run.js";
import { aheadKey, type ParentMessage } from "./protocol.js";

const entry = { eval: { id: "ev" } as unknown as Runnable } as RunEntry;
const spec = (index: number) => ({ id: `c${index}`, index });
const record = (index: number, caseId = `c${index}`): AttemptRecord =>
  erroredRecord({ evalId: "ev", caseId, message: "x", where: "here" });

interface Pending extends AheadPending {
  index: number;
  resolved?: AttemptRecord;
}

/** An AheadRun whose host writes down what it was asked to do. */
function setup() {
  const said: {
    ask: number[];
    isolate: number[];
    strike: string[];
    cutOff: string[];
    posts: ParentMessage[];
    warn: string[];
  } = { ask: [], isolate: [], strike: [], cutOff: [], posts: [], warn: [] };
  const run = new AheadRun<Pending, string>({
    ask: (p) => said.ask.push(p.index),
    isolate: (p) => said.isolate.push(p.index),
    strike: (p, strikes, cause) => said.strike.push(`${p.index}:${strikes}:${cause}`),
    cutOff: (p, reason) => said.cutOff.push(`${p.index}:${reason}`),
    post: (message) => said.posts.push(message),
    warn: (text) => said.warn.push(text),
  });
  run.configure({ runId: "r", concurrency: 4 }, ["ev"]);
  run.start("child", ["ev"]);
  const pending = (index: number): Pending => {
    const p: Pending = {
      index,
      job: {
        entry,
        spec: spec(index),
        trial: 0,
        context: { runId: "r", signal: new AbortController().signal },
      },
      resolve: (r) => {
        p.resolved = r;
      },
      sentAt: 0,
      started: false,
    };
    return p;
  };
  // Child ids are -1, -2, … for indexes 0, 1, …
  const began = (...indexes: number[]) =>
    run.onBegan(
      indexes.flatMap((i) => [-(i + 1), 0, i, 0]),
      0,
      indexes.length * 4,
      0,
    );
  return { run, said, pending, began };
}

describe("AheadRun", () => {
  it("decodes a record that came ahead only when the engine takes it", () => {
    const { run, began } = setup();
    began(0);
    let decoded = 0;
    const early = record(0);
    run.onRecord(-1, () => {
      decoded++;
      return early;
    });
    expect(decoded).toBe(0);
    expect(run.take(entry, spec(0), 0)?.record).toBe(early);
    expect(decoded).toBe(1);
  });

  it("hands a record over with when it ran: ended as it came, started its elapsedMs before", () => {
    const { run, began } = setup();
    began(0);
    const early = { ...record(0), elapsedMs: 250 };
    const before = performance.now();
    run.onRecord(-1, early);
    const after = performance.now();
    const taken = run.take(entry, spec(0), 0)!;
    expect(taken.endedAt).toBeGreaterThanOrEqual(before);
    expect(taken.endedAt).toBeLessThanOrEqual(after);
    expect(taken.endedAt - taken.startedAt).toBe(250);
  });

  it("gives the engine a record that came before it asked, and one that comes after", () => {
    const { run, said, pending, began } = setup();
    expect(said.posts[0]).toMatchObject({ t: "ahead" });
    began(0, 1);
    const early = record(0);
    run.onRecord(-1, early);
    expect(run.take(entry, spec(0), 0)?.record).toBe(early);
    expect(run.take(entry, spec(0), 0)).toBeUndefined();

    const later = pending(1);
    expect(run.claim(later)).toBe(true);
    expect(later.started).toBe(true);
    run.onRecord(-2, record(1));
    expect(later.resolved?.caseId).toBe("c1");
    expect(said.ask).toEqual([]);
  });

  it("is outstanding while what it began waits for the engine, and cuts off at a stop what never ended", () => {
    const { run, said } = setup();
    let changes = 0;
    run.watch(() => changes++);
    // It may still begin attempts.
    expect(run.outstanding()).toBe(true);
    run.onEnd();
    expect(run.outstanding()).toBe(false);
    expect(changes).toBe(1);

    const other = setup();
    other.began(0, 1, 2);
    // c0 ended before the engine asked for it; c1 is asked for and runs; c2 runs unasked.
    other.run.onRecord(-1, record(0));
    const asked = other.pending(1);
    expect(other.run.claim(asked)).toBe(true);
    // The stop kills the eval process; its claims file also lists c3 (listed, its word not come).
    const inFlight = other.run.interrupted("interrupted by SIGTERM", [
      aheadKey(0, 2, 0),
      aheadKey(0, 3, 0),
    ]);
    expect(inFlight).toEqual([asked]);
    expect(other.run.outstanding()).toBe(true);
    // The engine reads on: c0's record, c2 and c3 errored as cut off, started; c4 never began.
    expect(other.run.take(entry, spec(0), 0)?.record.caseId).toBe("c0");
    const [two, three, four] = [other.pending(2), other.pending(3), other.pending(4)];
    expect(other.run.claim(two)).toBe(true);
    expect(other.run.claim(three)).toBe(true);
    expect(two.started && three.started).toBe(true);
    expect(other.said.cutOff).toEqual(["2:interrupted by SIGTERM", "3:interrupted by SIGTERM"]);
    expect(other.run.outstanding()).toBe(false);
    expect(other.run.claim(four)).toBe(false);
    expect(said.cutOff).toEqual([]);
  });

  it("gives a sink that wants each judgment those of a record that comes after it asked", () => {
    const { run, pending, began } = setup();
    const asked = pending(0);
    const seen: string[] = [];
    Object.assign(asked.job.context, { onJudgment: (j: Judgment) => seen.push(j.label) });
    run.claim(asked);
    began(0);
    const judged: Judgment = {
      label: "same",
      source: "test",
      state: "matched",
      gate: true,
      points: 1,
      earned: 1,
      value: 1,
      reason: "ok",
    };
    const done: AttemptRecord = { ...record(0), judgments: [judged] };
    run.onRecord(-1, done);
    expect(seen).toEqual(done.judgments.map((j) => j.label));
    expect(seen.length).toBeGreaterThan(0);
  });

  it("acknowledges the records taken, every 1,024", () => {
    const { run, said, began } = setup();
    const indexes = Array.from({ length: 1100 }, (_, i) => i);
    began(...indexes);
    for (const i of indexes) run.onRecord(-(i + 1), record(i));
    for (const i of indexes) expect(run.take(entry, spec(i), 0)).toBeDefined();
    expect(said.posts.filter((m) => typeof m !== "string" && m.t === "ack")).toEqual([
      { t: "ack", taken: 1024 },
    ]);
  });

  it("sends what will not come ahead once the eval process says none more will start", () => {
    const { run, said, pending, began } = setup();
    began(0);
    const waitingStarted = pending(0);
    const waitingNever = pending(5);
    run.claim(waitingStarted);
    run.claim(waitingNever);
    run.onEnd();
    expect(said.ask).toEqual([5]);
    // Asked after the end: sent, unless it was started ahead.
    expect(run.claim(pending(6))).toBe(false);
    run.onRecord(-1, record(0));
    expect(waitingStarted.resolved).toBeDefined();
  });

  it("strikes what was in flight ahead at a crash, including what only the claims file lists", () => {
    const { run, said, pending, began } = setup();
    began(0, 1);
    run.onRecord(-1, record(0));
    const asked = pending(1);
    run.claim(asked);
    // Index 2 started (the claims file says so) but its began event was lost with the process;
    // index 0 is listed too, but its record came.
    const { inFlight, notAsked } = run.crashed(
      "the eval process exited with code 1",
      [0, 2].map((i) => aheadKey(0, i, 0)),
    );
    expect(inFlight).toEqual([asked]);
    expect(notAsked).toBe(1);
    expect(run.claim(pending(2))).toBe(true);
    expect(said.strike).toEqual(["2:1:the eval process exited with code 1"]);
    // Nothing more comes ahead after a crash: the rest is sent.
    expect(run.claim(pending(3))).toBe(false);
  });

  it("hands on what was struck at a crash when the engine asks after the stop, with its time", () => {
    const { run, said, pending } = setup();
    // Index 1 began 200 ms ago, ahead of the engine; the eval process then crashed.
    run.onBegan([-1, 0, 0, 0, -2, 0, 1, 0], 0, 8, performance.now() - 200);
    const asked = pending(0);
    run.claim(asked);
    const cause = "the eval process exited with code 3";
    const { inFlight, notAsked } = run.crashed(cause, undefined);
    expect(inFlight).toEqual([asked]);
    expect(asked.ranMs).toBeGreaterThanOrEqual(200);
    expect(notAsked).toBe(1);
    // The stop came before the engine asked for it. Before, it was refused as never started (the
    // supervisor then errored it "before the attempt started", with 0 ms).
    const late = pending(1);
    expect(run.claimStopped(late)).toBe(true);
    expect(said.strike).toEqual([`1:1:${cause}`]);
    expect(late.ranMs).toBeGreaterThanOrEqual(200);
    expect(run.outstanding()).toBe(false);
    // One that never began is refused as not started.
    expect(run.claimStopped(pending(2))).toBe(false);
  });

  it("stops taking from what runs ahead when a record is of another case", () => {
    const { run, said, pending, began } = setup();
    began(0, 1);
    run.onRecord(-1, record(0, "elsewhere"));
    expect(run.take(entry, spec(0), 0)).toBeUndefined();
    expect(said.warn.join("")).toMatch(/read other cases of eval "ev" than this one did/);
    // Said once: a later divergence says nothing more.
    run.onRecord(-1, record(0, "elsewhere again"));
    run.take(entry, spec(0), 0);
    expect(said.warn).toHaveLength(1);
    expect(said.posts.at(-1)).toEqual({ t: "ahead-stop" });
    const asked = pending(1);
    run.claim(asked);
    run.onRecord(-2, record(1, "elsewhere too"));
    expect(asked.resolved).toBeUndefined();
    expect(said.ask).toEqual([1]);
  });

  it("still takes attempts from ahead after a stop, until the eval process says it ended", () => {
    const { run, said, pending, began } = setup();
    run.stop();
    expect(said.posts.at(-1)).toEqual({ t: "ahead-stop" });
    // Started before the stop reached it: its began event comes after the stop.
    const asked = pending(0);
    expect(run.claim(asked)).toBe(true);
    began(0);
    run.onRecord(-1, record(0));
    expect(asked.resolved?.caseId).toBe("c0");
    const never = pending(1);
    expect(run.claim(never)).toBe(true);
    run.onEnd();
    expect(said.ask).toEqual([1]);
  });

  it("sees a stall as other cases when the engine then waits for one never started", () => {
    const { run, said, pending, began } = setup();
    const indexes = Array.from({ length: 2100 }, (_, i) => i + 10);
    began(...indexes);
    for (const i of indexes) run.onRecord(-(i + 1), record(i));
    run.onStalled();
    expect(said.warn).toEqual([]);
    run.claim(pending(5));
    expect(said.warn.join("")).toMatch(/read other cases of eval "ev" than this one did/);
  });

  it("does not run ahead when the eval process loaded other evals", () => {
    const { said, pending } = setup();
    const run = new AheadRun<Pending, string>({
      ask: (p) => said.ask.push(p.index),
      isolate: () => {},
      strike: () => {},
      cutOff: () => {},
      post: (message) => said.posts.push(message),
      warn: () => {},
    });
    run.configure({ runId: "r", concurrency: 4 }, ["ev"]);
    const early = pending(0);
    expect(run.claim(early)).toBe(true);
    said.posts.length = 0;
    run.start("child", ["other", "ev"]);
    expect(said.posts).toEqual([]);
    expect(said.ask).toEqual([0]);
    expect(run.claim(pending(1))).toBe(false);
  });
});
