// Records cross the IPC channel as changes against a base. The first record of each eval (of each
// set of fields) goes whole and both sides keep it; the next ones send only the leaves that differ
// (the case id, the elapsed time, a reason), each as the number of its node in the base, counted
// the same way on both sides (depth first, in key order). The receiver copies its base and sets
// those leaves. For a record of four judgments that is a twentieth of the bytes, and both ends
// skip most of the work of JSON: the sender compares instead of writing, the receiver copies an
// object literal instead of parsing. Only plain JSON is encoded (see wire.ts); a value that is
// not goes whole by structured clone, as before.
import { isPlainJson } from "./wire.js";

/** Bases kept per eval: records of one eval come in a few sets of fields (passed, errored). */
const BASES_PER_KEY = 4;
/**
 * Bases kept in all: past this many, a new base takes the number of the one used longest ago, so
 * a run of many evals keeps a bounded set of them (the receiver keeps one per number).
 */
const MAX_BASES = 1024;
/** Most nodes (objects, arrays, leaves) of a base; a larger record is sent whole. */
const MAX_BASE_NODES = 16_384;
/** Largest base (characters of JSON) given generated code; larger ones are walked. */
const MAX_GENERATED_JSON = 16_384;
/**
 * Uses of a base before it gets generated code. Compiling costs about a millisecond per base, so a
 * run of 10,000 one-case evals (one base each, used once) would spend seconds compiling code that
 * runs once; a suite's base is used for every case, and pays it after its first few.
 */
const HOT_USES = 16;

/** How a value arrives: a new base (sent whole), or changes against base `b`. */
export type Encoded =
  /** `v` is base number `nb` from now on (-1: it is sent whole and kept as none). */
  | { nb: number; v: unknown }
  /** Changes against base `b`: pairs of a node number and its new value. */
  | { b: number; d: unknown[] };

/** A node of a base: its number, and what the value there is. */
type Shape =
  | { id: number; kind: "object"; keys: string[]; children: Shape[] }
  | { id: number; kind: "array"; children: Shape[] }
  | { id: number; kind: "leaf"; value: unknown };

type Compare = (value: Record<string, unknown>, changes: unknown[]) => boolean;

interface Base {
  readonly no: number;
  readonly shape: Extract<Shape, { kind: "object" }>;
  /** Walking at first, generated once the base is hot (HOT_USES). */
  compare: Compare;
  uses: number;
  /** Whether the base is small enough for generated code. */
  readonly small: boolean;
}

/**
 * The sending side: one per eval process. An eval's first record goes whole and is remembered
 * only as seen: an eval of one case (a score eval) never costs a base; its second record becomes
 * one. Bases are kept up to MAX_BASES, the one used longest ago giving way.
 */
export class DeltaEncoder {
  private readonly bases = new Map<string, Base[]>();
  /** Keys that sent one record and have no base yet. */
  private readonly seen = new Set<string>();
  /** Every base by its number, the one used longest ago first, with its key. */
  private readonly byUse = new Map<number, { key: string; base: Base }>();
  private nextBase = 0;
  /** The base used last (moved to the end of byUse already). */
  private lastUsed = -1;

  /**
   * `value` in its wire form, against a base of `key` (its eval) with the same fields; undefined
   * when it is not plain JSON (it then goes whole by structured clone; the bases are unchanged).
   */
  encode(key: string, value: object): Encoded | undefined {
    if (!isPlainObject(value)) return isPlainJson(value) ? { nb: -1, v: value } : undefined;
    const bases = this.bases.get(key);
    const base = bases?.find((b) => sameKeys(value, b.shape.keys));
    if (base) {
      if (base.no !== this.lastUsed) {
        this.byUse.delete(base.no);
        this.byUse.set(base.no, { key, base });
        this.lastUsed = base.no;
      }
      if (++base.uses === HOT_USES && base.small)
        base.compare = generatedCompare(base.shape) ?? base.compare;
      const changes: unknown[] = [];
      return base.compare(value as Record<string, unknown>, changes)
        ? { b: base.no, d: changes }
        : undefined;
    }
    if (!isPlainJson(value)) return undefined;
    if (!bases && !this.seen.has(key)) {
      this.seen.add(key);
      return { nb: -1, v: value };
    }
    // Too large to be worth a base (an output of a million numbers): numbering its nodes on both
    // sides would cost seconds and keep them for the run. It goes whole; a later record may be one.
    if (nodesOver(value, MAX_BASE_NODES)) return { nb: -1, v: value };
    this.seen.delete(key);
    // Fields no base has: this value becomes a base.
    const shape = shapeOf(value, { next: 0 }) as Base["shape"];
    const made: Base = {
      no: this.freeNumber(key),
      shape,
      compare: walkingCompare(shape),
      uses: 0,
      small: JSON.stringify(value).length <= MAX_GENERATED_JSON,
    };
    const list = this.bases.get(key);
    if (list) list.push(made);
    else this.bases.set(key, [made]);
    this.byUse.set(made.no, { key, base: made });
    this.lastUsed = made.no;
    return { nb: made.no, v: value };
  }

