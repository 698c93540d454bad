import { describe, expect, it } from "vitest";
import { DeltaDecoder, DeltaEncoder, type Encoded } from "./delta.js";

const judgment = (label: string, reason: string, earned: number | null = 1) => ({
  label,
  source: `eval.${label}`,
  state: earned === null ? "errored" : earned > 0 ? "matched" : "mismatched",
  gate: true,
  points: 1,
  earned,
  value: earned,
  reason,
});

const record = (i: number) => ({
  evalId: "e",
  caseId: `case-${i}`,
  verdict: "passed",
  score: { state: "complete", earned: 2, max: 2, reasons: [] as string[] },
  judgments: [judgment("exact", "actual equals expected"), judgment("latency", `${i % 7}ms`)],
  usage: { judge: { calls: 0, cachedCalls: 0, retries: 0, latencyMs: 0 } },
  elapsedMs: 0.5 + i,
});

/** Encode on one side, send as JSON, decode on the other: what a child and its supervisor do. */
function roundTrip(values: readonly object[], key = "e") {
  const encoder = new DeltaEncoder();
  const decoder = new DeltaDecoder();
  return values.map((value) => {
    const encoded = encoder.encode(key, value);
    if (!encoded) return { encoded, decoded: undefined };
    const wire = JSON.parse(JSON.stringify(encoded)) as Encoded;
    return { encoded, decoded: decoder.decode(wire) };
  });
}

