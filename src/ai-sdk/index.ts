// The `niceeval/ai-sdk` entry: AI SDK models as judges, niceeval tools as AI SDK tools.
// `ai` is an optional peer dependency: it is loaded only when a judge first calls a model.
export { closeQAFromAiSdk, judgeFromAiSdk } from "./judge.js";
export { aiSdkJudgeProvider, aiSdkModelName } from "./provider.js";
export { type AiSdkTool, toAiSdkTool } from "./tool.js";
