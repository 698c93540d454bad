import * as z from "zod";
import { errorMessage } from "../../errors.js";
import { type KnownKeys, refuseUnknownKeys } from "../../known-keys.js";
import { plural } from "../../plural.js";
import { type Score, scoreSchema } from "../../score/score.js";
import { fixedDecimals, shownApart } from "../../shown-apart.js";
import { type Driver, defineDriver, defineTool, implementTool } from "../../tool/index.js";
import { noteShippedDriver } from "../../tool/shipped-driver.js";
import { show } from "../deterministic/preview.js";
import { scorerInputSchema } from "../tool-input.js";
import { cosineToCentroid, EmbeddingDimensionError, referencesCancelOut } from "./cosine.js";

const LABEL = "style-embedding";
const DEFAULT_THRESHOLD = 0.5;

/**
 * Turns texts into vectors, one per text and in the same order. Any embedding model fits; see
 * `openAiEmbed` for OpenAI-compatible servers. The signal, when given, should cancel the call.
 */
export type EmbedFn = (
  texts: string[],
  options?: { signal?: AbortSignal | undefined },
) => Promise<number[][]>;

const styleEmbeddingInputSchema = scorerInputSchema({
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
  threshold?: number | undefined;
}
const makeStyleEmbeddingDriverOptionsKeys = {
  threshold: true,
} satisfies KnownKeys<MakeStyleEmbeddingDriverOptions>;

/**
 * `eval.style-embedding`: how close a candidate's embedding points to the centroid of its
 * references' embeddings. value = max(0, cosine): the centroid's direction scores 1, an
 * orthogonal or opposed candidate 0. passed = value >= threshold (default 0.5). A blank
 * candidate fails the score with a rationale; an embed answer that cannot be compared (not one
 * vector per text, a component that is not a finite number, a zero vector, vectors of mismatched
 * dimensions, never padded or truncated, or references whose centroid is the zero vector) fails it
 * errored (`errored: true`), never as the candidate's 0.
 */
export const styleEmbeddingTool = defineTool({
  id: "eval.style-embedding",
  description:
    "Cosine similarity (clamped at 0) between a candidate text's embedding and the centroid of reference texts' embeddings.",
  inputSchema: styleEmbeddingInputSchema,
  outputSchema: scoreSchema,
});
noteShippedDriver(
  styleEmbeddingTool,
  "makeStyleEmbeddingDriver",
  "makeStyleEmbeddingDriver(embed)",
);

/**
 * Build a driver that implements {@link styleEmbeddingTool} with an injected embedding
 * function, called once per score with `[candidate, ...references]`. An embed call that
 * throws rejects the tool call: an errored judgment, or an unavailable one when it throws
 * JudgeUnavailableError (as `openAiEmbed` does once its tries are spent), never a failed one.
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
  refuseUnknownKeys(
    "makeStyleEmbeddingDriver",
    options,
    makeStyleEmbeddingDriverOptionsKeys,
    "options",
  );
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
      const problem = vectorsProblem(vectors, texts.length);
      if (problem !== undefined) return errored(problem);
      const [candidate, ...references] = vectors as number[][];
      let cosine: number;
      try {
        cosine = cosineToCentroid(candidate ?? [], references);
      } catch (error) {
        // Seed 002: vectors of other dimensions fail the score, with the rationale. One embed
        // call gave them all, so it is the embedder's fault, never the candidate's: errored.
        if (error instanceof EmbeddingDimensionError)
          return errored(`embed returned vectors of different lengths: ${errorMessage(error)}`);
        throw error;
      }
      if (referencesCancelOut(references)) return errored(cancelledRationale(references.length));
      return scored(cosine, references.length, threshold);
    },
  );
  return defineDriver({ id: "niceeval.style-embedding", implementations: [implementation] });
}

function scored(cosine: number, references: number, threshold: number): Score {
  const value = Math.max(0, cosine);
  const passed = value >= threshold;
  const shown = shownApart(value, threshold, fixedDecimals, 3, 20);
  return {
    value,
    passed,
    label: LABEL,
    rationale: `cosine to the centroid of ${plural(references, "reference")} ${cosine.toFixed(3)}, value ${shown} ${passed ? ">=" : "<"} ${threshold}`,
  };
}

/**
 * What is wrong with embed's answer, when it cannot be compared: not one array of finite numbers
 * per text, or a zero vector (it has no direction, so no cosine). The embedder's fault, never
 * the candidate's: the score is errored, not a 0.
 */
function vectorsProblem(vectors: unknown, count: number): string | undefined {
  if (!Array.isArray(vectors) || vectors.length !== count) {
    const got = Array.isArray(vectors) ? plural(vectors.length, "vector") : show(vectors);
    return `embed returned ${got} for ${count} texts: expected one vector per text`;
  }
  for (const [index, vector] of vectors.entries()) {
    if (!Array.isArray(vector))
      return `embed returned a non-array for text ${index} (${show(vector)}): expected number[]`;
    const bad = vector.findIndex((x) => typeof x !== "number" || !Number.isFinite(x));
    if (bad !== -1)
      return `embed returned ${typeof vector[bad] === "number" ? vector[bad] : show(vector[bad])} at component ${bad} of text ${index}: expected finite numbers`;
    if (vector.every((x) => x === 0))
      return `embed returned a zero vector for text ${index}: it has no direction to compare`;
  }
  return undefined;
}

function cancelledRationale(references: number): string {
  return `the ${plural(references, "reference")}' embeddings cancel out: their centroid is the zero vector, with no direction to compare the candidate with; give references that share a style`;
}

function failed(rationale: string): Score {
  return { value: 0, passed: false, label: LABEL, rationale };
}

function errored(rationale: string): Score {
  return { value: 0, passed: false, errored: true, label: LABEL, rationale };
}
