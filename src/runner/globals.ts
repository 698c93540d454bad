/**
 * Globals the engine relies on that code under test may replace (`globalThis.Promise = …`,
 * `JSON.stringify = …`). They are read when the first attempt of the process starts, once every
 * eval file has loaded (so a polyfill an eval file installs on purpose is what is kept); after
 * each attempt the engine puts back whatever was replaced, so one attempt cannot break the
 * scoring, the report or the store of every attempt after it.
 */
const WATCHED: readonly (readonly [name: string, owner: () => object, key: string])[] = [
  ["Promise", () => globalThis, "Promise"],
  ["JSON", () => globalThis, "JSON"],
  ["JSON.stringify", () => JSON, "stringify"],
  ["JSON.parse", () => JSON, "parse"],
  ["performance.now", () => performance, "now"],
  ["Date.now", () => Date, "now"],
];

let watched: { name: string; owner: object; key: string; original: unknown }[] | undefined;

/** Read the watched globals, once per process (before its first attempt runs). */
export function watchGlobals(): void {
  watched ??= WATCHED.map(([name, owner, key]) => {
    const object = owner();
    return { name, owner: object, key, original: (object as Record<string, unknown>)[key] };
  });
}

/**
 * The names of the watched globals that differ from what they were, each put back; undefined when
 * none was touched (the common case: a handful of comparisons).
 */
export function restoreGlobals(): string[] | undefined {
  let replaced: string[] | undefined;
  for (const global of watched ?? []) {
    let now: unknown;
    try {
      now = (global.owner as Record<string, unknown>)[global.key];
    } catch {
      now = undefined; // a getter that throws is a replacement too
    }
    if (now === global.original) continue;
    replaced ??= [];
    replaced.push(global.name);
    try {
      Object.defineProperty(global.owner, global.key, {
        value: global.original,
        writable: true,
        configurable: true,
        enumerable: false,
      });
    } catch {
      // Made non-configurable by the code under test: the attempt is errored all the same.
    }
  }
  return replaced;
}

/** Why an attempt is errored when globals were replaced while it ran. */
export function replacedGlobalsMessage(names: readonly string[]): string {
  const list = names.join(", ");
  return `the code under test replaced ${list} while this attempt ran (or one running beside it); niceeval put the original${names.length > 1 ? "s" : ""} back so the run goes on. Do not assign to ${names.length > 1 ? "these globals" : "this global"}; stub it inside the test instead`;
}
