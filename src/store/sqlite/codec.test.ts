import { describe, expect, it } from "vitest";
import { emptyJudgeUsage, type Judgment, unreportedUsage } from "../../eval/record.js";
import { CIRCULAR_MARKER, safeStringify } from "../../json-safe.js";
import {
  decodeAttempt,
  type EncodeContext,
  encodeAttempt,
  type JudgmentKind,
  judgmentsMemo,
} from "./codec.js";
import { JUDGMENT_STATE_CODE } from "./schema.js";

/** Kind ids in order of first use, and values inline (as a store with no large value would). */
function context() {
  const kinds: JudgmentKind[] = [];
  const encode: EncodeContext = {
    kindId(kind) {
      const found = kinds.findIndex(
        (k) =>
          k.label === kind.label &&
          k.source === kind.source &&
          k.gate === kind.gate &&
          k.points === kind.points,
      );
      if (found >= 0) return found + 1;
      kinds.push({ label: kind.label, source: kind.source, gate: kind.gate, points: kind.points });
      return kinds.length;
    },
    putValue: (json) => json,
  };
  return { encode, decode: { kind: (id: number) => kinds[id - 1]!, blob: () => undefined } };
}

const judgment = (over: Partial<Judgment>): Judgment => ({
  label: "exact",
  source: "eval.exact-match",
  state: "matched",
  gate: true,
  points: 1,
  earned: 1,
  reason: "actual equals expected",
  ...over,
});

const record = (judgments: Judgment[]) => ({
  evalId: "e",
  caseId: "case-1",
  verdict: "passed" as const,
  score: { state: "complete" as const, earned: 1, max: 1, reasons: [] },
  judgments,
  usage: { app: unreportedUsage(), judge: emptyJudgeUsage() },
  elapsedMs: 1,
});

// The judgments and reasons cells are built as text; they must read as JSON.stringify wrote them.
const edgeCases: Judgment[] = [
  judgment({}),
  judgment({ state: "mismatched", earned: 0, value: 0, reason: 'a "quoted"\n\\ reason' }),
  judgment({ state: "unavailable", earned: null, value: null, reason: "" }),
  judgment({ earned: Number.NaN, value: Number.POSITIVE_INFINITY }),
  judgment({ earned: -0, value: 1e21, detail: { tree: [1, "two", null] } }),
  judgment({ detail: () => 1 }),
  judgment({ detail: { n: 1n } }),
  judgment({
    state: "errored",
    points: 0,
    earned: null,
    judge: { ...emptyJudgeUsage(), calls: 2 },
  }),
  judgment({ reason: undefined as unknown as string }),
];

