/** Record the pair (a, b) as under comparison; false when it already was (a cycle). */
function firstVisit(seen: Map<object, Set<object>>, a: object, b: object): boolean {
  let partners = seen.get(a);
  if (partners?.has(b)) return false;
  if (!partners) {
    partners = new Set();
    seen.set(a, partners);
  }
  partners.add(b);
  return true;
}

/**
 * SameValueZero, as Map keys and `Array.prototype.includes` compare: NaN is NaN, and -0 is 0
 * (`Math.round(-0.3)` is -0, and a count or a balance of it is zero at any depth, as it is at
 * the top, where `equals` compares with `===`).
 */
const same = (a: unknown, b: unknown): boolean => a === b || (Number.isNaN(a) && Number.isNaN(b));

/** Two Dates of one time; two invalid Dates are alike. */
const sameTime = (a: Date, b: Date): boolean => same(a.getTime(), b.getTime());

/**
 * What a built-in object holds where `Object.keys` does not look (a RegExp's source and flags,
 * an Error's name and message, a URL, a boxed primitive, a buffer's bytes), as a string; undefined
 * for other objects. Without it, `/a/` equalled `/b/` and every two Errors were equal.
 */
function heldState(value: object): string | undefined {
  if (value instanceof RegExp || value instanceof URL || value instanceof URLSearchParams)
    return String(value);
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  if (value instanceof Number || value instanceof String || value instanceof Boolean)
    return String(value.valueOf());
  if (value instanceof ArrayBuffer || value instanceof SharedArrayBuffer)
    return Buffer.from(value).toString("hex");
  if (value instanceof DataView)
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("hex");
  return undefined;
}

/** Whether two objects of one kind hold the same built-in state ({@link heldState}). */
const sameHeld = (a: object, b: object): boolean => heldState(a) === heldState(b);

type TypedArray = ArrayBufferView & ArrayLike<number | bigint>;

/** A typed array (a Buffer, a Float32Array), read index by index; a DataView is compared as bytes. */
const isTypedArray = (value: object): value is TypedArray =>
  ArrayBuffer.isView(value) && !(value instanceof DataView);

/**
 * The first index where two typed arrays of one kind differ (SameValueZero), the shorter one's
 * length when it is all the other begins with, or -1. Index by index: Object.keys of a 100 MB
 * buffer would be 100 million strings.
 */
function typedDifference(a: TypedArray, b: TypedArray): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) if (!same(a[i], b[i])) return i;
  return a.length === b.length ? -1 : length;
}

/**
 * Structural equality over plain data (primitives, arrays, plain objects, Dates, Maps, Sets
 * by reference-free content, typed arrays item by item), numbers as SameValueZero compares them. Iterative, so deep or
 * cyclic values never overflow the stack.
 */
export function deepEqual(left: unknown, right: unknown): boolean {
  if (same(left, right)) return true;
  const stack: [unknown, unknown][] = [[left, right]];
  const seen = new Map<object, Set<object>>();
  while (stack.length > 0) {
    const [a, b] = stack.pop()!;
    if (same(a, b)) continue;
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
    // A pair already under comparison is assumed equal: cycles then compare structurally.
    if (!firstVisit(seen, a, b)) continue;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
    if (a instanceof Date) {
      if (!sameTime(a, b as Date)) return false;
      continue;
    }
    if (!sameHeld(a, b)) return false;
    if (isTypedArray(a)) {
      if (typedDifference(a, b as TypedArray) !== -1) return false;
      continue;
    }
    if (a instanceof Error) stack.push([a.cause, (b as Error).cause]);
    if (a instanceof Map || a instanceof Set) {
      if (!sameEntries(a, b as Map<unknown, unknown> | Set<unknown>, stack)) return false;
      continue;
    }
    const keysA = Object.keys(a);
    const keysB = Object.keys(b);
    if (keysA.length !== keysB.length) return false;
    for (const key of keysA) {
      if (!Object.hasOwn(b, key)) return false;
      stack.push([(a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]]);
    }
  }
  return true;
}

function sameEntries(
  a: Map<unknown, unknown> | Set<unknown>,
  b: Map<unknown, unknown> | Set<unknown>,
  stack: [unknown, unknown][],
): boolean {
  if (a.size !== b.size) return false;
  if (a instanceof Map && b instanceof Map) {
    for (const [key, value] of a) {
      if (!b.has(key)) return false;
      stack.push([value, b.get(key)]);
    }
    return true;
  }
  for (const value of a as Set<unknown>) if (!(b as Set<unknown>).has(value)) return false;
  return true;
}

// ---- where two values differ ----

/** A key of an object, an index of an array (a number) or a key of a Map, on the way to a difference. */
export type PathSegment = unknown;

