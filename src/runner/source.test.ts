import { describe, expect, it } from "vitest";
import type { CaseSpec, Runnable } from "../eval/runnable.js";
import type { RunEntry } from "./entry.js";
import { evalCases, type SourceItem, type SourceIterator } from "./source.js";

/** An entry whose cases() is the given iterable (sync or async). */
const entryOf = (
  id: string,
  cases: () => Iterable<CaseSpec> | AsyncIterable<CaseSpec>,
): RunEntry => ({
  eval: { id, style: "suite", cases } as unknown as Runnable,
});
const specs = (n: number, prefix = "c") =>
  Array.from({ length: n }, (_, index) => ({ id: `${prefix}${index}`, index }));

async function* slowly(list: CaseSpec[]) {
  for (const spec of list) {
    await new Promise((r) => setTimeout(r, 1));
    yield spec;
  }
}

const describeItem = (item: SourceItem) =>
  item.type === "case"
    ? `${item.entry}:${item.spec.id}:${item.trial}${item.record ? "!" : ""}`
    : `${item.type}:${item.entry}`;

function open(entries: RunEntry[], options = {}, signal = new AbortController().signal) {
  return evalCases(options)(entries, signal)[Symbol.asyncIterator]() as SourceIterator;
}

describe("evalCases", () => {
  it("says which evals' cases were all read: not those a stop cut short or never began", async () => {
    const stop = new AbortController();
    const read: number[] = [];
    const source = open(
      [
        entryOf("a", () => specs(2, "a")),
        entryOf("b", () => slowly(specs(3, "b"))),
        entryOf("c", () => specs(1, "c")),
        entryOf("d", () => {
          throw new Error("no dataset");
        }),
      ],
      { onCasesRead: (entry: number) => read.push(entry) },
      stop.signal,
    );
    const seen: string[] = [];
    for (let next = await source.next(); !next.done; next = await source.next()) {
      seen.push(describeItem(next.value));
      if (describeItem(next.value) === "1:b0:0") stop.abort();
    }
    expect(seen).toContain("eval-end:3");
    expect(read).toEqual([0]);
    // Unstopped, every eval's read ends, a dataset that throws included.
    const whole: number[] = [];
    const all = open(
      [
        entryOf("a", () => specs(2, "a")),
        entryOf("b", () => slowly(specs(3, "b"))),
        entryOf("d", () => {
          throw new Error("no dataset");
        }),
      ],
      { onCasesRead: (entry: number) => whole.push(entry) },
    );
    while (!(await all.next()).done);
    expect(whole).toEqual([0, 1, 2]);
  });

  it("gives a synchronous dataset's items at once, without a promise", () => {
    const source = open([entryOf("a", () => specs(3))], { trials: 2 });
    const seen: string[] = [];
    for (;;) {
      const next = source.nextNow?.();
      expect(next).toBeDefined();
      if (next!.done) break;
      seen.push(describeItem(next!.value));
    }
    expect(seen).toEqual([
      "eval-start:0",
      "0:c0:0",
      "0:c0:1",
      "0:c1:0",
      "0:c1:1",
      "0:c2:0",
      "0:c2:1",
      "eval-end:0",
    ]);
  });

  it("waits for an asynchronous dataset and answers concurrent calls in order", async () => {
    const source = open([
      entryOf("a", () => specs(2, "a")),
      entryOf("b", () => slowly(specs(3, "b"))),
      entryOf("c", () => specs(1, "c")),
    ]);
    const first = [source.nextNow?.(), source.nextNow?.(), source.nextNow?.(), source.nextNow?.()];
    // eval-start a, a0, a1, eval-end a; then eval-start b, and b's first case must be waited for.
    expect(first.map((r) => r && !r.done && describeItem(r.value))).toEqual([
      "eval-start:0",
      "0:a0:0",
      "0:a1:0",
      "eval-end:0",
    ]);
    const rest = await Promise.all(Array.from({ length: 9 }, () => source.next()));
    // While a call waits, nothing is answered out of turn.
    expect(rest.map((r) => (r.done ? "done" : describeItem(r.value)))).toEqual([
      "eval-start:1",
      "1:b0:0",
      "1:b1:0",
      "1:b2:0",
      "eval-end:1",
      "eval-start:2",
      "2:c0:0",
      "eval-end:2",
      "done",
    ]);
  });

  it("makes a dataset that throws one errored case, and goes on with the next eval", async () => {
    async function* broken() {
      yield { id: "x0", index: 0 };
      throw new Error("disk gone");
    }
    const source = open([entryOf("a", broken), entryOf("b", () => specs(1, "b"))]);
    const seen: string[] = [];
    for (;;) {
      const next = await source.next();
      if (next.done) break;
      seen.push(describeItem(next.value));
      if (next.value.type === "case" && next.value.record)
        expect(next.value.record.error?.message).toMatch(
          /reading the cases of eval "a" failed: disk gone/,
        );
    }
    expect(seen).toEqual([
      "eval-start:0",
      "0:x0:0",
      "0:(cases):0!",
      "eval-end:0",
      "eval-start:1",
      "1:b0:0",
      "eval-end:1",
    ]);
  });

  it("marks a repeated case id, selects, and stops reading after an abort", async () => {
    const abort = new AbortController();
    const source = open(
      [entryOf("a", () => [...specs(4), { id: "c1", index: 4 }]), entryOf("b", () => specs(2))],
      { select: [(_e: string, caseId: string) => caseId !== "c2"] },
      abort.signal,
    );
    const seen: string[] = [];
    for (;;) {
      const next = await source.next();
      if (next.done) break;
      seen.push(describeItem(next.value));
      if (seen.length === 6) abort.abort();
    }
    expect(seen).toEqual([
      "eval-start:0",
      "0:c0:0",
      "0:c1:0",
      "0:c3:0",
      "0:c1 (duplicate 2):0!",
      "eval-end:0",
      "eval-start:1",
      "eval-end:1",
    ]);
  });

  describe("a dataset whose next case never comes", () => {
    async function* stalls() {
      yield { id: "first", index: 0 };
      await new Promise(() => {});
    }
    const drain = async (source: SourceIterator) => {
      const seen: SourceItem[] = [];
      for (let next = await source.next(); !next.done; next = await source.next())
        seen.push(next.value);
      return seen;
    };

    it("is an errored (cases) attempt after caseWaitMs, and the next eval still runs", async () => {
      const source = open([entryOf("stalls", stalls), entryOf("after", () => specs(1))], {
        caseWaitMs: 50,
      });
      const seen = await drain(source);
      expect(seen.map(describeItem)).toEqual([
        "eval-start:0",
        "0:first:0",
        "0:(cases):0!",
        "eval-end:0",
        "eval-start:1",
        "1:c0:0",
        "eval-end:1",
      ]);
      const errored = seen[2] as Extract<SourceItem, { type: "case" }>;
      expect(errored.record?.error?.message).toBe(
        'reading the cases of eval "stalls" failed: its next case did not come within 50 ms; make the dataset faster, or raise the limit (--hang-timeout)',
      );
    });

    it("stops being waited for when the run is aborted", async () => {
      const controller = new AbortController();
      const source = open(
        [entryOf("stalls", stalls), entryOf("after", () => specs(1))],
        {},
        controller.signal,
      );
      setTimeout(() => controller.abort(new Error("stop")), 30);
      const seen = await drain(source);
      // Every eval still starts and ends, and nothing is read after the abort.
      expect(seen.map(describeItem)).toEqual([
        "eval-start:0",
        "0:first:0",
        "eval-end:0",
        "eval-start:1",
        "eval-end:1",
      ]);
    });
  });
});
