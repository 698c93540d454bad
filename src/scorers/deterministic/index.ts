export {
  type AgentRun,
  calls,
  type ExpectedCalls,
  type Mark,
  type ToolCall,
} from "./calls.js";
export { type ExactMatchInput, exactMatch, exactMatchImpl, exactMatchTool } from "./exact-match.js";
export {
  type CompiledJsonSchema,
  compileJsonSchema,
  type Draft,
  type FormatMode,
  type JsonSchema,
  type JsonSchemaCheck,
  type JsonSchemaObject,
  type JsonSchemaOptions,
  KNOWN_FORMATS,
  type MinimalJsonSchema,
} from "./json-schema.js";
export {
  type JsonSchemaScore,
  type JsonSchemaValidInput,
  jsonSchemaScoreSchema,
  jsonSchemaValid,
  jsonSchemaValidImpl,
  jsonSchemaValidTool,
  standardSchemaValid,
} from "./json-schema-valid.js";
export {
  type LatencyBudgetInput,
  latencyBudget,
  latencyBudgetImpl,
  latencyBudgetTool,
} from "./latency-budget.js";
export { evalScorersProvider } from "./provider.js";
export {
  type RegexMatchInput,
  regexMatch,
  regexMatchImpl,
  regexMatchTool,
} from "./regex-match.js";
