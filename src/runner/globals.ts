import { processWide } from "../process-wide.js";

/**
 * Globals the engine relies on that code under test may replace (`globalThis.Promise = …`,
 * `JSON.stringify = …`, `Array.prototype.push = …`, a `then` or a `toJSON` on `Object.prototype`).
 * What they should be is read as a run starts (`watchRun`), once its eval files have loaded (so a polyfill an
 * eval file installs on purpose is kept), and read again by each later run that starts while no
 * other run goes on or while no attempt is in flight: a change the host makes between runs (an
 * APM agent wrapping `JSON.stringify`, a polyfill loaded lazily) is the host's and is kept. While
 * attempts run, what they replace is put back after each one, so one attempt cannot break the
 * scoring, the report or the store of every attempt after it, nor hang the eval process that sends
 * them. A run that starts while another's attempts are in flight keeps the reading it finds in place
 * (the globals may then hold what those attempts replaced, which is not the host's). Attempts run outside any run (an eval
 * process, a queue worker) take the reading of their process's first attempt. The list is read
 * after every attempt, by one compiled comparison while nothing changed ({@link unchangedCheck}).
 */
const WATCHED: readonly (readonly [
  owner: () => object,
  name: string,
  key: PropertyKey,
  /**
   * What `owner[key]` is now (the getter, for one watched by it), read by a function of its own:
   * a property load that always sees one object stays fast, where one load for every owner and
   * key is slow enough to show in a run of 100,000 small attempts.
   */
  // biome-ignore lint/suspicious/noExplicitAny: each reads one property of its own owner
  read: (owner: any) => unknown,
  accessor?: "get",
])[] = [
  [() => globalThis, "Promise", "Promise", (o) => o.Promise],
  [() => globalThis, "JSON", "JSON", (o) => o.JSON],
  [() => JSON, "JSON.stringify", "stringify", (o) => o.stringify],
  [() => JSON, "JSON.parse", "parse", (o) => o.parse],
  [() => performance, "performance.now", "now", (o) => o.now],
  [() => Date, "Date.now", "now", (o) => o.now],
  // Every `await` of a plain object would call it.
  [() => Object.prototype, "Object.prototype.then", "then", (o) => o.then],
  // JSON.stringify calls it on every object (array) it writes: records, reports, the store.
  [() => Object.prototype, "Object.prototype.toJSON", "toJSON", (o) => o.toJSON],
  [() => Array.prototype, "Array.prototype.toJSON", "toJSON", (o) => o.toJSON],
  // Every `await` of an array would call it.
  [() => Array.prototype, "Array.prototype.then", "then", (o) => o.then],
  [() => Promise.prototype, "Promise.prototype.then", "then", (o) => o.then],
  [() => Function.prototype, "Function.prototype.call", "call", (o) => o.call],
  [() => Function.prototype, "Function.prototype.apply", "apply", (o) => o.apply],
  [() => Array.prototype, "Array.prototype.push", "push", (o) => o.push],
  [
    () => Array.prototype,
    "Array.prototype[Symbol.iterator]",
    Symbol.iterator,
    (o) => o[Symbol.iterator],
  ],
  [() => Map.prototype, "Map.prototype.get", "get", (o) => o.get],
  [() => Map.prototype, "Map.prototype.set", "set", (o) => o.set],
  [() => Map.prototype, "Map.prototype.has", "has", (o) => o.has],
  [() => Map.prototype, "Map.prototype.delete", "delete", (o) => o.delete],
  [() => Set.prototype, "Set.prototype.add", "add", (o) => o.add],
  [() => Set.prototype, "Set.prototype.has", "has", (o) => o.has],
  // Node's streams and its IPC channel queue their callbacks with it: a fake one that never runs
  // them (a fake-timer library's default install) leaves the eval process deaf to its supervisor.
  [() => process, "process.nextTick", "nextTick", (o) => o.nextTick],
  [() => globalThis, "queueMicrotask", "queueMicrotask", (o) => o.queueMicrotask],
  // niceeval's own timing does not use these (clock.ts), but fakes left installed by one attempt
  // would stop the timers and freeze the clock of every attempt after it.
  [() => globalThis, "setTimeout", "setTimeout", (o) => o.setTimeout],
  [() => globalThis, "setInterval", "setInterval", (o) => o.setInterval],
  [() => globalThis, "setImmediate", "setImmediate", (o) => o.setImmediate],
  [() => globalThis, "Date", "Date", (o) => o.Date],
  [() => globalThis, "performance", "performance", (o) => o.performance],
  // Judges call the run's (judge/host-fetch.ts); one a target's mock took the place of would
  // answer their calls, and the calls of every attempt after it, with the mock's text.
  [() => globalThis, "fetch", "fetch", (o) => o.fetch],
  // Watched by their getters (read on the prototype, they throw): the target's signal, and the
  // user code that asks it, would see what an earlier attempt put there (the engine reads its own
  // signals with the originals, signal-state.ts).
  [
    () => AbortSignal.prototype,
    "AbortSignal.prototype.aborted",
    "aborted",
    (o) => describe(o, "aborted")?.get,
    "get",
  ],
  [
    () => AbortSignal.prototype,
    "AbortSignal.prototype.reason",
    "reason",
    (o) => describe(o, "reason")?.get,
    "get",
  ],
];

