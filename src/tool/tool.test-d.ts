import { expectTypeOf } from "vitest";
import { z } from "zod";
import { scoreSchema } from "../score/score.js";
import { defineTool, implementTool } from "./tool.js";

const scoreTool = defineTool({
  id: "acme.score",
  description: "score a text",
  inputSchema: z.object({ text: z.string() }),
  outputSchema: scoreSchema,
});

// An implementation returns what the output schema takes, which its defaults may fill in: a tool
// keeps only its output type, so the result is checked at run time (ToolOutputError), not here.
const tagged = defineTool({
  id: "acme.tagged",
  description: "tag a text",
  inputSchema: z.object({ text: z.string() }),
  outputSchema: z.object({ value: z.number(), tags: z.array(z.string()).default([]) }),
});
implementTool(tagged, ({ text }) => ({ value: text.length }));
// The input is the tool's input type.
implementTool(scoreTool, ({ text }) => {
  expectTypeOf(text).toEqualTypeOf<string>();
  return { value: text.length, passed: true, label: "len" };
});