describe("records as changes against a base", () => {
  it("gives back each record as JSON would, sending only what changed after the second", () => {
    const values = Array.from({ length: 50 }, (_, i) => record(i));
    const out = roundTrip(values);
    for (const [i, { decoded }] of out.entries()) expect(decoded).toEqual(values[i]);
    // Same key order as the sender's, so reports read the same.
    expect(JSON.stringify(out[7]!.decoded)).toBe(JSON.stringify(values[7]));
    // The first record of a key goes whole without becoming a base; the second is the base.
    expect(out[0]!.encoded).toMatchObject({ nb: -1 });
    expect(out[1]!.encoded).toMatchObject({ nb: 0 });
    const later = out[9]!.encoded as { b: number; d: unknown[] };
    expect(later.b).toBe(0);
    // The case id, the latency reason and the elapsed time: three node numbers, three values.
    expect(later.d).toHaveLength(6);
    expect(later.d).toEqual(expect.arrayContaining(["case-9", "2ms", 9.5]));
    expect(JSON.stringify(later).length).toBeLessThan(JSON.stringify(values[9]).length / 4);
  });

  it("sends whole what changed shape, and makes a record with other fields a base of its own", () => {
    const first = record(0);
    const failed = {
      ...record(1),
      verdict: "failed",
      score: { state: "complete", earned: 1, max: 2, reasons: ["latency: 9ms"] },
      judgments: [
        judgment("exact", "actual equals expected"),
        { ...judgment("latency", "9ms", 0), detail: { budget: 5 } },
      ],
    };
    const errored = {
      ...record(2),
      verdict: "errored",
      judgments: [],
      error: { message: "boom", where: "target" },
    };
    const values = [first, failed, errored, record(3), { ...errored, caseId: "case-4" }];
    const out = roundTrip(values);
    for (const [i, { decoded }] of out.entries()) expect(decoded).toEqual(values[i]);
    // The errored record has a field the others lack: it is a base, and the next one uses it.
    expect(out[2]!.encoded).toMatchObject({ nb: 1 });
    expect(out[3]!.encoded).toMatchObject({ b: 0 });
    expect(out[4]!.encoded).toMatchObject({ b: 1 });
  });

  it("keeps the bases of each key apart, and gives every decoded record its own objects", () => {
    const encoder = new DeltaEncoder();
    const decoder = new DeltaDecoder();
    const a = decoder.decode(encoder.encode("a", record(0))!) as ReturnType<typeof record>;
    decoder.decode(encoder.encode("b", { ...record(1), evalId: "b" })!);
    const c = decoder.decode(encoder.encode("a", record(2))!) as ReturnType<typeof record>;
    expect(c).toEqual(record(2));
    // A sink may change what it was given; the base and the next records do not see it.
    c.judgments[0]!.reason = "changed";
    a.score.reasons.push("changed");
    const d = decoder.decode(encoder.encode("a", record(3))!);
    expect(d).toEqual(record(3));
  });

  it("refuses what JSON cannot carry exactly, leaving the base as it was", () => {
    const encoder = new DeltaEncoder();
    const decoder = new DeltaDecoder();
    decoder.decode(encoder.encode("e", record(0))!);
    for (const odd of [
      { ...record(1), elapsedMs: Number.NaN },
      { ...record(1), elapsedMs: -0 },
      { ...record(1), output: new Date(0) },
      { ...record(1), caseId: undefined },
      {
        ...record(1),
        judgments: [judgment("exact", "x"), { ...judgment("latency", "y"), detail: () => 1 }],
      },
    ]) {
      expect(encoder.encode("e", odd)).toBeUndefined();
    }
    expect(encoder.encode("e", new Map())).toBeUndefined();
    expect(decoder.decode(encoder.encode("e", record(5))!)).toEqual(record(5));
  });

  it("tells -0 from the base's 0, and keeps a __proto__ key an own field", () => {
    const encoder = new DeltaEncoder();
    const base = { n: 0, nested: { v: 1 }, list: [1, 2] };
    encoder.encode("e", base);
    // -0 is not plain JSON: it goes by structured clone, which keeps it.
    expect(encoder.encode("e", { n: -0, nested: { v: 1 }, list: [1, 2] })).toBeUndefined();
    const withProto = (v: number) =>
      JSON.parse(`{"n":${v},"nested":{"v":2},"list":[1,2],"__proto__":{"x":${v}}}`) as object;
    const out = roundTrip([
      base,
      { n: 0, nested: { v: 3 }, list: [1, 2, 3] },
      withProto(1),
      withProto(2),
    ]);
    expect(out[1]!.decoded).toEqual({ n: 0, nested: { v: 3 }, list: [1, 2, 3] });
    for (const [i, value] of [
      [2, withProto(1)],
      [3, withProto(2)],
    ] as const) {
      expect(Object.hasOwn(out[i]!.decoded as object, "__proto__")).toBe(true);
      expect(Object.getPrototypeOf(out[i]!.decoded)).toBe(Object.prototype);
      expect(JSON.stringify(out[i]!.decoded)).toBe(JSON.stringify(value));
    }
    expect(out[3]!.encoded).toMatchObject({ b: expect.any(Number) });
  });

  it("works the same once a base is used often enough for generated code", () => {
    const withProto = (v: number) =>
      JSON.parse(`{"n":${v % 2},"nested":{"v":${v}},"__proto__":{"x":${v}}}`) as object;
    const values = Array.from({ length: 40 }, (_, i) => withProto(i));
    const encoder = new DeltaEncoder();
    const decoder = new DeltaDecoder();
    for (const [i, value] of values.entries()) {
      const encoded = encoder.encode("e", value)!;
      if (i > 1) expect(encoded).toMatchObject({ b: expect.any(Number) });
      const decoded = decoder.decode(JSON.parse(JSON.stringify(encoded)) as Encoded) as object;
      expect(Object.hasOwn(decoded, "__proto__")).toBe(true);
      expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
      expect(JSON.stringify(decoded)).toBe(JSON.stringify(value));
    }
    // Still refused by the generated comparison: -0 where the base has 0.
    expect(
      encoder.encode("e", JSON.parse('{"n":0,"nested":{"v":1},"__proto__":{"x":1}}')),
    ).toMatchObject({ b: expect.any(Number) });
    const minusZero = JSON.parse('{"n":0,"nested":{"v":1},"__proto__":{"x":1}}') as { n: number };
    minusZero.n = -0;
    expect(encoder.encode("e", minusZero)).toBeUndefined();
  });

  it("makes no base for a key with one record, and keeps a bounded number of bases", () => {
    const encoder = new DeltaEncoder();
    const decoder = new DeltaDecoder();
    // 1,500 evals of one record each (score evals): each goes whole, none becomes a base.
    for (let e = 0; e < 1500; e++) {
      const value = { ...record(e), evalId: `one-${e}` };
      const encoded = encoder.encode(value.evalId, value);
      expect(encoded).toMatchObject({ nb: -1 });
      expect(decoder.decode(JSON.parse(JSON.stringify(encoded)) as Encoded)).toEqual(value);
    }
    // 1,500 evals of three records each: a base each, numbered below the cap (1,024), and every
    // record still decodes to what was sent although older bases gave their numbers away.
    const numbers = new Set<number>();
    for (let e = 0; e < 1500; e++) {
      for (let i = 0; i < 3; i++) {
        const value = { ...record(i), evalId: `three-${e}` };
        const encoded = encoder.encode(value.evalId, value)!;
        if ("nb" in encoded && encoded.nb >= 0) numbers.add(encoded.nb);
        expect(decoder.decode(JSON.parse(JSON.stringify(encoded)) as Encoded)).toEqual(value);
      }
    }
    expect(numbers.size).toBe(1024);
    expect(Math.max(...numbers)).toBe(1023);
  });

  it("works the same for a base too large for generated code", () => {
    const big = (i: number) => ({
      id: i,
      items: Array.from({ length: 400 }, (_, j) => ({
        j,
        text: `item ${j} of a long list`,
        on: j % 3 === 0,
      })),
    });
    const values = [
      big(0),
      big(1),
      { ...big(2), items: big(2).items.map((x, j) => (j === 5 ? { ...x, text: "changed" } : x)) },
    ];
    const out = roundTrip(values);
    for (const [i, { decoded }] of out.entries()) expect(decoded).toEqual(values[i]);
    expect((out[2]!.encoded as { d: unknown[] }).d).toEqual([
      expect.any(Number),
      2,
      expect.any(Number),
      "changed",
    ]);
  });

  it("makes no base of a record with a huge value, and the next record of its fields becomes one", () => {
    // An output of a million numbers (embeddings): numbering its nodes on both sides took seconds
    // and kept them for the rest of the run.
    const huge = { ...record(1), output: Array.from({ length: 1_000_000 }, (_, i) => i) };
    const values = [{ ...record(0), output: 0 }, huge, { ...record(2), output: 2 }];
    const out = roundTrip(values);
    for (const [i, { decoded }] of out.entries()) expect(decoded).toEqual(values[i]);
    expect(out.map(({ encoded }) => (encoded && "nb" in encoded ? encoded.nb : "changes"))).toEqual(
      [-1, -1, 0],
    );
  });
});
