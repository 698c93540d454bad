import type { StandardSchemaV1 } from "@standard-schema/spec";
import { AuthoringError } from "../errors.js";
import { runTool } from "../tool/run-tool.js";
import type { Driver, Tool, ToolSchema } from "../tool/tool.js";
import { refuseToolDriver } from "../tool/tool-driver.js";

/** A niceeval tool in the shape the AI SDK's `tool()` takes and `generateText({ tools })` runs. */
export interface AiSdkTool<Input, Output> {
  description: string;
  /**
   * The tool's input schema, which the AI SDK turns into the JSON Schema it shows the model: zod,
   * or a Standard Schema that gives a JSON Schema (`~standard.jsonSchema`: arktype's). A schema
   * that gives none (valibot's) is refused by {@link toAiSdkTool}.
   */
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
 * (checked here, not when the model first calls the tool), or when the tool's input schema gives
 * the AI SDK no JSON Schema to show the model (a valibot schema).
 */
export function toAiSdkTool<Input, Output>(
  tool: Tool<Input, Output>,
  driver: Driver,
): AiSdkTool<Input, Output> {
  const id = (tool as { id?: unknown } | null | undefined)?.id;
  const where = typeof id === "string" ? `toAiSdkTool("${id}")` : "toAiSdkTool";
  refuseToolDriver(where, tool, driver);
  refuseNoJsonSchema(where, tool.inputSchema);
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

/**
 * Refuse an input schema the AI SDK cannot show the model: it converts zod itself and any other
 * Standard Schema through its `~standard.jsonSchema`, and a schema without one (valibot's) makes
 * generateText throw on its first step, naming no tool.
 */
function refuseNoJsonSchema(where: string, schema: ToolSchema<unknown>): void {
  const standard = (schema as StandardSchemaV1)["~standard"];
  if (standard.vendor === "zod") return;
  const converter = (standard as { jsonSchema?: { input?: unknown } }).jsonSchema;
  if (typeof converter?.input === "function") return;
  throw new AuthoringError(
    `${where}: the tool's inputSchema, a Standard Schema of vendor "${standard.vendor}", gives no JSON Schema (its "~standard" has no jsonSchema), which the AI SDK needs to show the model the tool's input; write the inputSchema with zod, or with another Standard Schema that gives one (arktype); runTool and bindScorer take the tool as it is`,
  );
}
