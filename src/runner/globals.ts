/**
 * Globals the engine relies on that code under test may replace (`globalThis.Promise = …`,
 * `JSON.stringify = …`, `Array.prototype.push = …`, a `then` on `Object.prototype`). They are
 * read when the first attempt of the process starts, once every eval file has loaded (so a
 * polyfill an eval file installs on purpose is what is kept); after each attempt the engine puts
 * back whatever was replaced, so one attempt cannot break the scoring, the report or the store of
 * every attempt after it, nor hang the eval process that sends them. The list is short on
 * purpose: it is read after every attempt.
 */
const WATCHED: readonly (readonly [owner: () => object, name: string, key: PropertyKey])[] = [
  [() => globalThis, "Promise", "Promise"],
  [() => globalThis, "JSON", "JSON"],
  [() => JSON, "JSON.stringify", "stringify"],
  [() => JSON, "JSON.parse", "parse"],
  [() => performance, "performance.now", "now"],
  [() => Date, "Date.now", "now"],
  // Every `await` of a plain object would call it.
  [() => Object.prototype, "Object.prototype.then", "then"],
  [() => Promise.prototype, "Promise.prototype.then", "then"],
  [() => Function.prototype, "Function.prototype.call", "call"],
  [() => Function.prototype, "Function.prototype.apply", "apply"],
  [() => Array.prototype, "Array.prototype.push", "push"],
  [() => Array.prototype, "Array.prototype[Symbol.iterator]", Symbol.iterator],
  [() => Map.prototype, "Map.prototype.get", "get"],
  [() => Map.prototype, "Map.prototype.set", "set"],
  [() => Map.prototype, "Map.prototype.has", "has"],
  [() => Map.prototype, "Map.prototype.delete", "delete"],
  [() => Set.prototype, "Set.prototype.add", "add"],
  [() => Set.prototype, "Set.prototype.has", "has"],
];

interface Watched {
  name: string;
  owner: object;
  key: PropertyKey;
  original: unknown;
  /** The owner had the property itself (else it is deleted again, as `then` must be). */
  own: boolean;
}

let watched: Watched[] | undefined;

/** Read the watched globals, once per process (before its first attempt runs). */
export function watchGlobals(): void {
  watched ??= WATCHED.map(([owner, name, key]) => {
    const object = owner();
    return {
      name,
      owner: object,
      key,
      original: (object as Record<PropertyKey, unknown>)[key],
      own: Object.hasOwn(object, key),
    };
  });
}

/**
 * The names of the watched globals that differ from what they were, each put back; undefined when
 * none was touched (the common case: a handful of comparisons).
 */
export function restoreGlobals(): string[] | undefined {
  let replaced: string[] | undefined;
  const list = watched ?? [];
  // Indexed: a replaced Array.prototype[Symbol.iterator] would make for…of see nothing.
  for (let i = 0; i < list.length; i++) {
    const global = list[i]!;
    let now: unknown;
    try {
      now = (global.owner as Record<PropertyKey, unknown>)[global.key];
    } catch {
      now = Symbol(); // a getter that throws is a replacement too
    }
    if (now === global.original) continue;
    replaced ??= [];
    replaced[replaced.length] = global.name;
    putBack(global);
  }
  return replaced;
}

function putBack(global: Watched): void {
  try {
    if (!global.own) {
      Reflect.deleteProperty(global.owner, global.key);
      return;
    }
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

/** Why an attempt is errored when globals were replaced while it ran. */
export function replacedGlobalsMessage(names: readonly string[]): string {
  const list = names.join(", ");
  return `the code under test replaced ${list} while this attempt ran (or one running beside it); niceeval put the original${names.length > 1 ? "s" : ""} back so the run goes on. Do not assign to ${names.length > 1 ? "these globals" : "this global"}; stub it inside the test instead`;
}
