import { describe, expect, it } from "vitest";
import { ToolInputError } from "../../errors.js";
import { bindScorer, defineSuite } from "../../eval/suite.js";
import { runTool } from "../../tool/index.js";
import { styleScorersProvider, textStatsTool } from "./index.js";

const run = (input: unknown) =>
  runTool({ tool: textStatsTool, candidates: [styleScorersProvider], input: input as never });

describe("eval.text-stats", () => {
  it("passes the seed's example through runTool", async () => {
    const score = await runTool({
      tool: textStatsTool,
      candidates: [styleScorersProvider],
      input: {
        text: "Je pense que ceci illustre bien mon propos.",
        thresholds: { minFirstPersonRatio: 0.5 },
      },
    });
    expect(score).toMatchObject({ value: 1, passed: true, label: "text-stats" });
    expect(score.rationale).toContain("first-person ratio 1.00 >= 0.50: met");
  });

  it("uses the default thresholds when the caller gives none", async () => {
    // 1 of 2 sentences is first-person: 0.5 < 0.6 default.
    const score = await run({ text: "Je pense que ceci est vrai. Il pense que ceci est faux." });
    expect(score).toMatchObject({ value: 2 / 3, passed: false });
    expect(score.rationale).toContain("first-person ratio 0.50 >= 0.60: missed");
  });

  it("writes a ratio or a mean with the digits that tell it from its bound, never '0.67 >= 0.67: missed'", async () => {
    // 2 of 3 sentences are first-person (2/3 < 0.67); 17 words in 3 sentences (5.67 < 5.7).
    const text =
      "Je pense que ceci est vrai. Je crois que cela est juste. Il pense que c'est faux.";
    const score = await run({
      text,
      thresholds: { minFirstPersonRatio: 0.67, lengthBand: { min: 5.7 } },
    });
    expect(score.rationale).toContain("first-person ratio 0.667 >= 0.67: missed");
    expect(score.rationale).toContain("mean sentence length 5.67 words in [5.7, 30]: missed");
    const met = await run({ text, thresholds: { minFirstPersonRatio: 0.66 } });
    expect(met.rationale).toContain("first-person ratio 0.67 >= 0.66: met");
  });

  it("scores the share of gates met", async () => {
    const text = "- je liste\n- je liste encore";
    const score = await run({ text });
    // bullets 1 > 0.02 missed; first person 1 met; mean 2.5 words outside [5, 30] missed.
    expect(score).toMatchObject({ value: 1 / 3, passed: false });
    const relaxed = await run({
      text,
      thresholds: { maxBulletsRatio: 1, lengthBand: { min: 2 } },
    });
    expect(relaxed).toMatchObject({ value: 1, passed: true });
  });

  it("is unavailable, never a 0, on a text without any sentence", async () => {
    for (const text of ["", "   \n  ", "-"]) {
      expect(await run({ text })).toMatchObject({
        unavailable: true,
        passed: false,
        label: "text-stats",
        rationale: "text has no sentence (empty or only markers): nothing to measure",
      });
    }
  });

  it("leaves a suite's judgment unavailable, out of the score, on an empty text", async () => {
    const suite = defineSuite({
      id: "style",
      cases: [{ id: "empty", input: "" }],
      target: (input: string) => input,
      scorers: [
        bindScorer<string, { text: string }>({
          id: "stats",
          tool: textStatsTool,
          driver: styleScorersProvider,
          mapInput: ({ output }) => ({ text: output }),
        }),
      ],
    });
    const record = await suite.runCase(
      { id: "empty", index: 0, input: "" },
      { runId: "r", signal: new AbortController().signal },
    );
    expect(record.judgments[0]).toMatchObject({ state: "unavailable", earned: null });
    expect(record.judgments[0]?.reason).toBe(
      'scorer "stats": text has no sentence (empty or only markers): nothing to measure',
    );
    expect(record.score.state).toBe("unavailable");
  });

  it("rejects a band whose min exceeds its max, naming the field", async () => {
    const error = await run({ text: "x", thresholds: { lengthBand: { min: 40 } } }).catch((e) => e);
    expect(error).toBeInstanceOf(ToolInputError);
    expect((error as ToolInputError).issues[0]?.path).toBe("thresholds.lengthBand");
  });

  it.each([
    [
      { text: "Oui.", threshold: { minFirstPersonRatio: 0 } },
      "(root)",
      '"threshold" (did you mean "thresholds"?)',
    ],
    [
      { text: "Oui.", thresholds: { maxBulletRatio: 1 } },
      "thresholds",
      '"maxBulletRatio" (did you mean "maxBulletsRatio"?)',
    ],
    [
      { text: "Oui.", thresholds: { lengthBand: { mx: 9 } } },
      "thresholds.lengthBand",
      '"mx" (did you mean "max"?)',
    ],
  ])("refuses a misspelt key instead of using the defaults: %j", async (input, path, said) => {
    const error = await run(input).catch((e) => e);
    expect(error).toBeInstanceOf(ToolInputError);
    expect((error as ToolInputError).issues[0]?.path).toBe(path);
    expect((error as Error).message).toContain(`unknown key ${said}`);
  });

  it("leaves alone a key that is no misspelling", async () => {
    expect(
      await run({ text: "Je pense que ceci illustre bien mon propos.", source: "x" }),
    ).toMatchObject({
      passed: true,
    });
  });

  it("rejects ratios outside 0..1", async () => {
    const error = await run({ text: "x", thresholds: { maxBulletsRatio: 2 } }).catch((e) => e);
    expect(error).toBeInstanceOf(ToolInputError);
    expect((error as ToolInputError).issues[0]?.path).toBe("thresholds.maxBulletsRatio");
  });

  it("says what a ratio is, what it got and, for a percentage, which share was meant", async () => {
    const message = async (thresholds: unknown) =>
      ((await run({ text: "x", thresholds }).catch((e) => e)) as Error).message;
    expect(await message({ minFirstPersonRatio: 60 })).toContain(
      "thresholds.minFirstPersonRatio: must be a share from 0 to 1 (0.6 for 60%), got 60",
    );
    expect(await message({ maxBulletsRatio: -0.1 })).toContain(
      "thresholds.maxBulletsRatio: must be a share from 0 to 1, got -0.1",
    );
  });

  it("names the default max when a min alone is above it", async () => {
    const error = await run({ text: "x", thresholds: { lengthBand: { min: 40 } } }).catch((e) => e);
    expect((error as Error).message).toContain(
      "thresholds.lengthBand: lengthBand.min (40) is above lengthBand.max (30, its default); give a max of at least 40",
    );
    const both = await run({ text: "x", thresholds: { lengthBand: { min: 40, max: 35 } } }).catch(
      (e) => e,
    );
    expect((both as Error).message).toContain(
      "thresholds.lengthBand: lengthBand.min (40) is above lengthBand.max (35); give min <= max",
    );
  });
});
