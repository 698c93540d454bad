import { describe, expectTypeOf, it } from "vitest";
import type { AttemptRecord } from "../eval/record.js";
import { countWhere } from "../expect/collection.js";
import { atLeast, atMost, equals } from "../expect/compare.js";
import type { MatchFact, MaterialCollection, NumericMaterial } from "../expect/types.js";
import { defineAdapter } from "./define-adapter.js";
import type { AdapterCreateContext, AssertionHandle, ScoreEval } from "./types.js";

type Facts = {
  readonly status: string;
  readonly completion: MatchFact<number>;
  readonly log: MaterialCollection<string>;
};

describe("adapter inference", () => {
  it("infers the facts from create and the assertions from assertions()", () => {
    const adapter = defineAdapter({
      name: "desk",
      create: async (_ctx: AdapterCreateContext): Promise<Facts> => ({
        status: "closed",
        completion: { state: "available", value: 1 },
        log: { state: "complete", items: [] },
      }),
      assertions: ({ check }) => ({ statusIs: (s: string) => check("closed", equals(s)) }),
    });
    const evaluation = adapter.defineScoreEval({
      description: "d",
      test(t) {
        expectTypeOf(t.status).toEqualTypeOf<string>();
        expectTypeOf(t.completion).toEqualTypeOf<MatchFact<number>>();
        expectTypeOf(t.usage.totalTokens).toEqualTypeOf<NumericMaterial>();
        expectTypeOf(t.elapsedMs).toEqualTypeOf<number>();
        expectTypeOf(t.statusIs("x")).toEqualTypeOf<AssertionHandle>();
        expectTypeOf(
          t.check(t.completion, atMost(3)).gate().score(1).label("x"),
        ).toEqualTypeOf<AssertionHandle>();
        expectTypeOf(
          t.check(t.log, countWhere(equals("x"), atLeast(1))),
        ).toEqualTypeOf<AssertionHandle>();
        // @ts-expect-error a string fact cannot be judged by a number match
        t.check(t.status, atMost(3));
        // @ts-expect-error weight is required
        t.score(0.5, {});
      },
    });
    expectTypeOf(evaluation).toExtend<ScoreEval>();
    expectTypeOf(evaluation.run()).toEqualTypeOf<Promise<AttemptRecord>>();
  });
});
