import { ToolInputError, ToolNotImplementedError, ToolOutputError } from "../errors.js";
import { formatIssues } from "./issues.js";
import {
  builtInCheck,
  type Driver,
  type Tool,
  type ToolContext,
  type ToolImplementation,
} from "./tool.js";

/** Options of {@link runTool}. */
export interface RunToolOptions<Input, Output> {
  tool: Tool<Input, Output>;
  /** Drivers to pick from; the first that implements the tool runs it. */
  candidates: readonly Driver[];
  input: Input;
  signal?: AbortSignal;
}

/** Find the implementation of a tool among candidate drivers. */
export function resolveImplementation<Input, Output>(
  tool: Tool<Input, Output>,
  candidates: readonly Driver[],
): ToolImplementation<Input, Output> {
  for (const driver of candidates) {
    const found = driver.implementations.get(tool.id);
    if (found) return found as unknown as ToolImplementation<Input, Output>;
  }
  throw new ToolNotImplementedError(
    tool.id,
    candidates.map((driver) => driver.id),
  );
}

/**
 * Run a tool through the first candidate that implements it, validating the input
 * against the tool's inputSchema and the result against its outputSchema.
 * @throws ToolInputError when the input fails the schema (the error names the field).
 */
export async function runTool<Input, Output>(
  options: RunToolOptions<Input, Output>,
): Promise<Output> {
  const { tool, candidates, input, signal } = options;
  const implementation = resolveImplementation(tool, candidates);
  const parsedInput = tool.inputSchema.safeParse(input);
  if (!parsedInput.success) {
    throw new ToolInputError(tool.id, formatIssues(parsedInput.error.issues as never));
  }
  const output = await implementation.run(parsedInput.data, signal ? { signal } : {});
  const parsedOutput = tool.outputSchema.safeParse(output);
  if (!parsedOutput.success) {
    throw new ToolOutputError(tool.id, formatIssues(parsedOutput.error.issues as never));
  }
  return parsedOutput.data;
}

/**
 * Internal: {@link runTool} for the engine's hot path, synchronous when the implementation is.
 * A built-in implementation under its own contract skips the parses its input check and its
 * known output make redundant (see `implementBuiltInTool`); everything else is checked exactly
 * as runTool checks it. Throws (or rejects) with runTool's errors.
 */
export function callTool<Input, Output>(
  tool: Tool<Input, Output>,
  candidates: readonly Driver[],
  input: Input,
  signal: AbortSignal | undefined,
): Output | Promise<Output> {
  const implementation = resolveImplementation(tool, candidates);
  const accepts = builtInCheck(
    implementation as unknown as ToolImplementation<never, unknown>,
    tool as unknown as Tool<never, unknown>,
  );
  let data: Input;
  if (accepts?.(input)) data = input;
  else {
    const parsedInput = tool.inputSchema.safeParse(input);
    if (!parsedInput.success) {
      throw new ToolInputError(tool.id, formatIssues(parsedInput.error.issues as never));
    }
    data = parsedInput.data;
  }
  if (accepts !== undefined) return implementation.run(data, builtInContext(signal));
  const output = implementation.run(data, signal ? { signal } : {});
  if (isThenable(output)) return Promise.resolve(output).then((value) => checkOutput(tool, value));
  return checkOutput(tool, output);
}

// Built-in implementations neither keep nor change their context: the last signal's is shared.
let lastContext: ToolContext = Object.freeze({});
function builtInContext(signal: AbortSignal | undefined): ToolContext {
  if (lastContext.signal !== signal) lastContext = Object.freeze(signal ? { signal } : {});
  return lastContext;
}

function checkOutput<Output>(tool: Tool<unknown, Output>, output: unknown): Output {
  const parsedOutput = tool.outputSchema.safeParse(output);
  if (!parsedOutput.success) {
    throw new ToolOutputError(tool.id, formatIssues(parsedOutput.error.issues as never));
  }
  return parsedOutput.data;
}

/** Whether `await` would wait for `value` (it has a `then` method). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === "object" || typeof value === "function") &&
    typeof (value as { then?: unknown }).then === "function"
  );
}
