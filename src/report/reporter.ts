import type { RunSink } from "../runner/sink.js";

export type { EvalInfo, RunStartInfo } from "../runner/sink.js";

/**
 * Receives a run's progress: a reporter is a sink of the engine. Every hook is optional.
 * Records arrive in case order within each eval, and evals in discovery order, whatever the
 * concurrency.
 */
export type Reporter = RunSink;