  /** A number for a new base of `key`: its oldest base's when it has enough, else a free one. */
  private freeNumber(key: string): number {
    const own = this.bases.get(key);
    if (own && own.length >= BASES_PER_KEY) return this.drop(key, own[0]!);
    if (this.byUse.size < MAX_BASES) return this.nextBase++;
    const oldest = this.byUse.values().next().value as { key: string; base: Base };
    return this.drop(oldest.key, oldest.base);
  }

  /** Forget a base; its number is free again. */
  private drop(key: string, base: Base): number {
    this.byUse.delete(base.no);
    const list = this.bases.get(key)!;
    list.splice(list.indexOf(base), 1);
    if (list.length === 0) this.bases.delete(key);
    return base.no;
  }
}

/** The receiving side: one per eval process; it must decode every encoded value, in order. */
export class DeltaDecoder {
  private readonly bases: DecoderBase[] = [];

  decode(encoded: Encoded): unknown {
    return "nb" in encoded
      ? this.decodeBase(encoded.nb, encoded.v)
      : this.decodeChanges(encoded.b, encoded.d, 0, encoded.d.length);
  }

  /** A value sent whole: base number `no` from now on (-1: none). */
  decodeBase(no: number, value: unknown): unknown {
    if (no >= 0) {
      const base = clonePlain(value);
      const paths: (string | number)[][] = [];
      numberPaths(base, [], paths);
      this.bases[no] = { copy: () => clonePlain(base), paths, value: base, uses: 0 };
    }
    return value;
  }

  /** Base `no` with the changes at `changes[start .. start + count)` (node, value pairs). */
  decodeChanges(no: number, changes: readonly unknown[], start: number, count: number): unknown {
    return applyChanges(this.bases[no]!, changes, start, count);
  }

  /**
   * The same, decoded when called: the base is the one `no` names now (a later base may take its
   * number), so a record that waits to be taken is a few changes until then, not a copy.
   */
  changesLater(no: number, changes: readonly unknown[], start: number, count: number) {
    const base = this.bases[no]!;
    return (): unknown => applyChanges(base, changes, start, count);
  }
}

interface DecoderBase {
  /** A copy of the base: walking at first, generated once the base is hot (HOT_USES). */
  copy: () => unknown;
  paths: (string | number)[][];
  value: unknown;
  uses: number;
}

function applyChanges(
  base: DecoderBase,
  changes: readonly unknown[],
  start: number,
  count: number,
): unknown {
  if (++base.uses === HOT_USES) base.copy = generatedCopy(base.value) ?? base.copy;
  const out = base.copy();
  for (let i = start; i < start + count; i += 2) {
    const path = base.paths[changes[i] as number]!;
    let target = out as Record<string | number, unknown>;
    for (let j = 0; j < path.length - 1; j++)
      target = target[path[j]!] as Record<string | number, unknown>;
    setOwn(target, path[path.length - 1]!, changes[i + 1]);
  }
  return out;
}

/** Whether `value` (plain JSON) has more than `limit` nodes; stops counting past it. */
function nodesOver(value: unknown, limit: number): boolean {
  let left = limit;
  const count = (node: unknown): void => {
    if (--left < 0 || typeof node !== "object" || node === null) return;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length && left >= 0; i++) count(node[i]);
      return;
    }
    for (const key in node) {
      if (left < 0) return;
      count((node as Record<string, unknown>)[key]);
    }
  };
  count(value);
  return left < 0;
}

/** Number the nodes of `value` depth first, in key order (the numbering both sides share). */
function shapeOf(value: unknown, counter: { next: number }): Shape {
  const id = counter.next++;
  if (typeof value !== "object" || value === null) return { id, kind: "leaf", value };
  if (Array.isArray(value)) {
    return { id, kind: "array", children: value.map((item) => shapeOf(item, counter)) };
  }
  const keys: string[] = [];
  const children: Shape[] = [];
  for (const key in value) {
    keys.push(key);
    children.push(shapeOf((value as Record<string, unknown>)[key], counter));
  }
  return { id, kind: "object", keys, children };
}

/** The receiver's side of the numbering: the path to each node, by number. */
function numberPaths(
  value: unknown,
  path: (string | number)[],
  paths: (string | number)[][],
): void {
  paths.push(path);
  if (typeof value !== "object" || value === null) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) numberPaths(value[i], [...path, i], paths);
    return;
  }
  for (const key in value)
    numberPaths((value as Record<string, unknown>)[key], [...path, key], paths);
}

/** Compare by walking the base's shape (for bases too large for generated code). */
function walkingCompare(root: Extract<Shape, { kind: "object" }>): Compare {
  return (value, changes) => {
    for (let i = 0; i < root.keys.length; i++) {
      if (!diff(value[root.keys[i]!], root.children[i]!, changes, 1)) return false;
    }
    return true;
  };
}

