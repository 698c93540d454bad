import { JUDGE_VARIABLES } from "../judge/environment.js";
import { processWide } from "../process-wide.js";

// What a Vitest face's case leaves replaced once its test has ended, its afterEach hooks
// included: put back before the next case of a face runs, and named. A `niceeval run` errors the
// attempt that did it (runner/globals.ts); here that test has already passed or failed when it can
// be told, since Vitest's own `unstubGlobals`, `unstubEnvs` and `restoreMocks` act only as the
// next test starts. So what counts is what is still in place then, not what a hook or Vitest took
// back, and what the next test's beforeEach installs (its fake timers) is new, so never taken for it.

/** A global the faces watch, and the kind of replacement it is (for the advice). */
type Slot = readonly [owner: () => object, name: string, key: PropertyKey, kind: Kind];
type Kind = "fetch" | "timers";

const SLOTS: readonly Slot[] = [
  [() => globalThis, "fetch", "fetch", "fetch"],
  // Put back together, as a fake-timer library replaces them: a real setTimeout beside a fake
  // clearTimeout would not stop its timers.
  ...(
    [
      "setTimeout",
      "clearTimeout",
      "setInterval",
      "clearInterval",
      "setImmediate",
      "clearImmediate",
      "queueMicrotask",
      "Date",
      "performance",
    ] as const
  ).map((name): Slot => [() => globalThis, name, name, "timers"]),
  [() => process, "process.nextTick", "nextTick", "timers"],
  [() => process, "process.hrtime", "hrtime", "timers"],
];

/** The watched globals and judge variables at one moment, in the order of SLOTS and JUDGE_VARIABLES. */
export interface FaceReading {
  globals: unknown[];
  env: (string | undefined)[];
}

/** What one case left in place as its test ended: each entry's index, the value it left. */
interface Suspect {
  /** The case, as messages name it: `evaluate "capitals", item "France"`. */
  who: string;
  globals: { index: number; left: unknown }[];
  env: { index: number; left: string | undefined }[];
  /** As its face registered its tests: what is put back. */
  host: FaceReading;
}

const state = processWide("vitest.leaks", () => ({ suspects: [] as Suspect[] }));

// Taken as this module loads: a test that silences console.warn (vi.spyOn(...).mockImplementation)
// would swallow the word on what an earlier case left.
const warn = console.warn.bind(console);

/** The watched globals and judge variables as they are now. */
export function readFace(): FaceReading {
  return {
    globals: SLOTS.map(([owner, , key]) => read(owner(), key)),
    env: JUDGE_VARIABLES.map((name) => process.env[name]),
  };
}

function read(owner: object, key: PropertyKey): unknown {
  try {
    return (owner as Record<PropertyKey, unknown>)[key];
  } catch {
    return undefined;
  }
}

/**
 * Which of process.nextTick and queueMicrotask differ now from `host`: faked (Vitest's
 * `toFake: ["nextTick", "queueMicrotask"]`), Node's streams, and so its fetch, wait on them.
 */
export function fakedTicks(host: FaceReading): string[] {
  const now = readFace();
  return SLOTS.flatMap(([, name], index) =>
    (name === "process.nextTick" || name === "queueMicrotask") &&
    now.globals[index] !== host.globals[index]
      ? [name]
      : [],
  );
}

/**
 * The watched globals as this module loaded, before the test file's code ran: Node's own. A case
 * that leaves one of them (`vi.useRealTimers()` in a file faked from its top level) leaves no
 * leak, and putting back what it took down (the fakes of a clock gone) would stop every timer.
 */
const pristine = readFace().globals;

/** A face's case in its test: what it leaves is told as its test ends. */
export interface CaseWatch {
  /** Its test ended (after its afterEach hooks): note what it left in place. */
  ended(): void;
}

/**
 * A face's case `who` starts in its test (after its beforeEach hooks): what an earlier case left
 * in place and is still there is put back as `host` had it and said on the console; then this
 * case is watched from here. `host` is what its face read as it registered its tests
 * ({@link readFace}): a case that leaves a global as the host had it, or as Node has it, left
 * nothing.
 */
