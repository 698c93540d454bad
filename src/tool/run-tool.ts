import type { StandardSchemaV1 } from "@standard-schema/spec";
import type { z } from "zod";
import {
  AuthoringError,
  ToolInputError,
  ToolNotImplementedError,
  ToolOutputError,
} from "../errors.js";
import { valueKind } from "../required.js";
import { formatIssues } from "./issues.js";
import { implementationAdvice } from "./shipped-driver.js";
import {
  builtInCheck,
  type Driver,
  notADriver,
  type Tool,
  type ToolContext,
  type ToolImplementation,
  type ToolSchema,
} from "./tool.js";

/** Options of {@link runTool}. */
export interface RunToolOptions<Input, Output> {
  tool: Tool<Input, Output>;
  /** Drivers to pick from; the first that implements the tool runs it. */
  candidates: readonly Driver[];
  input: Input;
  signal?: AbortSignal | undefined;
}

/**
 * Find the implementation of a tool among candidate drivers.
 * @throws AuthoringError when `candidates` is not an array of drivers (the message names the
 * candidate and what it is); ToolNotImplementedError when no candidate implements the tool.
 */
export function resolveImplementation<Input, Output>(
  tool: Tool<Input, Output>,
  candidates: readonly Driver[],
): ToolImplementation<Input, Output> {
  if (!Array.isArray(candidates)) {
    throw new AuthoringError(
      `runTool("${tool.id}"): \`candidates\` must be an array of drivers, got ${valueKind(candidates)}; pass candidates: [driver], such as [evalScorersProvider]`,
    );
  }
  for (let index = 0; index < candidates.length; index++) {
    const driver = candidates[index];
    const problem = notADriver(driver);
    if (problem !== undefined)
      throw new AuthoringError(`runTool("${tool.id}"): candidates[${index}] is ${problem}`);
    const found = (driver as Driver).implementations.get(tool.id);
    if (found) return found as unknown as ToolImplementation<Input, Output>;
  }
  throw new ToolNotImplementedError(
    tool.id,
    candidates.map((driver) => driver.id),
    implementationAdvice(tool, "candidates"),
  );
}

/**
 * Run a tool through the first candidate that implements it, validating the input
 * against the tool's inputSchema and the result against its outputSchema.
 * @throws ToolInputError when the input fails the schema (the error names the field);
 * AuthoringError when `tool` is not a tool or `candidates` not an array of drivers.
 */
export async function runTool<Input, Output>(
  options: RunToolOptions<Input, Output>,
): Promise<Output> {
  if (typeof options !== "object" || options === null) {
    throw new AuthoringError(
      `runTool: pass { tool, candidates, input }, got ${valueKind(options)}`,
    );
  }
  const { tool, candidates, input, signal } = options;
  if ((tool as { kind?: unknown } | undefined)?.kind !== "tool") {
    throw new AuthoringError(
      `runTool: \`tool\` must be a tool (defineTool's result, such as exactMatchTool), got ${valueKind(tool)}`,
    );
  }
  const implementation = resolveImplementation(tool, candidates);
  const data = await checkInput(tool, input);
  const output = await implementation.run(data, signal ? { signal } : {});
  return checkOutput(tool, output);
}

/** What a schema answers for a value: zod's own parse, or a Standard Schema's `validate`. */
type Checked<T> = { value: T } | { issues: readonly StandardSchemaV1.Issue[] };

function check<T>(schema: ToolSchema<T>, value: unknown): Checked<T> | Promise<Checked<T>> {
  if (typeof (schema as z.ZodType<T>).safeParse === "function") {
    const parsed = (schema as z.ZodType<T>).safeParse(value);
    return parsed.success ? { value: parsed.data } : { issues: parsed.error.issues as never };
  }
  const result = (schema as StandardSchemaV1<unknown, T>)["~standard"].validate(value);
  if (!isThenable(result)) return checkedResult(result);
  return Promise.resolve(result).then(checkedResult);
}

function checkedResult<T>(result: StandardSchemaV1.Result<T>): Checked<T> {
  return result.issues ? { issues: result.issues } : { value: result.value };
}

/**
 * Internal: the ToolInputError runTool gives `input` (naming the field), or undefined when the
 * tool's input schema accepts it or answers asynchronously. For built-in scorers called directly.
 */
export function toolInputError<Input, Output>(
  tool: Tool<Input, Output>,
  input: unknown,
): ToolInputError | undefined {
  const checked = check(tool.inputSchema, input);
  if (isThenable(checked) || !("issues" in checked)) return undefined;
  return new ToolInputError(tool.id, formatIssues(checked.issues));
}

/** The input as the tool's input schema parses it; throws ToolInputError (or rejects with it). */
function checkInput<Input>(tool: Tool<Input, unknown>, input: unknown): Input | Promise<Input> {
  const answer = (checked: Checked<Input>): Input => {
    if ("issues" in checked) throw new ToolInputError(tool.id, formatIssues(checked.issues));
    return checked.value;
  };
  const checked = check(tool.inputSchema, input);
  return isThenable(checked) ? Promise.resolve(checked).then(answer) : answer(checked);
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
  const data = accepts?.(input) ? input : checkInput(tool, input);
  if (isThenable(data))
    return Promise.resolve(data).then((value) => runChecked(tool, implementation, value, signal));
  if (accepts !== undefined) return implementation.run(data, builtInContext(signal));
  return runChecked(tool, implementation, data, signal);
}

/** Run a user implementation on checked input, and check what it returns. */
function runChecked<Input, Output>(
  tool: Tool<Input, Output>,
  implementation: ToolImplementation<Input, Output>,
  data: Input,
  signal: AbortSignal | undefined,
): Output | Promise<Output> {
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

/** The output as the tool's output schema parses it; throws ToolOutputError (or rejects with it). */
function checkOutput<Output>(
  tool: Tool<unknown, Output>,
  output: unknown,
): Output | Promise<Output> {
  const answer = (checked: Checked<Output>): Output => {
    if ("issues" in checked) throw new ToolOutputError(tool.id, formatIssues(checked.issues));
    return checked.value;
  };
  const checked = check(tool.outputSchema, output);
  return isThenable(checked) ? Promise.resolve(checked).then(answer) : answer(checked);
}

/** Whether `await` would wait for `value` (it has a `then` method). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === "object" || typeof value === "function") &&
    typeof (value as { then?: unknown }).then === "function"
  );
}
