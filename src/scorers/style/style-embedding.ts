import * as z from "zod";
import { errorMessage } from "../../errors.js";
import { plural } from "../../plural.js";
import { type Score, scoreSchema } from "../../score/score.js";
import { type Driver, defineDriver, defineTool, implementTool } from "../../tool/index.js";
import { cosineToCentroid, EmbeddingDimensionError } from "./cosine.js";

const LABEL = "style-embedding";
const DEFAULT_THRESHOLD = 0.5;

/**
 * Turns texts into vectors, one per text and in the same order. Any embedding model fits; see
 * `openAiEmbed` for OpenAI-compatible servers. The signal, when given, should cancel the call.
 */
export type EmbedFn = (texts: string[], options?: { signal?: AbortSignal }) => Promise<number[][]>;

const styleEmbeddingInputSchema = z.object({
  /** The text to score. */
  candidate: z.string(),
  /** Texts in the target style; their embeddings' centroid is the target. */
  references: z
    .array(z.string().refine((text) => text.trim() !== "", "a reference text must not be blank"))
    .min(1, "give at least one reference text"),
});

/** Input of `eval.style-embedding`. */
export type StyleEmbeddingInput = z.infer<typeof styleEmbeddingInputSchema>;

/** Options of {@link makeStyleEmbeddingDriver}. */
export interface MakeStyleEmbeddingDriverOptions {
  /** Lowest passing value (default 0.5). */
  threshold?: number;
}

/**
 * `eval.style-embedding`: how close a candidate's embedding points to the centroid of its
 * references' embeddings. value = max(0, cosine): the centroid's direction scores 1, an
 * orthogonal or opposed candidate 0. passed = value >= threshold (default 0.5). A blank
 * candidate, vectors of mismatched dimensions (never padded or truncated), a wrong number of
 * vectors or non-finite components fail the score with a rationale.
 */
export const styleEmbeddingTool = defineTool({
  id: "eval.style-embedding",
  description:
    "Cosine similarity (clamped at 0) between a candidate text's embedding and the centroid of reference texts' embeddings.",
  inputSchema: styleEmbeddingInputSchema,
  outputSchema: scoreSchema,
});

/**
 * Build a driver that implements {@link styleEmbeddingTool} with an injected embedding
 * function, called once per score with `[candidate, ...references]`. An embed call that
 * throws rejects the tool call (an errored score, not a failed one).
 * @example
 * const driver = makeStyleEmbeddingDriver(openAiEmbed({ baseUrl, model: "text-embedding-3-small" }));
 * await runTool({ tool: styleEmbeddingTool, candidates: [driver], input: { candidate, references } });
 */
export function makeStyleEmbeddingDriver(
  embed: EmbedFn,
  options: MakeStyleEmbeddingDriverOptions = {},
): Driver {
  if (typeof embed !== "function") {
    throw new TypeError(
      "makeStyleEmbeddingDriver(embed): embed must be an EmbedFn (texts) => Promise<number[][]>",
    );
  }
  const threshold = options.threshold ?? DEFAULT_THRESHOLD;
  if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1) {
    throw new RangeError(
      `makeStyleEmbeddingDriver: options.threshold must be in 0..1 (got ${threshold})`,
    );
  }
  const implementation = implementTool(
    styleEmbeddingTool,
    async (input, context): Promise<Score> => {
      if (input.candidate.trim() === "") return failed("candidate text is empty: nothing to embed");
      const texts = [input.candidate, ...input.references];
      const vectors: unknown = await embed(texts, context.signal ? { signal: context.signal } : {});
      if (!Array.isArray(vectors) || vectors.length !== texts.length) {
        const got = Array.isArray(vectors) ? `${vectors.length} vectors` : typeof vectors;
        return failed(
          `embed returned ${got} for ${texts.length} texts: expected one vector per text`,
        );
      }
      const notVector = vectors.findIndex((vector) => !Array.isArray(vector));
      if (notVector !== -1)
        return failed(`embed returned a non-array for text ${notVector}: expected number[]`);
      const [candidate, ...references] = vectors as number[][];
      let cosine: number;
      try {
        cosine = cosineToCentroid(candidate ?? [], references);
      } catch (error) {
        if (error instanceof EmbeddingDimensionError || error instanceof RangeError) {
          return failed(errorMessage(error));
        }
        throw error;
      }
      const value = Math.max(0, cosine);
      const passed = value >= threshold;
      return {
        value,
        passed,
        label: LABEL,
        rationale: `cosine to the centroid of ${plural(references.length, "reference")} ${cosine.toFixed(3)}, value ${value.toFixed(3)} ${passed ? ">=" : "<"} ${threshold}`,
      };
    },
  );
  return defineDriver({ id: "niceeval.style-embedding", implementations: [implementation] });
}

function failed(rationale: string): Score {
  return { value: 0, passed: false, label: LABEL, rationale };
}
