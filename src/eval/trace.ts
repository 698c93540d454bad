import type { Trace, TraceStep } from "./record.js";

/**
 * What a target or adapter uses to say what it did: the messages it exchanged and the tools it
 * called. The steps land on the attempt's record and in the store, in the order reported.
 */
export class TraceRecorder {
  private readonly steps: TraceStep[] = [];

  /** A message: a user turn, the model's answer, a system prompt. */
  message(role: string, content: unknown): void {
    this.steps.push({ kind: "message", role, content });
  }

  /** A tool call, with its output or the error it ended in. */
  toolCall(
    name: string,
    input: unknown,
    result?: { output?: unknown; error?: string | undefined },
  ): void {
    const step: TraceStep = { kind: "tool-call", name, input };
    if (result?.output !== undefined) step.output = result.output;
    if (result?.error !== undefined) step.error = result.error;
    this.steps.push(step);
  }

  /** The trace so far, or undefined when nothing was reported. */
  take(): Trace | undefined {
    return this.steps.length > 0 ? { steps: [...this.steps] } : undefined;
  }
}
