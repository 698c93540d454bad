import { describe, expect, it } from "vitest";
import { queueErrors } from "./worker.js";

const refused = () =>
  Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6379"), { code: "ECONNREFUSED" });

describe("queueErrors", () => {
  it("says a lost Redis once, then at most every 30 s, and a new outage again", () => {
    const lines: string[] = [];
    let clock = 0;
    const onError = queueErrors(
      (line) => lines.push(line),
      () => clock,
    );
    for (; clock < 15_000; clock += 1_500) onError(refused());
    expect(lines).toEqual([
      "lost the connection to Redis (connect ECONNREFUSED 127.0.0.1:6379); retrying until it answers",
    ]);
    for (; clock <= 31_500; clock += 1_500) onError(refused());
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      /^Redis still does not answer after 30 s \(20 failed attempts to reach it;/,
    );
    // An hour later: a new outage, said as one.
    clock += 3_600_000;
    onError(refused());
    expect(lines.at(-1)).toMatch(/^lost the connection to Redis/);
  });

  it("says what a missing lock means for the job, and passes other errors on", () => {
    const lines: string[] = [];
    const onError = queueErrors((line) => lines.push(line));
    onError(new Error("Missing lock for job df513d70-1/basic/c96/0. moveToFinished"));
    onError(new Error("something else"));
    expect(lines).toEqual([
      "the result of job df513d70-1/basic/c96/0 could not be saved: Redis no longer holds its lock (restarted, flushed, or the job ran past --lock-duration without renewing it); the attempt runs again",
      "queue error: something else",
    ]);
  });

  it("says a job's lost lock once, though BullMQ reports it twice", () => {
    const lines: string[] = [];
    const onError = queueErrors((line) => lines.push(line));
    for (const id of ["r1/q/c0/0", "r1/q/c1/0", "r1/q/c0/0", "r1/q/c1/0"])
      onError(new Error(`Missing lock for job ${id}. moveToFinished`));
    expect(lines).toEqual([
      "the result of job r1/q/c0/0 could not be saved: Redis no longer holds its lock (restarted, flushed, or the job ran past --lock-duration without renewing it); the attempt runs again",
      "the result of job r1/q/c1/0 could not be saved: Redis no longer holds its lock (restarted, flushed, or the job ran past --lock-duration without renewing it); the attempt runs again",
    ]);
  });

  it("says a lock BullMQ could not renew (a Redis paused or slow) in words, once per job", () => {
    const lines: string[] = [];
    const onError = queueErrors((line) => lines.push(line));
    for (let i = 0; i < 3; i++) onError(new Error("could not renew lock for job b9bafb6d/qa/c2/0"));
    expect(lines).toEqual([
      "the lock of job b9bafb6d/qa/c2/0 could not be renewed: Redis did not answer in time (paused, overloaded or away); the attempt goes on here, and if Redis stays away past --lock-duration another worker may run it again",
    ]);
  });

  it("says a result taken by another worker, or whose job Redis lost, as unsaved, once", () => {
    const lines: string[] = [];
    const onError = queueErrors((line) => lines.push(line));
    for (let i = 0; i < 2; i++) {
      onError(new Error("Lock mismatch for job r1/q/c0/0. Cmd moveToFinished from active"));
      onError(new Error("Missing key for job r1/q/c1/0. moveToFinished"));
    }
    expect(lines).toEqual([
      "the result of job r1/q/c0/0 could not be saved: another worker holds it now (its lock expired while Redis was away or past --lock-duration); the attempt runs there",
      "the result of job r1/q/c1/0 could not be saved: Redis no longer has the job (restarted without its data, flushed or evicted); the run enqueues it again",
    ]);
  });

  it("takes BullMQ's ConnectionClosedError (Connection is closed) for the lost Redis it is", () => {
    const lines: string[] = [];
    const onError = queueErrors((line) => lines.push(line));
    onError(Object.assign(new Error("Connection is closed"), { name: "ConnectionClosedError" }));
    onError(refused());
    expect(lines).toEqual([
      "lost the connection to Redis (Connection is closed); retrying until it answers",
    ]);
    const named: string[] = [];
    queueErrors(
      (line) => named.push(line),
      Date.now,
      "Redis at redis://:***@q.internal:6379",
    )(refused());
    expect(named).toEqual([
      "lost the connection to Redis at redis://:***@q.internal:6379 (connect ECONNREFUSED 127.0.0.1:6379); retrying until it answers",
    ]);
  });

  it("says a repeated queue error once, then at most every 30 s with how often it came", () => {
    const lines: string[] = [];
    let clock = 0;
    const onError = queueErrors(
      (line) => lines.push(line),
      () => clock,
    );
    const readonly = () => new Error("READONLY You can't write against a read only replica.");
    for (; clock < 29_000; clock += 100) onError(readonly());
    onError(new Error("something else"));
    clock += 100;
    for (let i = 0; i < 3; i++) onError(readonly());
    clock += 31_000;
    onError(readonly());
    onError(readonly());
    expect(lines).toEqual([
      "queue error: READONLY You can't write against a read only replica.",
      "queue error: something else",
      "queue error: READONLY You can't write against a read only replica. (292 more times in the last 60 s)",
    ]);
  });
});