/** Push the leaves (or subtrees) of `value` that differ from `shape`; false if not plain JSON. */
function diff(value: unknown, shape: Shape, changes: unknown[], depth: number): boolean {
  if (shape.kind === "leaf") {
    if (sameLeaf(value, shape.value)) return true;
  } else if (typeof value === "object" && value !== null) {
    if (shape.kind === "object") {
      if (isPlainObject(value) && sameKeys(value, shape.keys)) {
        for (let i = 0; i < shape.keys.length; i++) {
          const item = (value as Record<string, unknown>)[shape.keys[i]!];
          if (!diff(item, shape.children[i]!, changes, depth + 1)) return false;
        }
        return true;
      }
    } else if (Array.isArray(value) && value.length === shape.children.length) {
      for (let i = 0; i < value.length; i++) {
        if (!diff(value[i], shape.children[i]!, changes, depth + 1)) return false;
      }
      return true;
    }
  }
  // Another value here: sent whole under this node's number.
  if (!isPlainJson(value, depth)) return false;
  changes.push(shape.id, value);
  return true;
}

/** Equal, and not -0 where the base has 0 (plain JSON has no -0). */
function sameLeaf(value: unknown, base: unknown): boolean {
  return value === base && (value !== 0 || 1 / (value as number) > 0);
}

/**
 * The same comparison as generated code: one test per node with the key and the base's value as
 * constants, several times faster than walking. Undefined when the runtime refuses code from
 * strings (the caller checks that the base is small enough).
 */
function generatedCompare(root: Extract<Shape, { kind: "object" }>): Compare | undefined {
  const keySets: string[][] = [];
  const lines: string[] = [];
  const node = (shape: Shape, expr: string, depth: number) => {
    const x = `x${shape.id}`;
    lines.push(`{ const ${x} = ${expr};`);
    const other = `{ if (!J(${x}, ${depth})) return false; c.push(${shape.id}, ${x}); }`;
    if (shape.kind === "leaf") {
      const literal = JSON.stringify(shape.value);
      lines.push(
        shape.value === 0
          ? `if (${x} !== 0 || 1 / ${x} < 0) ${other}`
          : `if (${x} !== ${literal}) ${other}`,
      );
    } else if (shape.kind === "object") {
      keySets.push(shape.keys);
      lines.push(`if (O(${x}, K[${keySets.length - 1}])) {`);
      shape.keys.forEach((key, i) => {
        node(shape.children[i]!, `${x}[${JSON.stringify(key)}]`, depth + 1);
      });
      lines.push(`} else ${other}`);
    } else {
      lines.push(`if (Array.isArray(${x}) && ${x}.length === ${shape.children.length}) {`);
      shape.children.forEach((child, i) => {
        node(child, `${x}[${i}]`, depth + 1);
      });
      lines.push(`} else ${other}`);
    }
    lines.push("}");
  };
  root.keys.forEach((key, i) => {
    node(root.children[i]!, `v[${JSON.stringify(key)}]`, 1);
  });
  const isObjectWith = (value: unknown, keys: readonly string[]) =>
    typeof value === "object" && value !== null && isPlainObject(value) && sameKeys(value, keys);
  try {
    const make = new Function(
      "J",
      "O",
      "K",
      `"use strict"; return function compare(v, c) {\n${lines.join("\n")}\nreturn true; };`,
    ) as (j: typeof isPlainJson, o: typeof isObjectWith, k: string[][]) => Compare;
    return make(isPlainJson, isObjectWith, keySets);
  } catch {
    return undefined;
  }
}

/**
 * A copy of the base as an object literal in generated code (V8 copies a literal's template,
 * much faster than building it key by key). Undefined when the base is too large, has a
 * "__proto__" key (which a literal would not make its own), or code from strings is refused.
 */
function generatedCopy(base: unknown): (() => unknown) | undefined {
  const json = JSON.stringify(base);
  if (json.length > MAX_GENERATED_JSON || json.includes('"__proto__"')) return undefined;
  try {
    return new Function(
      `"use strict"; return function copy() { return ${json}; };`,
    )() as () => unknown;
  } catch {
    return undefined;
  }
}

function isPlainObject(value: object): boolean {
  if (Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The same keys in the same order (so the copy keeps the sender's order). */
function sameKeys(value: object, keys: readonly string[]): boolean {
  let i = 0;
  for (const key in value) {
    if (key !== keys[i]) return false;
    i++;
  }
  return i === keys.length;
}

/** A deep copy of a plain JSON value. */
export function clonePlain(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = clonePlain(value[i]);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const key in value) setOwn(out, key, clonePlain((value as Record<string, unknown>)[key]));
  return out;
}

function setOwn(
  target: Record<string | number, unknown>,
  key: string | number,
  value: unknown,
): void {
  // JSON.parse makes "__proto__" an own property; so must the copy.
  if (key === "__proto__")
    Object.defineProperty(target, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  else target[key] = value;
}
