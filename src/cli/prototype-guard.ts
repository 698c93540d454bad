/**
 * Properties no object may inherit while niceeval runs, and what each would do: a `then` makes
 * every object a promise that `await` hands to it (the result of loading the files, every
 * message), a `toJSON` makes every object `JSON.stringify` writes (records, reports, the store,
 * the eval process's messages) what it returns.
 */
const INHERITED: readonly (readonly [owner: object, name: string, key: string, effect: string])[] =
  [
    [Object.prototype, "Object.prototype.then", "then", "a promise that every await hands to it"],
    [
      Object.prototype,
      "Object.prototype.toJSON",
      "toJSON",
      "written by JSON.stringify as what it returns",
    ],
    [Array.prototype, "Array.prototype.then", "then", "a promise that every await hands to it"],
    [
      Array.prototype,
      "Array.prototype.toJSON",
      "toJSON",
      "written by JSON.stringify as what it returns",
    ],
  ];

/**
 * Those properties as a process found them before it loaded eval files, put back when a file's
 * top-level code defines one: with it in place niceeval's own awaits and JSON cannot work (an
 * eval process waited forever for the files it had loaded, or sent what `toJSON` returned), so
 * the file fails to load, naming what it defined. Attempts that define them are caught by the
 * runner's globals check (runner/globals.ts); this covers the files' own code.
 */
export class PrototypeGuard {
  readonly #found = INHERITED.map(([owner, , key]) => Object.getOwnPropertyDescriptor(owner, key));

  /** Put back what the last file's loading defined; why that file fails, or undefined. */
  check(): string | undefined {
    const defined: string[] = [];
    for (const [i, [owner, name, key, effect]] of INHERITED.entries()) {
      const now = Object.getOwnPropertyDescriptor(owner, key);
      const found = this.#found[i];
      if (sameDescriptor(now, found)) continue;
      if (found) Object.defineProperty(owner, key, found);
      else delete (owner as Record<string, unknown>)[key];
      defined.push(`${name} (every ${name.split(".")[0]!.toLowerCase()} would be ${effect})`);
    }
    if (defined.length === 0) return undefined;
    return `its top-level code defined ${defined.join(" and ")}; niceeval removed it and does not run this file's evals, since its own awaits and reports cannot work with it: define it on the objects that need it, not on a prototype every object inherits`;
  }
}

function sameDescriptor(
  a: PropertyDescriptor | undefined,
  b: PropertyDescriptor | undefined,
): boolean {
  if (!a || !b) return a === b;
  return a.value === b.value && a.get === b.get && a.set === b.set;
}
