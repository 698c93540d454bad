import { describe, expect, it } from "vitest";
import { ExportQueue } from "./queue.js";

type Result = { code: number };

/** An exporter that answers each batch when told to. */
function held() {
  const answers: ((result: Result) => void)[] = [];
  return {
    answers,
    export(_items: number[], done: (result: Result) => void) {
      answers.push(done);
    },
    shutdown: () => Promise.resolve(),
  };
}

const settled = (wait: Promise<void> | undefined) =>
  wait === undefined
    ? Promise.resolve("no wait")
    : Promise.race([wait.then(() => "ended"), new Promise((r) => setTimeout(r, 20, "waiting"))]);

describe("ExportQueue", () => {
  it("has room until `limit` wait, then one wait for everyone until the next batch is taken", async () => {
    const queue = new ExportQueue(3, () => false);
    const exporter = queue.counting(held());
    for (let i = 0; i < 2; i++) expect(queue.admit()).toBe(true);
    expect(queue.room()).toBeUndefined();
    // Past the limit, still admitted: the collector takes what it is sent, the run waits instead.
    for (let i = 0; i < 3; i++) expect(queue.admit()).toBe(true);
    const wait = queue.room();
    expect(wait).toBeDefined();
    expect(queue.room()).toBe(wait);
    expect(await settled(wait)).toBe("waiting");
    exporter.export([1], () => {});
    expect(queue.waiting).toBe(4);
    expect(await settled(wait)).toBe("waiting");
    exporter.export([2, 3], () => {});
    expect(queue.waiting).toBe(2);
    expect(await settled(wait)).toBe("ended");
    expect(queue.room()).toBeUndefined();
  });

  it("never waits while the exports fail: it drops what does not fit instead", async () => {
    let failing = false;
    const queue = new ExportQueue(2, () => failing);
    const inner = held();
    const exporter = queue.counting(inner);
    for (let i = 0; i < 3; i++) queue.admit();
    const wait = queue.room();
    exporter.export([1], () => {});
    expect(await settled(wait)).toBe("waiting");
    // The export fails (the guard says so before the processor hears of it): the wait ends.
    failing = true;
    inner.answers[0]!({ code: 1 });
    expect(await settled(wait)).toBe("ended");
    expect(queue.room()).toBeUndefined();
    expect(queue.admit()).toBe(false);
    expect(queue.waiting).toBe(2);
    // Once an export goes through, the run waits for it again rather than drop.
    failing = false;
    expect(queue.admit()).toBe(true);
    expect(queue.room()).toBeDefined();
  });
});