/**
 * Built-ins niceeval's own code calls throughout (building records, writing reports and the
 * store, the eval process's messages): replaced by an attempt, each would break the attempts,
 * the reports or the eval process after it (a thrown `Array.prototype.slice` left the eval
 * process waiting forever), so they are watched too, by {@link unchangedCheck} at the cost of one
 * comparison each.
 */
const BUILT_INS: readonly (readonly [name: string, owner: () => object, keys: string[]])[] = [
  [
    "Array.prototype",
    () => Array.prototype,
    "map filter slice join forEach some every find findIndex indexOf includes concat splice reduce sort pop shift unshift keys entries values flat flatMap at reverse fill".split(
      " ",
    ),
  ],
  [
    "Object",
    () => Object,
    "keys entries values assign freeze defineProperty getOwnPropertyDescriptor hasOwn fromEntries create getPrototypeOf is".split(
      " ",
    ),
  ],
  [
    "String.prototype",
    () => String.prototype,
    "slice replace replaceAll split trim startsWith endsWith includes indexOf padStart padEnd toLowerCase toUpperCase match repeat charCodeAt".split(
      " ",
    ),
  ],
  ["Number", () => Number, ["isFinite", "isInteger", "isNaN", "isSafeInteger"]],
  ["Math", () => Math, ["min", "max", "round", "floor", "ceil", "abs", "sqrt", "log"]],
  ["Array", () => Array, ["isArray", "from"]],
  [
    "globalThis",
    () => globalThis,
    "String Number Boolean Object Array Symbol Error TypeError Map Set WeakMap Reflect Math".split(
      " ",
    ),
  ],
];

/** {@link WATCHED} and {@link BUILT_INS} together, as the watch list reads them. */
const ALL_WATCHED: typeof WATCHED = [
  ...WATCHED,
  ...BUILT_INS.flatMap(([owner, read, keys]) =>
    keys.map(
      (key) =>
        [
          read,
          owner === "globalThis" ? key : `${owner}.${key}`,
          key,
          // biome-ignore lint/suspicious/noExplicitAny: reads one property of its owner
          (o: any) => o[key],
        ] as const,
    ),
  ),
];

interface Watched {
  name: string;
  /** Checked only as an attempt ends (see {@link AT_END}). */
  atEnd: boolean;
  owner: object;
  key: PropertyKey;
  read: (owner: object) => unknown;
  original: unknown;
  /** The owner had the property itself (else it is deleted again, as `then` must be). */
  own: boolean;
  /** Watched by its getter: `original` is the getter, `descriptor` the property to put back. */
  descriptor?: PropertyDescriptor | undefined;
}

// Taken as this module loads: code under test may replace them too.
const describe = Object.getOwnPropertyDescriptor;
const hasOwn = Object.hasOwn;
const defineProperty = Object.defineProperty;
const deleteProperty = Reflect.deleteProperty;

/** Process-wide, as two copies of niceeval in one process share its globals. */
const state = processWide("runner.globals", () => ({
  /** What the watched globals should be: undefined until a run or an attempt first reads them. */
  expected: undefined as Watched[] | undefined,
  /**
   * Whether every global of `list` is still as read (see {@link unchangedCheck}): used only while
   * `list` is `expected` (another copy of niceeval in the process may read the globals again).
   */
  fast: undefined as { list: Watched[]; unchanged: () => boolean } | undefined,
  /** Attempts begun (`watchAttempt`) and not ended (`endAttempt`), in every run of the process. */
  inFlight: 0,
  /** Runs in progress (`watchRun` and not yet released). */
  runs: 0,
  /**
   * The globals of {@link AT_END} that an attempt in flight replaced in its synchronous
   * part: it checks them as it ends, other attempts leave them.
   */
  held: new Set<string>(),
}));

