import { runTool } from "../tool/run-tool.js";
import type { Driver, Tool, ToolSchema } from "../tool/tool.js";
import { refuseToolDriver } from "../tool/tool-driver.js";

/** A niceeval tool in the shape the AI SDK's `tool()` takes and `generateText({ tools })` runs. */
export interface AiSdkTool<Input, Output> {
  description: string;
  /** The tool's input schema: zod, or a Standard Schema (the AI SDK takes both). */
  inputSchema: ToolSchema<Input>;
  execute: (input: Input, options?: { abortSignal?: AbortSignal | undefined }) => Promise<Output>;
}

/**
 * Offer a niceeval scorer tool to an AI SDK agent: the model calls it with the tool's input,
 * the driver runs it (input and output validated), and the Score comes back as the tool result.
 * @example
 * const tools = { judge_answer: toAiSdkTool(llmJudgeTool, makeLlmJudgeDriver(judge)) };
 * await generateText({ model, tools, prompt });
 * @throws AuthoringError when `tool` is not a tool or `driver` not a driver that implements it
 * (checked here, not when the model first calls the tool).
 */
export function toAiSdkTool<Input, Output>(
  tool: Tool<Input, Output>,
  driver: Driver,
): AiSdkTool<Input, Output> {
  const id = (tool as { id?: unknown } | null | undefined)?.id;
  refuseToolDriver(typeof id === "string" ? `toAiSdkTool("${id}")` : "toAiSdkTool", tool, driver);
  const candidates = [driver];
  return {
    description: tool.description,
    inputSchema: tool.inputSchema,
    execute: (input, options) =>
      runTool({
        tool,
        candidates,
        input,
        ...(options?.abortSignal ? { signal: options.abortSignal } : {}),
      }),
  };
}
