export { runTool, resolveImplementation, type RunToolOptions } from "./run-tool.js";
export {
  defineTool,
  implementTool,
  defineDriver,
  type Tool,
  type ToolImplementation,
  type ToolContext,
  type Driver,
} from "./tool.js";