/** The watched globals as they are now. */
function readGlobals(): Watched[] {
  return ALL_WATCHED.map(([owner, name, key, read, accessor]) => {
    const object = owner();
    return {
      name,
      atEnd: AT_END.has(name),
      owner: object,
      key,
      read,
      original: read(object),
      own: hasOwn(object, key),
      descriptor: accessor ? describe(object, key) : undefined,
    };
  });
}

/**
 * A run starts: the globals are read again unless another run's attempts are in flight (what
 * they replaced is not the host's), and `onRead` called when they are. Returns what to call once
 * its attempts are done.
 */
export function watchRun(onRead?: () => void): () => void {
  if (state.runs === 0 || state.inFlight === 0) {
    state.expected = readGlobals();
    state.fast = { list: state.expected, unchanged: unchangedCheck(state.expected) };
    // Read again: what an attempt still in flight held is compared with what it is now.
    state.held.clear();
    onRead?.();
  }
  state.runs++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    state.runs--;
  };
}

/**
 * An attempt starts in this process (outside any run, the first one reads the globals, and calls
 * `onRead`).
 */
export function watchAttempt(onRead?: () => void): void {
  if (state.expected === undefined) {
    state.expected = readGlobals();
    state.fast = { list: state.expected, unchanged: unchangedCheck(state.expected) };
    onRead?.();
  }
  state.inFlight++;
}

/**
 * An attempt begun with {@link watchAttempt} ended: what it (or one beside it) replaced is put
 * back, as {@link restoreGlobals}. An attempt that never ends (it hangs past its time limit) stays
 * in flight: the next run to start while no other goes on reads the globals again all the same.
 */
export function endAttempt(held?: readonly string[]): string[] | undefined {
  if (state.inFlight > 0) state.inFlight--;
  for (const name of held ?? []) state.held.delete(name);
  return restoreGlobals();
}

/**
 * An attempt's synchronous part returned, and it goes on: the globals of {@link AT_END}
 * it replaced are its own until it ends (`await clock.tickAsync(…)` before `clock.uninstall()`),
 * so they are left in place, and another attempt that ends meanwhile neither puts them back nor
 * is errored for them. Returns their names, for {@link endAttempt}.
 */
export function holdGlobals(): string[] | undefined {
  let held: string[] | undefined;
  const list = state.expected ?? [];
  for (let i = 0; i < list.length; i++) {
    const global = list[i]!;
    // Already held: another attempt in flight replaced it before this one started.
    if (!global.atEnd || state.held.has(global.name) || !replacedNow(global)) continue;
    held ??= [];
    held[held.length] = global.name;
    state.held.add(global.name);
  }
  return held;
}

/**
 * The names of the watched globals that differ from what they were, each put back; undefined when
 * none was touched (the common case: a handful of comparisons). Left alone: the globals
 * ({@link AT_END}) an attempt in flight holds ({@link holdGlobals}), and all of them when `ended`
 * is false (an attempt's synchronous part returned: see holdGlobals).
 */
export function restoreGlobals(ended = true): string[] | undefined {
  // The common case: nothing was touched, told by one call.
  const fast = state.fast;
  if (fast && fast.list === state.expected && fast.unchanged()) return undefined;
  let replaced: string[] | undefined;
  const list = state.expected ?? [];
  const held = state.held;
  // Indexed: a replaced Array.prototype[Symbol.iterator] would make for…of see nothing.
  for (let i = 0; i < list.length; i++) {
    const global = list[i]!;
    if (global.atEnd && (!ended || (held.size > 0 && held.has(global.name)))) continue;
    if (!replacedNow(global)) continue;
    replaced ??= [];
    replaced[replaced.length] = global.name;
    putBack(global);
  }
  return replaced;
}

/**
 * One function that tells whether every global of `list` is as it was read: each comparison
 * written out, so each property load sees one object and stays fast (a loop calling each
 * global's reader costs about five times as much, at a hundred globals read twice per attempt).
 * A global read by its getter, or by a key no name spells, is compared through its reader.
 */
