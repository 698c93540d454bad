import { expectTypeOf } from "vitest";
import { z } from "zod";
import { scoreSchema } from "../score/score.js";
import { defineTool, implementTool, type ToolImplementation } from "./tool.js";

const scoreTool = defineTool({
  id: "acme.score",
  description: "score a text",
  inputSchema: z.object({ text: z.string() }),
  outputSchema: scoreSchema,
});

// The tool's output type is the one an implementation's result is checked against.
// @ts-expect-error a Score needs passed and label
implementTool(scoreTool, () => ({ value: 1 }));
// @ts-expect-error nor may an asynchronous implementation resolve to less
implementTool(scoreTool, async () => ({ value: 1 }));
expectTypeOf(
  implementTool(scoreTool, ({ text }) => ({ value: text.length, passed: true, label: "len" })),
).toEqualTypeOf<ToolImplementation<{ text: string }, z.output<typeof scoreSchema>>>();
expectTypeOf(
  implementTool(scoreTool, async () => ({ value: 1, passed: true, label: "x" })),
).toEqualTypeOf<ToolImplementation<{ text: string }, z.output<typeof scoreSchema>>>();