export function watchCase(who: string, host: FaceReading): CaseWatch {
  putBackLeaks(who);
  const before = readFace();
  return {
    ended() {
      const now = readFace();
      const changed = <T>(values: readonly T[], was: readonly T[], ...kept: (readonly T[])[]) =>
        values.flatMap((left, index) =>
          left !== was[index] && kept.every((values) => left !== values[index])
            ? [{ index, left }]
            : [],
        );
      const globals = changed(now.globals, before.globals, host.globals, pristine);
      const env = changed(now.env, before.env, host.env);
      if (globals.length > 0 || env.length > 0) state.suspects.push({ who, globals, env, host });
    },
  };
}

/** Put back what earlier cases left and is still in place as `who` starts, saying so. */
function putBackLeaks(who: string): void {
  const suspects = state.suspects;
  if (suspects.length === 0) return;
  state.suspects = [];
  for (const suspect of suspects) {
    const globals = suspect.globals.filter(({ index, left }) => {
      const [owner, , key] = SLOTS[index]!;
      return read(owner(), key) === left;
    });
    // A fake clock is uninstalled its own way first, so that its library (Vitest's
    // vi.useFakeTimers) finds nothing left to uninstall later, rather than deleting the globals.
    for (const { left } of globals) uninstallClock(left);
    for (const { index, left } of globals) {
      const [owner, , key] = SLOTS[index]!;
      if (read(owner(), key) === left) putBack(owner(), key, suspect.host.globals[index]);
    }
    const env = suspect.env.filter(({ index, left }) => {
      const name = JUDGE_VARIABLES[index]!;
      if (process.env[name] !== left) return false;
      const was = suspect.host.env[index];
      if (was === undefined) delete process.env[name];
      else process.env[name] = was;
      return true;
    });
    if (globals.length > 0 || env.length > 0) {
      warn(
        leakMessage(
          suspect.who,
          who,
          globals.map(({ index }) => SLOTS[index]!),
          env.map(({ index, left }) => ({
            name: JUDGE_VARIABLES[index]!,
            removed: left === undefined,
          })),
        ),
      );
    }
  }
}

/**
 * Uninstall the clock of a global replaced by @sinonjs/fake-timers (Vitest's and Jest's fake
 * timers), which marks each with it: it puts back all it replaced, `node:timers` included, and
 * does nothing when uninstalled again.
 */
function uninstallClock(faked: unknown): void {
  try {
    const clock = (faked as { clock?: { uninstall?: unknown } } | null)?.clock;
    if (typeof clock?.uninstall === "function") clock.uninstall();
  } catch {
    // What it left in place is put back one by one.
  }
}

function putBack(owner: object, key: PropertyKey, value: unknown): void {
  try {
    Object.defineProperty(owner, key, { value, writable: true, configurable: true });
  } catch {
    // Made non-configurable by the code under test: said all the same.
  }
}

/** What the console says of the globals and variables `culprit` left, put back before `next`. */
export function leakMessage(
  culprit: string,
  next: string,
  globals: readonly Slot[],
  env: readonly { name: string; removed: boolean }[],
): string {
  const what: string[] = [];
  if (globals.length > 0) what.push(`${globals.map(([, name]) => name).join(", ")} replaced`);
  for (const removed of [false, true]) {
    const names = env.filter((variable) => variable.removed === removed);
    if (names.length > 0)
      what.push(
        `${names.map(({ name }) => `process.env.${name}`).join(", ")} ${removed ? "removed" : "set"}`,
      );
  }
  const advice: string[] = [];
  if (globals.some(([, , , kind]) => kind === "timers"))
    advice.push(
      "call vi.useRealTimers() (or uninstall the fake clock) before the task ends, in a `finally`, or in an afterEach",
    );
  if (globals.some(([, , , kind]) => kind === "fetch"))
    advice.push(
      "put fetch back before the task ends (in a `finally`) or in an afterEach, or stub it with vi.stubGlobal and set `unstubGlobals: true` in vitest.config",
    );
  if (env.length > 0)
    advice.push(
      "set it with vi.stubEnv and set `unstubEnvs: true` in vitest.config, or restore it in an afterEach",
    );
  const them = globals.length + env.length > 1 ? "them" : "it";
  return `niceeval: ${culprit} left ${what.join(" and ")} after its test ended (its afterEach hooks included); niceeval put ${them} back before ${next} ran. To keep later tests from running with ${them}: ${advice.join("; ")}. niceeval's own judges and time limits did not use ${them}.`;
}
