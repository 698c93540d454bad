/** Adapters and the evals built on them (exported from `niceeval`). */

export { closeQADefaults } from "./close-qa.js";
export { defineAdapter } from "./define-adapter.js";
export type {
  Adapter,
  AdapterCreateContext,
  AdapterDefinition,
  AssertionHandle,
  AssertionTools,
  CheckFn,
  CloseQAMaterial,
  CloseQAOptions,
  EvalRunOptions,
  ScoreEval,
  ScoreEvalDefinition,
  TestContext,
  TestTools,
  UsageMaterial,
  UsageReport,
} from "./types.js";
