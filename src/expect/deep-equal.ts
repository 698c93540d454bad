/**
 * Structural equality over plain data (primitives, arrays, plain objects, Dates, Maps, Sets
 * by reference-free content). Iterative, so deep or cyclic values never overflow the stack.
 */
export function deepEqual(left: unknown, right: unknown): boolean {
  if (Object.is(left, right)) return true;
  const stack: [unknown, unknown][] = [[left, right]];
  const seen = new Map<object, Set<object>>();
  while (stack.length > 0) {
    const [a, b] = stack.pop()!;
    if (Object.is(a, b)) continue;
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
    // A pair already under comparison is assumed equal: cycles then compare structurally.
    let partners = seen.get(a);
    if (partners?.has(b)) continue;
    if (!partners) {
      partners = new Set();
      seen.set(a, partners);
    }
    partners.add(b);
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
    if (a instanceof Date) {
      if (a.getTime() !== (b as Date).getTime()) return false;
      continue;
    }
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
