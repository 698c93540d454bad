import { afterEach, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../eval/record.js";
import { defineSuite } from "../eval/suite.js";
import { createScorer } from "../scorers/create-scorer.js";
import { restoreGlobals, watchRun } from "./globals.js";
import { runEvals } from "./run.js";

const same = createScorer<string, string>({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

const original = JSON.stringify;
afterEach(() => {
  JSON.stringify = original;
});

/** A promise and what settles it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

/** A wrapper the host installs over JSON.stringify (an APM agent, a polyfill loaded lazily). */
function hostWrapper(): typeof JSON.stringify {
  const wrapped = JSON.stringify;
  return function (this: unknown, ...args: Parameters<typeof JSON.stringify>) {
    return wrapped.apply(JSON, args);
  } as typeof JSON.stringify;
}

const echo = (id: string, target: (input: string) => string | Promise<string> = (x) => x) =>
  defineSuite<string, string>({
    id,
    cases: [
      { id: "a", input: "a", expected: "a" },
      { id: "b", input: "b", expected: "b" },
    ],
    target,
    scorers: [same],
  });

const verdicts = (records: readonly AttemptRecord[]) =>
  records.map((r) => `${r.evalId}/${r.caseId}:${r.verdict}${r.error ? ` ${r.error.message}` : ""}`);

describe("globals the host changes between runs", () => {
  it("are kept: the next run neither puts them back nor errors an attempt for them", async () => {
    const first = await runEvals([{ eval: echo("first") }]);
    expect(first.ok).toBe(true);
    const mine = hostWrapper();
    JSON.stringify = mine;
    const records: AttemptRecord[] = [];
    const second = await runEvals([{ eval: echo("second") }], {
      onRecord: (r) => records.push(r),
    });
    expect(verdicts(records)).toEqual(["second/a:passed", "second/b:passed"]);
    expect(second.totals.errored).toBe(0);
    expect(JSON.stringify).toBe(mine);
  });

  it("are kept when another run waits for its cases with no attempt in flight", async () => {
    const reading = gate();
    const resumed = gate();
    const waiting = defineSuite<string, string>({
      id: "waiting",
      cases: async function* () {
        yield { id: "a", input: "a", expected: "a" };
        reading.open();
        await resumed.wait;
        yield { id: "b", input: "b", expected: "b" };
      },
      target: (x) => x,
      scorers: [same],
    });
    const records: AttemptRecord[] = [];
    const slow = runEvals([{ eval: waiting }], { onRecord: (r) => records.push(r) });
    await reading.wait;
    // Let attempt "a" end: then no attempt is in flight.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const mine = hostWrapper();
    JSON.stringify = mine;
    const other = await runEvals([{ eval: echo("other") }], { onRecord: (r) => records.push(r) });
    resumed.open();
    const first = await slow;
    expect(other.ok).toBe(true);
    expect(first.ok).toBe(true);
    expect(verdicts(records).sort()).toEqual([
      "other/a:passed",
      "other/b:passed",
      "waiting/a:passed",
      "waiting/b:passed",
    ]);
    expect(JSON.stringify).toBe(mine);
  });
  it("are kept after a run whose attempt hung past its time limit (it never ends)", async () => {
    const hangs = echo("hangs", (input) => (input === "a" ? new Promise<string>(() => {}) : input));
    const first = await runEvals([{ eval: hangs }], { caseTimeoutMs: 50 });
    expect(first.totals).toMatchObject({ passed: 1, errored: 1 });
    const mine = hostWrapper();
    JSON.stringify = mine;
    const second = await runEvals([{ eval: echo("next") }]);
    expect(second.ok).toBe(true);
    expect(JSON.stringify).toBe(mine);
  });
});

describe("globals an attempt replaces", () => {
  it("are put back and the attempt errored, even when another run starts while it runs", async () => {
    const replaced = gate();
    const release = gate();
    const records: AttemptRecord[] = [];
    const replacing = defineSuite<string, string>({
      id: "replacing",
      cases: [{ id: "a", input: "a", expected: "a" }],
      target: async (input) => {
        await Promise.resolve();
        JSON.stringify = () => "hijacked";
        replaced.open();
        await release.wait;
        return input;
      },
      scorers: [same],
    });
    const first = runEvals([{ eval: replacing }], { onRecord: (r) => records.push(r) });
    await replaced.wait;
    // This run starts while the replacement is in place: it must not take it for the host's.
    const later = gate();
    const second = runEvals(
      [
        {
          eval: echo("beside", async (input) => {
            await later.wait;
            return input;
          }),
        },
      ],
      { onRecord: (r) => records.push(r) },
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    release.open();
    await first;
    later.open();
    await second;
    // The first attempt to end or to start after the replacement puts it back and is errored
    // for it ("or one running beside it"); nothing is taken for the host's.
    const errored = records.filter((r) => r.verdict === "errored");
    expect(records).toHaveLength(3);
    expect(errored.map((r) => r.error?.message)).toEqual([
      "the code under test replaced JSON.stringify while this attempt ran (or one running beside it); niceeval put the original back so the run goes on. Do not assign to this global; stub it inside the test instead",
    ]);
    expect(JSON.stringify).toBe(original);
  });

  it("are put back after the attempt when the host changed them before the run", async () => {
    const mine = hostWrapper();
    JSON.stringify = mine;
    const records: AttemptRecord[] = [];
    await runEvals(
      [
        {
          eval: echo("after-host", (input) => {
            if (input === "a") JSON.stringify = () => "hijacked";
            return input;
          }),
        },
      ],
      { concurrency: 1, onRecord: (r) => records.push(r) },
    );
    expect(records.map((r) => `${r.caseId}:${r.verdict}`)).toEqual(["a:errored", "b:passed"]);
    // What is put back is the host's wrapper, not what the globals were before the first run.
    expect(JSON.stringify).toBe(mine);
  });
});

describe("each watched global", () => {
  // Owner, key and the name the message gives: every entry of the watched list.
  const entries: [object, PropertyKey, string][] = [
    [globalThis, "Promise", "Promise"],
    [globalThis, "JSON", "JSON"],
    [JSON, "stringify", "JSON.stringify"],
    [JSON, "parse", "JSON.parse"],
    [performance, "now", "performance.now"],
    [Date, "now", "Date.now"],
    [Object.prototype, "then", "Object.prototype.then"],
    [Object.prototype, "toJSON", "Object.prototype.toJSON"],
    [Array.prototype, "toJSON", "Array.prototype.toJSON"],
    [Array.prototype, "then", "Array.prototype.then"],
    [Promise.prototype, "then", "Promise.prototype.then"],
    [Function.prototype, "call", "Function.prototype.call"],
    [Function.prototype, "apply", "Function.prototype.apply"],
    [Array.prototype, "push", "Array.prototype.push"],
    [Array.prototype, Symbol.iterator, "Array.prototype[Symbol.iterator]"],
    [Map.prototype, "get", "Map.prototype.get"],
    [Map.prototype, "set", "Map.prototype.set"],
    [Map.prototype, "has", "Map.prototype.has"],
    [Map.prototype, "delete", "Map.prototype.delete"],
    [Set.prototype, "add", "Set.prototype.add"],
    [Set.prototype, "has", "Set.prototype.has"],
    [process, "nextTick", "process.nextTick"],
    [globalThis, "queueMicrotask", "queueMicrotask"],
    [globalThis, "setTimeout", "setTimeout"],
    [globalThis, "setInterval", "setInterval"],
    [globalThis, "setImmediate", "setImmediate"],
    [globalThis, "Date", "Date"],
    [globalThis, "performance", "performance"],
  ];

  it("is seen replaced by its own name, and put back", () => {
    const release = watchRun();
    try {
      for (const [owner, key, name] of entries) {
        const had = (owner as Record<PropertyKey, unknown>)[key];
        // Assigned as code under test would; a fake-timer library's install does the same.
        Object.defineProperty(owner, key, {
          value: () => "fake",
          configurable: true,
          writable: true,
        });
        const replaced = restoreGlobals();
        expect(replaced, name).toEqual([name]);
        expect((owner as Record<PropertyKey, unknown>)[key], name).toBe(had);
      }
      // The two watched by their getters.
      for (const key of ["aborted", "reason"] as const) {
        const had = Object.getOwnPropertyDescriptor(AbortSignal.prototype, key)!;
        Object.defineProperty(AbortSignal.prototype, key, { get: () => true, configurable: true });
        expect(restoreGlobals()).toEqual([`AbortSignal.prototype.${key}`]);
        expect(Object.getOwnPropertyDescriptor(AbortSignal.prototype, key)?.get).toBe(had.get);
      }
      expect(restoreGlobals()).toBeUndefined();
    } finally {
      release();
    }
  });

  it("includes the built-ins the engine calls, put back even when the one that puts back was replaced", () => {
    const builtIns: [object, string, string][] = [
      [Object, "defineProperty", "Object.defineProperty"],
      [Array.prototype, "map", "Array.prototype.map"],
      [Array.prototype, "slice", "Array.prototype.slice"],
      [Array.prototype, "join", "Array.prototype.join"],
      [Object, "keys", "Object.keys"],
      [String.prototype, "slice", "String.prototype.slice"],
      [Math, "min", "Math.min"],
      [Number, "isFinite", "Number.isFinite"],
      [Array, "isArray", "Array.isArray"],
      [globalThis, "String", "String"],
    ];
    const release = watchRun();
    try {
      for (const [owner, key, name] of builtIns) {
        const had = (owner as Record<string, unknown>)[key];
        // As code under test would: a replacement that throws whenever it is called.
        (owner as Record<string, unknown>)[key] = () => {
          throw new Error("replaced");
        };
        const replaced = restoreGlobals();
        expect(replaced, name).toEqual([name]);
        expect((owner as Record<string, unknown>)[key], name).toBe(had);
      }
      expect(restoreGlobals()).toBeUndefined();
    } finally {
      release();
    }
  });
});
