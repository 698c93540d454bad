// How batches cross the IPC channel. A JSON string is one cheap copy each way; structured clone
// of many small objects costs several times more, so it is kept for values JSON cannot carry:
// isPlainJson says which is which.

/** Deepest nesting sent as JSON; deeper (or cyclic) values go by structured clone. */
const MAX_DEPTH = 64;

/**
 * True when `JSON.parse(JSON.stringify(value))` gives back what structured clone would: plain
 * objects and arrays of strings, booleans, null and finite numbers, nothing undefined, no cycle.
 */
export function isPlainJson(value: unknown, depth = 0): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value) && !Object.is(value, -0);
    case "object": {
      if (value === null) return true;
      if (depth >= MAX_DEPTH) return false;
      if (Array.isArray(value)) {
        // A hole reads as undefined, which is not plain JSON (it would come back as null).
        for (let i = 0; i < value.length; i++) if (!isPlainJson(value[i], depth + 1)) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key in value) {
        if (!isPlainJson((value as Record<string, unknown>)[key], depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/**
 * A case that JSON carries as structured clone would: plain values, where an absent input or
 * expected value (undefined) is left out, which the eval reads the same.
 */
export function isPlainSpec(spec: object): boolean {
  const proto = Object.getPrototypeOf(spec);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key in spec) {
    const value = (spec as Record<string, unknown>)[key];
    if (value !== undefined && !isPlainJson(value, 1)) return false;
  }
  return true;
}

/**
 * Cases the CLI holds as JSON-safe copies of the eval process's own (CasesReply.byId): an
 * attempt of one is sent by case id.
 */
export const copiedCases = new WeakSet<object>();

/**
 * False when code of this process added an enumerable property to `Object.prototype` or
 * `Array.prototype`: `for … in` (which the plain check and the change encoding walk with) then
 * sees it on every object, while JSON and structured clone carry own properties only, so the
 * two ends would number a record's nodes differently.
 */
export function prototypesAreClean(): boolean {
  for (const _ in Object.prototype) return false;
  for (const _ in Array.prototype) return false;
  return true;
}
