// Whether a value is JSON, and where it stops being JSON.

/** The first place a value is not JSON, or undefined when all of it is JSON. */
export interface NotJson {
  readonly path: readonly string[];
  readonly what: string;
  /** Only object properties whose value is `undefined`, which JSON would leave out. */
  readonly onlyUndefinedProperties: boolean;
}

function kindOf(value: unknown): string | undefined {
  if (value === null || typeof value === "string" || typeof value === "boolean") return undefined;
  if (typeof value === "number") return Number.isFinite(value) ? undefined : String(value);
  if (typeof value === "object") {
    if (Array.isArray(value)) return undefined;
    const prototype = Object.getPrototypeOf(value);
    if (prototype === Object.prototype || prototype === null) return undefined;
    return (value as object).constructor?.name ?? "an object with a prototype";
  }
  return typeof value;
}

/** Find where a value is not JSON: `undefined`, functions, bigints, class instances, cycles. */
export function findNotJson(value: unknown): NotJson | undefined {
  const ancestors = new Set<object>();
  let first: NotJson | undefined;
  let onlyUndefined = true;
  const visit = (node: unknown, path: string[], inObject: boolean): void => {
    const kind = kindOf(node);
    if (kind !== undefined) {
      if (!(inObject && node === undefined)) onlyUndefined = false;
      first ??= { path, what: kind, onlyUndefinedProperties: false };
      return;
    }
    if (typeof node !== "object" || node === null) return;
    if (ancestors.has(node)) {
      onlyUndefined = false;
      first ??= { path, what: "a circular reference", onlyUndefinedProperties: false };
      return;
    }
    ancestors.add(node);
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        if (index in node) visit(node[index], [...path, String(index)], false);
        else {
          onlyUndefined = false;
          first ??= {
            path: [...path, String(index)],
            what: "an empty array slot",
            onlyUndefinedProperties: false,
          };
        }
      }
    } else {
      for (const [key, item] of Object.entries(node)) visit(item, [...path, key], true);
    }
    ancestors.delete(node);
  };
  visit(value, [], false);
  return first && { ...first, onlyUndefinedProperties: onlyUndefined };
}

/**
 * Whether a value holds what the validator would take for JSON although JSON cannot write it: a
 * number that is not finite (NaN, ±Infinity, which JSON writes as null) or an empty array slot.
 * No allocation, so every validation can ask; past `MAX_DEPTH` levels it answers false (the
 * validator's own failure then says what it found).
 */
export function hasHiddenNonJson(value: unknown, depth = 0): boolean {
  if (typeof value === "number") return !Number.isFinite(value);
  if (typeof value !== "object" || value === null || depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!(i in value) || hasHiddenNonJson(value[i], depth + 1)) return true;
    }
    return false;
  }
  for (const key of Object.keys(value)) {
    if (hasHiddenNonJson((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

const MAX_DEPTH = 512;

/**
 * How deep arrays and objects nest in a value (0 for a scalar, 1 for `[]`), measured without
 * recursion, so a value nested 100,000 deep is measured where the validator ran out of stack.
 * Each object is followed once, so a cycle ends it.
 */
export function nestingDepth(value: unknown): number {
  let deepest = 0;
  const seen = new Set<object>();
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    // An object met before (a cycle) is not followed again.
    if (typeof node !== "object" || node === null || seen.has(node)) continue;
    seen.add(node);
    deepest = Math.max(deepest, depth);
    for (const item of Object.values(node)) pending.push([item, depth + 1]);
  }
  return deepest;
}

/** A copy without the object properties whose value is `undefined`, as JSON would write it. */
export function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUndefined);
  if (typeof value !== "object" || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // defineProperty, so a "__proto__" key stays a key instead of replacing the prototype.
    if (item !== undefined) {
      Object.defineProperty(copy, key, {
        value: withoutUndefined(item),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return copy;
}