describe("encodeAttempt", () => {
  it("writes judgments and reasons as JSON.stringify would, details as the JSON report", () => {
    const { encode } = context();
    const row = encodeAttempt(record(edgeCases), 0, encode);
    const expected = edgeCases.map((j) => {
      const stored: Record<string, unknown> = { k: encode.kindId(j) };
      const code = JUDGMENT_STATE_CODE[j.state];
      if (code !== 0) stored.s = code;
      if (j.earned !== j.points) stored.e = j.earned;
      if (j.value !== undefined) stored.v = j.value;
      // Details are written as the JSON report writes them (safeStringify).
      const detail = j.detail === undefined ? undefined : safeStringify(j.detail);
      if (detail !== undefined) stored.d = JSON.parse(detail);
      if (j.judge) stored.u = j.judge;
      return stored;
    });
    expect(row.judgments).toBe(JSON.stringify(expected));
    expect(row.reasons).toBe(JSON.stringify(edgeCases.map((j) => j.reason)));
    expect(row.kinds).toBe(",1,2,");
  });

  it("keeps what JSON cannot hold as the JSON report does, never the whole value lost", () => {
    const { encode, decode } = context();
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    const row = encodeAttempt(
      {
        ...record([judgment({ detail: { m: new Map([["k", 1]]), set: new Set([1, 2]) } })]),
        input: new Map([["in", 1]]),
        expected: new Set(["e"]),
        output: { ok: 1, big: 2n },
        metadata: cyclic,
      },
      0,
      encode,
    );
    const back = decodeAttempt(row, "e", decode);
    expect(back.input).toEqual({ in: 1 });
    expect(back.expected).toEqual(["e"]);
    expect(back.output).toEqual({ ok: 1, big: "[unserialisable: bigint 2]" });
    expect(back.metadata).toEqual({ name: "loop", self: CIRCULAR_MARKER });
    expect(back.judgments[0]?.detail).toEqual({ m: { k: 1 }, set: [1, 2] });
  });

  it("reads back as text a skip reason an earlier niceeval stored as another value", () => {
    const { encode, decode } = context();
    const skipped = { ...record([]), verdict: "skipped" as const };
    const row = encodeAttempt({ ...skipped, skipReason: 42 as unknown as string }, 0, encode);
    expect(decodeAttempt(row, "e", decode).skipReason).toBe("42");
  });

  it("writes the reasons of each record, whatever the one before had at the same place", () => {
    const { encode, decode } = context();
    const lists = [["a", "b"], ["a", "c"], ["d"], ["d", "b", "e"], []];
    for (const reasons of lists) {
      const row = encodeAttempt(record(reasons.map((reason) => judgment({ reason }))), 0, encode);
      expect(decodeAttempt(row, "e", decode).judgments.map((j) => j.reason)).toEqual(reasons);
    }
  });

  it("with a memo of the judgments encoded last, writes every record as it would without one", () => {
    const { encode } = context();
    const memo = { ...encode, memo: judgmentsMemo() };
    // Each list differs from the one before in one thing the cells depend on, or not at all.
    const lists: Judgment[][] = [
      [judgment({ value: 1 }), judgment({ label: "regex", value: 1 })],
      [judgment({ value: 1 }), judgment({ label: "regex", value: 1, reason: "other" })],
      [judgment({ value: 0 }), judgment({ label: "regex", value: 1 })],
      [judgment({ value: 0, earned: 0 }), judgment({ label: "regex", value: 1 })],
      [judgment({ value: 0, earned: 0, state: "mismatched" }), judgment({ label: "regex" })],
      [judgment({ value: 0, earned: 0, state: "mismatched" }), judgment({ label: "regex" })],
      [judgment({ value: 0, earned: 0, state: "mismatched" }), judgment({ source: "s" })],
      [judgment({ points: 2, earned: 2 })],
      [judgment({ points: 2, earned: 2, gate: false })],
      [judgment({ points: 2, earned: 2, gate: false, detail: { at: 1 } })],
      [judgment({ points: 2, earned: 2, gate: false, detail: { at: 2 } })],
      [judgment({ judge: { ...emptyJudgeUsage(), calls: 1 } })],
      [judgment({ judge: { ...emptyJudgeUsage(), calls: 2 } })],
      [judgment({ earned: Number.NaN }), judgment({ earned: -0 })],
      [judgment({ earned: Number.NaN }), judgment({ earned: 0 })],
      [],
      [judgment({})],
    ];
    // A judgment changed after its record was encoded is read as it is now.
    const changed = [judgment({ value: 1 })];
    encodeAttempt(record(changed), 0, memo);
    changed[0]!.state = "mismatched";
    changed[0]!.earned = 0;
    expect(encodeAttempt(record(changed), 0, memo)).toEqual(
      encodeAttempt(record(changed), 0, encode),
    );
    for (const list of lists) {
      // The same objects again, and copies of them: neither may change the cells.
      for (const judgments of [list, list, list.map((j) => ({ ...j }))])
        expect(encodeAttempt(record(judgments), 0, memo)).toEqual(
          encodeAttempt(record(judgments), 0, encode),
        );
    }
  });
});
