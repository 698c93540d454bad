export { type RunToolOptions, resolveImplementation, runTool } from "./run-tool.js";
export { isStandardSchema, issuePointer } from "./standard-schema.js";
export {
  type Driver,
  defineDriver,
  defineTool,
  implementTool,
  type Tool,
  type ToolContext,
  type ToolImplementation,
  type ToolSchema,
} from "./tool.js";