/**
 * The first place where an observed value differs from the expected one: two values there
 * (`values`), two kinds of object (`kinds`: an array and a plain object, a Date and a Map), a key
 * expected but not observed (`missing`) or observed but not expected (`extra`), or an item of a
 * Set at the path expected but not observed (`set-lacks`) or observed but not expected (`set-holds`).
 */
export type Difference =
  | { kind: "values" | "kinds"; path: PathSegment[]; observed: unknown; expected: unknown }
  | { kind: "missing" | "set-lacks"; path: PathSegment[]; expected: unknown }
  | { kind: "extra" | "set-holds"; path: PathSegment[]; observed: unknown };

type Task =
  | { compare: true; path: PathSegment[]; observed: unknown; expected: unknown }
  | { compare: false; found: Difference };

/**
 * Where `observed` first differs from `expected`, depth first in the expected value's own order of
 * keys (keys it lacks come after its own), or undefined when they are equal as {@link deepEqual}
 * has it. Iterative and cycle-safe like it.
 * @example
 * firstDifference({ a: { b: 2 } }, { a: { b: 1 } }) // → { kind: "values", path: ["a", "b"], observed: 2, expected: 1 }
 */
export function firstDifference(observed: unknown, expected: unknown): Difference | undefined {
  const stack: Task[] = [{ compare: true, path: [], observed, expected }];
  const seen = new Map<object, Set<object>>();
  while (stack.length > 0) {
    const task = stack.pop()!;
    if (!task.compare) return task.found;
    const { path, observed: a, expected: b } = task;
    if (same(a, b)) continue;
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null)
      return { kind: "values", path, observed: a, expected: b };
    if (!firstVisit(seen, a, b)) continue;
    if (
      Array.isArray(a) !== Array.isArray(b) ||
      Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)
    )
      return { kind: "kinds", path, observed: a, expected: b };
    if (a instanceof Date) {
      if (!sameTime(a, b as Date)) return { kind: "values", path, observed: a, expected: b };
      continue;
    }
    if (!sameHeld(a, b)) return { kind: "values", path, observed: a, expected: b };
    if (isTypedArray(a)) {
      const found = typedFound(path, a, b as TypedArray);
      if (found) return found;
      continue;
    }
    const tasks = childTasks(path, a, b);
    for (let i = tasks.length - 1; i >= 0; i--) stack.push(tasks[i]!);
  }
  return undefined;
}

/** Where two typed arrays of one kind first differ, as for arrays: an item, or one past the end. */
function typedFound(path: PathSegment[], a: TypedArray, b: TypedArray): Difference | undefined {
  const at = typedDifference(a, b);
  if (at === -1) return undefined;
  const where = [...path, at];
  if (at < a.length && at < b.length)
    return { kind: "values", path: where, observed: a[at], expected: b[at] };
  return at < b.length
    ? { kind: "missing", path: where, expected: b[at] }
    : { kind: "extra", path: where, observed: a[at] };
}

/** What to compare inside two objects of one kind, in the expected one's order. */
function childTasks(path: PathSegment[], a: object, b: object): Task[] {
  if (a instanceof Set) return setTasks(path, a, b as Set<unknown>);
  const tasks: Task[] = [];
  if (a instanceof Error && (a.cause !== undefined || (b as Error).cause !== undefined))
    tasks.push({
      compare: true,
      path: [...path, "cause"],
      observed: a.cause,
      expected: (b as Error).cause,
    });
  const entriesA = entriesOf(a);
  const entriesB = entriesOf(b);
  for (const [key, expected] of entriesB) {
    const at = [...path, key];
    tasks.push(
      entriesA.has(key)
        ? { compare: true, path: at, observed: entriesA.get(key), expected }
        : { compare: false, found: { kind: "missing", path: at, expected } },
    );
  }
  for (const [key, observed] of entriesA)
    if (!entriesB.has(key))
      tasks.push({ compare: false, found: { kind: "extra", path: [...path, key], observed } });
  return tasks;
}

// A Map's entries, or the own enumerable keys deepEqual compares (an array's indexes as numbers).
function entriesOf(value: object): Map<PathSegment, unknown> {
  if (value instanceof Map) return new Map(value);
  const entries = new Map<PathSegment, unknown>();
  const array = Array.isArray(value);
  for (const [key, item] of Object.entries(value))
    entries.set(array && /^(?:0|[1-9]\d*)$/.test(key) ? Number(key) : key, item);
  return entries;
}

// A Set's items are compared by identity, as deepEqual does: the path ends at the Set.
function setTasks(path: PathSegment[], a: Set<unknown>, b: Set<unknown>): Task[] {
  const tasks: Task[] = [];
  for (const item of b)
    if (!a.has(item))
      tasks.push({ compare: false, found: { kind: "set-lacks", path, expected: item } });
  for (const item of a)
    if (!b.has(item))
      tasks.push({ compare: false, found: { kind: "set-holds", path, observed: item } });
  return tasks;
}
