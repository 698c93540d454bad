import { describe, expect, it } from "vitest";
import type { CaseSpec } from "../eval/runnable.js";
import type { CasesReply, CasesRequest } from "./protocol.js";
import { childEntries } from "./remote-evals.js";

// The CLI's side of an eval process's evals, with a reader that answers from arrays in memory
// (the eval process's case server, as the supervisor would pass its replies on).
function evalsOf(sizes: readonly number[]) {
  const asked: Omit<CasesRequest, "t">[] = [];
  const read = async (request: Omit<CasesRequest, "t">): Promise<CasesReply> => {
    asked.push(request);
    const size = sizes[Number(request.evalId.slice(1))]!;
    const end = Math.min(size, request.from + request.max);
    const specs: CaseSpec[] = [];
    for (let i = request.from; i < end; i++) specs.push({ id: `c${i}`, index: i, input: i });
    return {
      t: "cases",
      evalId: request.evalId,
      from: request.from,
      json: JSON.stringify(specs),
      done: end === size,
    };
  };
  const described = sizes.map((_, i) => ({
    id: `e${i}`,
    style: "suite" as const,
    fingerprint: null,
  }));
  const { entries } = childEntries({ described, errors: [] }, read, undefined);
  return { entries, asked };
}

async function idsOf(cases: AsyncIterable<CaseSpec> | Iterable<CaseSpec>): Promise<string[]> {
  const ids: string[] = [];
  for await (const spec of cases as AsyncIterable<CaseSpec>) ids.push(spec.id);
  return ids;
}

describe("the cases of an eval process's evals", () => {
  it("asks ahead for the first cases of the next evals in a run of small evals", async () => {
    const { entries, asked } = evalsOf(Array.from({ length: 200 }, () => 1));
    expect(await idsOf(entries[0]!.eval.cases())).toEqual(["c0"]);
    // Eval 0 came whole in its first read: the next 64 are asked for at once.
    expect(asked.map((r) => r.evalId)).toEqual(Array.from({ length: 65 }, (_, i) => `e${i}`));
    for (const entry of entries.slice(1)) expect(await idsOf(entry.eval.cases())).toEqual(["c0"]);
    // Each eval asked for once, none twice.
    expect(asked).toHaveLength(200);
    expect(new Set(asked.map((r) => r.evalId)).size).toBe(200);
  });

  it("reads an eval asked for ahead to its end, and a large eval's cases as usual", async () => {
    const { entries, asked } = evalsOf([1, 150, 10_000, 2]);
    expect(await idsOf(entries[0]!.eval.cases())).toEqual(["c0"]);
    // Its first 64 came ahead; the rest is asked for from there.
    const second = await idsOf(entries[1]!.eval.cases());
    expect(second).toEqual(Array.from({ length: 150 }, (_, i) => `c${i}`));
    expect(asked.filter((r) => r.evalId === "e1").map((r) => r.from)).toEqual([0, 64]);
    expect((await idsOf(entries[2]!.eval.cases())).length).toBe(10_000);
    expect(await idsOf(entries[3]!.eval.cases())).toEqual(["c0", "c1"]);
    // A second reading of an eval reads it again from the start.
    expect(await idsOf(entries[0]!.eval.cases())).toEqual(["c0"]);
  });

  it("asks ahead after an eval read whole in one read, up to 1,024 cases", async () => {
    const { entries, asked } = evalsOf([1000, 1000, 1000]);
    expect((await idsOf(entries[0]!.eval.cases())).length).toBe(1000);
    expect(asked.map((r) => [r.evalId, r.max])).toEqual([
      ["e0", 1024],
      ["e1", 64],
      ["e2", 64],
    ]);
    expect((await idsOf(entries[1]!.eval.cases())).length).toBe(1000);
  });

  it("asks nothing ahead while the evals are larger than one read", async () => {
    const { entries, asked } = evalsOf([5000, 5000, 5000]);
    expect((await idsOf(entries[0]!.eval.cases())).length).toBe(5000);
    expect(new Set(asked.map((r) => r.evalId))).toEqual(new Set(["e0"]));
  });
});
