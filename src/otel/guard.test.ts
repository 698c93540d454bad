import { describe, expect, it } from "vitest";
import { ExportTally, guardExporter } from "./guard.js";

type Result = { code: number; error?: Error };

/** An exporter whose answers are scripted: true succeeds, false fails. */
function scripted(answers: boolean[]) {
  const sent: number[][] = [];
  return {
    sent,
    export(items: number[], done: (result: Result) => void) {
      sent.push(items);
      const ok = answers.shift() ?? true;
      done(ok ? { code: 0 } : { code: 1, error: new Error(`refused ${items.join(",")}`) });
    },
    shutdown: () => Promise.resolve(),
  };
}

function exportAll(exporter: { export: (items: number[], done: (r: Result) => void) => void }) {
  return (batches: number[][]) =>
    batches.map((items) => {
      let result: Result | undefined;
      exporter.export(items, (r) => {
        result = r;
      });
      return result?.code;
    });
}

describe("guardExporter", () => {
  it("keeps sending after a failure and counts what was delivered and lost", () => {
    const inner = scripted([false, true, true]);
    const tally = new ExportTally();
    tally.made = 6;
    const failures: unknown[] = [];
    const guarded = guardExporter(inner, tally, (error) => failures.push(error));
    expect(exportAll(guarded)([[1, 2], [3], [4, 5, 6]])).toEqual([1, 0, 0]);
    expect(inner.sent).toEqual([[1, 2], [3], [4, 5, 6]]);
    expect(failures).toEqual([new Error("refused 1,2")]);
    expect(tally).toMatchObject({ delivered: 4, failures: 1, unsent: 0, lost: 2 });
  });

  it("says whether the last export failed, for the queue that waits only on a collector that takes batches", () => {
    const tally = new ExportTally();
    const guarded = guardExporter(scripted([true, false, true]), tally, () => {});
    const states = [[1], [2], [3]].map((batch) => {
      exportAll(guarded)([batch]);
      return tally.failing;
    });
    expect(states).toEqual([false, true, false]);
  });

  it("after failures in a row, drops batches unsent but for one every retryEveryMs", () => {
    let now = 0;
    const inner = scripted([false, false, false, false, true]);
    const tally = new ExportTally();
    tally.made = 8;
    const guarded = guardExporter(inner, tally, () => {}, {
      failuresInARow: 3,
      retryEveryMs: 1000,
      now: () => now,
    });
    const send = exportAll(guarded);
    expect(send([[1], [2], [3]])).toEqual([1, 1, 1]);
    // Down: dropped at once, not sent.
    expect(send([[4]])).toEqual([1]);
    expect(inner.sent).toHaveLength(3);
    now = 1000;
    // Tried again: fails, so down for another second.
    expect(send([[5], [6]])).toEqual([1, 1]);
    expect(inner.sent).toHaveLength(4);
    now = 2000;
    // Back: every batch is sent again.
    expect(send([[7], [8]])).toEqual([0, 0]);
    expect(inner.sent.map(([n]) => n)).toEqual([1, 2, 3, 5, 7, 8]);
    expect(tally).toMatchObject({ delivered: 2, failures: 4, unsent: 2, lost: 6 });
  });

  it("stops at once after an export that failed slowly (retried until its deadline)", () => {
    let now = 0;
    const tally = new ExportTally();
    tally.made = 3;
    const sent: number[][] = [];
    const guarded = guardExporter(
      {
        export(items: number[], done: (result: Result) => void) {
          sent.push(items);
          // The SDK retried for 5 s before it gave up.
          now += 5000;
          done({ code: 1, error: new Error("connect ECONNREFUSED") });
        },
        shutdown: () => Promise.resolve(),
      },
      tally,
      () => {},
      { now: () => now, retryEveryMs: 10_000 },
    );
    expect(exportAll(guarded)([[1], [2], [3]])).toEqual([1, 1, 1]);
    expect(sent).toEqual([[1]]);
    expect(tally).toMatchObject({ failures: 1, unsent: 2, lost: 3 });
  });

  it("counts an exporter that throws as a failed export", () => {
    const tally = new ExportTally();
    tally.made = 1;
    const failures: unknown[] = [];
    const guarded = guardExporter(
      {
        export: () => {
          throw new Error("serialiser broke");
        },
        shutdown: () => Promise.resolve(),
      },
      tally,
      (error) => failures.push(error),
    );
    expect(exportAll(guarded)([[1]])).toEqual([1]);
    expect(failures).toEqual([new Error("serialiser broke")]);
    expect(tally.lost).toBe(1);
  });
});
