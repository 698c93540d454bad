import { describe, expectTypeOf, it } from "vitest";
import type { JudgeFn } from "../../judge/types.js";
import type { Score } from "../../score/score.js";
import { runTool } from "../../tool/index.js";
import {
  type EmbedFn,
  type OutlineFidelityInput,
  openAiEmbed,
  type PairwiseVerdict,
  type PairwiseWinRateResult,
  pairwiseWinRate,
  parseVerdict,
  type StyleEmbeddingInput,
  type StylePairwiseInput,
  styleScorersProvider,
  textStatsTool,
} from "./index.js";

describe("style scorer types", () => {
  it("types runTool's input from the tool and returns a Score", () => {
    const score = runTool({
      tool: textStatsTool,
      candidates: [styleScorersProvider],
      input: { text: "x", thresholds: { lengthBand: { min: 1 } } },
    });
    expectTypeOf(score).toEqualTypeOf<Promise<Score>>();
    runTool({
      tool: textStatsTool,
      candidates: [styleScorersProvider],
      // @ts-expect-error a threshold is a number
      input: { text: "x", thresholds: { maxBulletsRatio: "0.1" } },
    });
  });

  it("exposes the seed's input shapes", () => {
    expectTypeOf<StylePairwiseInput>().toEqualTypeOf<{
      reference: string;
      a: string;
      b: string;
      criteria: string;
    }>();
    expectTypeOf<OutlineFidelityInput>().toEqualTypeOf<{ outline: string; answer: string }>();
    expectTypeOf<StyleEmbeddingInput>().toEqualTypeOf<{
      candidate: string;
      references: string[];
    }>();
  });

  it("accepts the seed's EmbedFn shape and returns one from openAiEmbed", () => {
    const seedShaped = async (texts: string[]): Promise<number[][]> => texts.map(() => [1]);
    expectTypeOf(seedShaped).toExtend<EmbedFn>();
    expectTypeOf(openAiEmbed({ baseUrl: "http://127.0.0.1", model: "m" })).toEqualTypeOf<EmbedFn>();
  });

  it("requires an item id on a pairwise verdict and keeps kappa nullable", () => {
    expectTypeOf<PairwiseVerdict["item"]>().toEqualTypeOf<string>();
    // @ts-expect-error item is required
    pairwiseWinRate([{ order: "normal", winner: "a" }]);
    expectTypeOf(pairwiseWinRate([])).toEqualTypeOf<PairwiseWinRateResult>();
    expectTypeOf<PairwiseWinRateResult["kappa"]>().toEqualTypeOf<number | null>();
  });

  it("parses verdicts into JudgeFn's verdict type or null", () => {
    expectTypeOf(parseVerdict).returns.toEqualTypeOf<Awaited<ReturnType<JudgeFn>> | null>();
  });
});
