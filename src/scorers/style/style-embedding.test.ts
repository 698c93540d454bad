import { describe, expect, it } from "vitest";
import { ToolInputError } from "../../errors.js";
import { runTool } from "../../tool/index.js";
import { type EmbedFn, makeStyleEmbeddingDriver, styleEmbeddingTool } from "./index.js";

/** An embedding table keyed by text: a deterministic stand-in model. */
const table =
  (vectors: Record<string, number[]>): EmbedFn =>
  async (texts) =>
    texts.map((text) => {
      const vector = vectors[text];
      if (!vector) throw new Error(`no vector for ${text}`);
      return vector;
    });

const score = (
  embed: EmbedFn,
  input: { candidate: string; references: string[] },
  threshold?: number,
) =>
  runTool({
    tool: styleEmbeddingTool,
    candidates: [makeStyleEmbeddingDriver(embed, threshold === undefined ? {} : { threshold })],
    input,
  });

describe("eval.style-embedding", () => {
  const embed = table({
    same: [1, 0],
    r1: [1, 1],
    r2: [1, -1],
    ortho: [0, 1],
    opposed: [-1, 0],
    diag: [1, 1],
  });

  it("scores 1 for a candidate on the centroid's direction", async () => {
    const result = await score(embed, { candidate: "same", references: ["r1", "r2"] });
    expect(result).toMatchObject({ value: 1, passed: true, label: "style-embedding" });
    expect(result.rationale).toContain("2 references");
  });

  it("passes a candidate embedded like its reference at threshold 1 (its cosine is exactly 1)", async () => {
    const same = table({ a: [1, 2], b: [1, 2] });
    const result = await score(same, { candidate: "a", references: ["b"] }, 1);
    expect(result).toMatchObject({ value: 1, passed: true });
    expect(result.rationale).toContain("value 1.000 >= 1");
  });

  it("scores 0 (not 0.5) for orthogonal and opposed candidates", async () => {
    expect(await score(embed, { candidate: "ortho", references: ["r1", "r2"] })).toMatchObject({
      value: 0,
      passed: false,
    });
    expect(await score(embed, { candidate: "opposed", references: ["r1", "r2"] })).toMatchObject({
      value: 0,
      passed: false,
    });
  });

  it("applies the threshold (default 0.5)", async () => {
    // cos 45° ≈ 0.707
    expect((await score(embed, { candidate: "diag", references: ["same"] })).passed).toBe(true);
    expect((await score(embed, { candidate: "diag", references: ["same"] }, 0.8)).passed).toBe(
      false,
    );
  });

  it("fails the score errored with a rationale when dimensions differ (one embed call gave them all), never padding", async () => {
    const mixed = table({ c: [1, 0, 0], r1: [1, 0, 0], r2: [1, 0] });
    const result = await score(mixed, { candidate: "c", references: ["r1", "r2"] });
    expect(result).toMatchObject({ value: 0, passed: false, errored: true });
    expect(result.rationale).toContain("embed returned vectors of different lengths");
    expect(result.rationale).toContain("references[1] has 2 dimensions, expected 3");
  });

  it("is errored, never a 0, when the references' centroid is the zero vector", async () => {
    const cancelling = table({
      c: [1, 0],
      r1: [1, 0],
      r2: [-1, 0],
      r3: [0.1, 0.2],
      r4: [-0.1, -0.2],
    });
    for (const references of [
      ["r1", "r2"],
      ["r3", "r4", "r1", "r2"],
    ]) {
      const result = await score(cancelling, { candidate: "c", references });
      expect(result).toMatchObject({ value: 0, passed: false, errored: true });
      expect(result.rationale).toContain("cancel out: their centroid is the zero vector");
    }
  });

  it.each([
    ["too few vectors", async () => [[1, 0]], "1 vector for 2 texts"],
    ["a non-array answer", async () => "oops", 'embed returned "oops" for 2 texts'],
    ["a non-array vector", async () => ["x", [1]], 'non-array for text 0 ("x")'],
    [
      "a NaN component",
      async () => [
        [Number.NaN, 1],
        [1, 1],
      ],
      "NaN at component 0 of text 0",
    ],
    [
      "a zero vector",
      async () => [
        [1, 0],
        [0, 0],
      ],
      "zero vector for text 1",
    ],
  ])("is errored, never a 0, when embed returns %s", async (_, answer, said) => {
    const result = await score(answer as unknown as EmbedFn, { candidate: "c", references: ["r"] });
    expect(result).toMatchObject({ value: 0, passed: false, errored: true });
    expect(result.rationale).toContain(said);
  });

  it("fails an empty candidate without calling embed", async () => {
    let called = false;
    const spy: EmbedFn = async (texts) => {
      called = true;
      return texts.map(() => [1]);
    };
    expect(await score(spy, { candidate: "  ", references: ["r"] })).toMatchObject({
      value: 0,
      passed: false,
    });
    expect(called).toBe(false);
  });

  it("rejects an empty reference set with a ToolInputError naming the field", async () => {
    const error = await score(embed, { candidate: "same", references: [] }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ToolInputError);
    expect((error as ToolInputError).issues[0]?.path).toBe("references");
  });

  it("rejects a blank reference text", async () => {
    const error = await score(embed, { candidate: "same", references: ["r1", ""] }).catch(
      (e: unknown) => e,
    );
    expect((error as ToolInputError).issues[0]?.path).toBe("references[1]");
  });

  it("lets an embed failure reject the call and passes the signal through", async () => {
    await expect(score(embed, { candidate: "unknown", references: ["r1"] })).rejects.toThrow(
      "no vector for unknown",
    );
    let seen: AbortSignal | undefined;
    const watching: EmbedFn = async (texts, options) => {
      seen = options?.signal;
      return texts.map(() => [1]);
    };
    const controller = new AbortController();
    await runTool({
      tool: styleEmbeddingTool,
      candidates: [makeStyleEmbeddingDriver(watching)],
      input: { candidate: "c", references: ["r"] },
      signal: controller.signal,
    });
    expect(seen).toBe(controller.signal);
  });

  it("refuses a bad embed or threshold at build time", () => {
    expect(() => makeStyleEmbeddingDriver(undefined as unknown as EmbedFn)).toThrow(
      /embed must be an EmbedFn/,
    );
    expect(() => makeStyleEmbeddingDriver(embed, { threshold: 2 })).toThrow(/threshold/);
    expect(() => makeStyleEmbeddingDriver(embed, { treshold: 0.9 } as never)).toThrow(
      'makeStyleEmbeddingDriver: unknown key "options.treshold" (did you mean "options.threshold"?)',
    );
  });
});