function unchangedCheck(list: readonly Watched[]): () => boolean {
  const owners = list.map((global) => global.owner);
  const originals = list.map((global) => global.original);
  const readers = list.map((global) => global.read);
  const tests = list.map((global, i) =>
    !global.descriptor && typeof global.key === "string" && /^[A-Za-z_$][\w$]*$/.test(global.key)
      ? `o[${i}].${global.key} === v[${i}]`
      : `r[${i}](o[${i}]) === v[${i}]`,
  );
  let compiled: (
    o: readonly object[],
    v: readonly unknown[],
    r: readonly ((owner: object) => unknown)[],
  ) => boolean;
  try {
    // The comparisons are written from the list above: no outside text reaches this function.
    compiled = new Function("o", "v", "r", `return ${tests.join(" && ")};`) as typeof compiled;
  } catch {
    // A process that compiles no code from strings (--disallow-code-generation-from-strings):
    // each global through its reader.
    compiled = (o, v, r) => {
      for (let i = 0; i < o.length; i++) if (r[i]!(o[i]!) !== v[i]) return false;
      return true;
    };
  }
  return () => {
    try {
      return compiled(owners, originals, readers);
    } catch {
      return false; // a getter that throws is a replacement: the loop finds it
    }
  };
}

function replacedNow(global: Watched): boolean {
  try {
    return global.read(global.owner) !== global.original;
  } catch {
    return true; // a getter that throws is a replacement too
  }
}

function putBack(global: Watched): void {
  try {
    if (!global.own) {
      deleteProperty(global.owner, global.key);
      return;
    }
    if (global.descriptor) {
      defineProperty(global.owner, global.key, global.descriptor);
      return;
    }
    defineProperty(global.owner, global.key, {
      value: global.original,
      writable: true,
      configurable: true,
      enumerable: false,
    });
  } catch {
    // Made non-configurable by the code under test: the attempt is errored all the same.
  }
}

/**
 * What the watched global `name` was as the run (or the process's first attempt) read it;
 * undefined before any did. Code under test cannot change it: what niceeval itself must call
 * through a global it may replace (a judge's `fetch`) is taken from here.
 */
export function runReading(name: string): unknown {
  const list = state.expected;
  if (list === undefined) return undefined;
  for (let i = 0; i < list.length; i++) if (list[i]!.name === name) return list[i]!.original;
  return undefined;
}

/**
 * Whether a run is in progress in this process, or an attempt runs outside any (an eval process,
 * a queue worker): what the run found as it started ({@link runReading}) is then what niceeval
 * itself relies on, not what code under test changed since.
 */
export function runInProgress(): boolean {
  return state.runs > 0 || state.inFlight > 0;
}

/** Why an attempt is errored when globals were replaced while it ran. */
export function replacedGlobalsMessage(names: readonly string[]): string {
  const list = names.join(", ");
  const advice = names.some((name) => TIMER_GLOBALS.has(name))
    ? "Fake timers must be uninstalled before the attempt ends (`clock.uninstall()`, `vi.useRealTimers()`, in a `finally`)"
    : names.includes("fetch")
      ? "Put fetch back before the attempt ends (in a `finally`), or give the client under test a fetch of its own; niceeval's judges call the fetch the run started with"
      : `Do not assign to ${names.length > 1 ? "these globals" : "this global"}; stub it inside the test instead`;
  return `the code under test replaced ${list} while this attempt ran (or one running beside it); niceeval put the original${names.length > 1 ? "s" : ""} back so the run goes on. ${advice}`;
}

/**
 * What an attempt may replace while it waits if it puts it back before it ends, so it is checked
 * only then: the clock and timers, which niceeval times with through clock.ts (`await
 * clock.tickAsync(…)` before `clock.uninstall()`), and `fetch`, which judges do not call
 * (judge/host-fetch.ts) and a target mocks its model through across its awaits. Not
 * process.nextTick nor queueMicrotask: Node's streams and an eval process's channel to its
 * supervisor wait on them while the attempt does.
 */
const AT_END = new Set([
  "performance.now",
  "Date.now",
  "setTimeout",
  "setInterval",
  "setImmediate",
  "Date",
  "performance",
  "fetch",
]);

/** What a fake-timer library replaces when it is installed. */
const TIMER_GLOBALS = new Set([
  "process.nextTick",
  "queueMicrotask",
  "setTimeout",
  "setInterval",
  "setImmediate",
  "Date",
  "performance",
]);
