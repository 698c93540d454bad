import type { StandardSchemaV1 } from "@standard-schema/spec";
import type { z } from "zod";
import { AuthoringError } from "../errors.js";
import { type KnownKeys, refuseUnknownKeys } from "../known-keys.js";
import { requireFunction, requireText, valueKind } from "../required.js";
import { isStandardSchema } from "./standard-schema.js";

/**
 * A schema a tool checks its input or output with: a zod schema, or any Standard Schema
 * (valibot, arktype…) producing `T`.
 */
export type ToolSchema<T> = z.ZodType<T> | StandardSchemaV1<unknown, T>;

/**
 * A tool contract: an id, a description and the schemas of what goes in and what comes out.
 * It holds no behaviour; a driver implements it.
 */
export interface Tool<Input = unknown, Output = unknown> {
  readonly kind: "tool";
  readonly id: string;
  readonly description: string;
  readonly inputSchema: ToolSchema<Input>;
  readonly outputSchema: ToolSchema<Output>;
  /**
   * Never set: the input type as a parameter, so a binding can check at compile time that the
   * tool takes every value its mapInput returns (`ScorerBinding`). A method, so `Tool` itself
   * stays covariant in its input.
   */
  "~takes"?(input: Input): void;
}

/** Context handed to a tool implementation. */
export interface ToolContext {
  readonly signal?: AbortSignal;
}

/** The behaviour behind one tool. */
export interface ToolImplementation<Input = unknown, Output = unknown> {
  readonly kind: "tool-implementation";
  readonly tool: Tool<Input, Output>;
  readonly run: (input: Input, context: ToolContext) => Output | Promise<Output>;
}

/** A named bundle of tool implementations (a provider is a driver shipped by a package). */
export interface Driver {
  readonly kind: "driver";
  readonly id: string;
  readonly implementations: ReadonlyMap<string, ToolImplementation<never, unknown>>;
}

/** Definition accepted by {@link defineTool}. */
export interface ToolDefinition<Input, Output> {
  id: string;
  description: string;
  inputSchema: ToolSchema<Input>;
  outputSchema: ToolSchema<Output>;
}
const toolDefinitionKeys = {
  id: true,
  description: true,
  inputSchema: true,
  outputSchema: true,
} satisfies KnownKeys<ToolDefinition<unknown, unknown>>;

/**
 * Declare a tool contract. Its schemas are zod schemas or any Standard Schema.
 * @example
 * const echo = defineTool({ id: "demo.echo", description: "echo", inputSchema: z.string(), outputSchema: z.string() });
 * @throws AuthoringError when `id` or `description` is not a non-empty string, or a schema is
 * neither (the message names the tool and the field).
 */
export function defineTool<Input, Output>(
  definition: ToolDefinition<Input, Output>,
): Tool<Input, Output> {
  if (typeof definition !== "object" || definition === null)
    throw new AuthoringError(
      `defineTool: pass { id, description, inputSchema, outputSchema }, got ${valueKind(definition)}`,
    );
  const id = (definition as { id?: unknown }).id;
  const where = typeof id === "string" ? `defineTool("${id}")` : "defineTool";
  refuseUnknownKeys(where, definition, toolDefinitionKeys);
  requireText(where, "id", id, 'the tool\'s name ("acme.cite-check")');
  requireText(
    where,
    "description",
    definition.description,
    "what the tool does (an AI SDK agent's model reads it)",
  );
  for (const field of ["inputSchema", "outputSchema"] as const) {
    if (!isStandardSchema(definition[field]))
      throw new AuthoringError(
        `tool "${definition.id}": ${field} is not a schema (got ${describe(definition[field])}); pass a zod schema or a Standard Schema (valibot, arktype…), one that has a "~standard" property`,
      );
  }
  return Object.freeze({ kind: "tool" as const, ...definition });
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? 'an object without "~standard"' : typeof value;
}

/**
 * Attach behaviour to a tool contract. What `run` returns is checked at run time by the tool's
 * output schema (a `ToolOutputError` naming the tool and the field). It is not checked at compile
 * time against the schema's output type: a schema with defaults or transforms accepts less than
 * it returns (`tags: z.array(z.string()).default([])` may be left out), and a tool keeps only
 * its output type.
 * @throws AuthoringError when `tool` is not defineTool's or `run` not a function.
 */
export function implementTool<Input, Output>(
  tool: Tool<Input, Output>,
  run: (input: Input, context: ToolContext) => Output | Promise<Output>,
): ToolImplementation<Input, Output> {
  const notTool = notATool(tool);
  if (notTool !== undefined)
    throw new AuthoringError(
      `implementTool: \`tool\` must be a tool made by defineTool, got ${notTool}; pass implementTool(tool, run)`,
    );
  requireFunction(`implementTool("${tool.id}")`, "run", run, "(input, context) => output");
  return Object.freeze({ kind: "tool-implementation" as const, tool, run });
}

/** Cheap checks of the inputs of the implementations niceeval ships (see {@link implementBuiltInTool}). */
const builtInChecks = new WeakMap<object, (input: unknown) => boolean>();

/**
 * Internal: attach behaviour that niceeval ships, with a cheap check of its input. Run under its
 * own contract ({@link builtInCheck}), an input that `accepts` takes is one the input schema
 * accepts unchanged, so it is handed on without a parse (any other input still goes through the
 * schema, which decides and words the error); and `run` only returns values its output schema
 * accepts, so they are not parsed again either. Its context may be a frozen one shared by calls.
 */
export function implementBuiltInTool<Input, Output>(
  tool: Tool<Input, Output>,
  run: (input: Input, context: ToolContext) => Output | Promise<Output>,
  accepts: (input: unknown) => boolean,
): ToolImplementation<Input, Output> {
  const implementation = implementTool(tool, run);
  builtInChecks.set(implementation, accepts);
  return implementation;
}

/** Internal: the input check of a built-in implementation run under its own contract `tool`. */
export function builtInCheck(
  implementation: ToolImplementation<never, unknown>,
  tool: Tool<never, unknown>,
): ((input: unknown) => boolean) | undefined {
  return implementation.tool === tool ? builtInChecks.get(implementation) : undefined;
}

/** Internal: what an object schema takes at all (an object that is not an array), for input checks. */
export function isObjectInput(input: unknown): input is Record<string, unknown> {
  return typeof input === "object" && input !== null && !Array.isArray(input);
}

/**
 * Internal: whether `input` has no key but `keys`, for input checks. An input with another key
 * goes through the schema, which refuses one that misspells a known key (`trimm`).
 */
export function hasOnlyKeys(input: object, keys: ReadonlySet<string>): boolean {
  for (const key in input) if (!keys.has(key)) return false;
  return true;
}

/**
 * Internal: what `value` is instead of a driver, worded to follow "is", or undefined when it is
 * one. A tool implementation or a tool in its place is named, with what to pass.
 * @example
 * notADriver(exactMatchImpl); // "a tool implementation, not a driver: bundle it with defineDriver({ id, implementations: [it] })"
 */
export function notADriver(value: unknown): string | undefined {
  const kind = (value as { kind?: unknown } | null | undefined)?.kind;
  if (kind === "driver") return undefined;
  if (kind === "tool-implementation")
    return "a tool implementation, not a driver: bundle it with defineDriver({ id, implementations: [it] })";
  if (kind === "tool")
    return "a tool, not a driver: pass a driver that implements it, such as evalScorersProvider";
  return `${valueKind(value)}, not a driver (defineDriver's result, such as evalScorersProvider)`;
}

/**
 * Internal: what `value` is instead of a tool, worded to follow "got", or undefined when it is
 * defineTool's (kind "tool", with an id).
 */
export function notATool(value: unknown): string | undefined {
  const kind = (value as { kind?: unknown } | null | undefined)?.kind;
  if (kind === "tool" && typeof (value as { id?: unknown }).id === "string") return undefined;
  if (kind === "driver") return "a driver";
  if (kind === "tool-implementation") return "a tool implementation (pass its tool)";
  if (typeof value === "object" && value !== null && !Array.isArray(value))
    return 'an object that is not a tool (it has no kind "tool")';
  return valueKind(value);
}

/** Definition accepted by {@link defineDriver}. */
export interface DriverDefinition {
  id: string;
  // biome-ignore lint/suspicious/noExplicitAny: implementations of different tools coexist here
  implementations: readonly ToolImplementation<any, any>[];
}
const driverDefinitionKeys = {
  id: true,
  implementations: true,
} satisfies KnownKeys<DriverDefinition>;

/**
 * Bundle implementations under a driver id.
 * @throws AuthoringError when `id` is not a non-empty string, `implementations` not an array
 * of implementTool's results, or two of them implement one tool (the message names the driver
 * and the entry or the tool).
 */
export function defineDriver(definition: DriverDefinition): Driver {
  if (typeof definition !== "object" || definition === null)
    throw new AuthoringError(
      `defineDriver: pass { id, implementations }, got ${valueKind(definition)}`,
    );
  const id = (definition as { id?: unknown }).id;
  const where = typeof id === "string" ? `defineDriver("${id}")` : "defineDriver";
  refuseUnknownKeys(where, definition, driverDefinitionKeys);
  requireText(where, "id", id, 'the driver\'s name ("acme")');
  refuseNotImplementations(where, definition.implementations);
  const map = new Map<string, ToolImplementation<never, unknown>>();
  for (const implementation of definition.implementations) {
    const earlier = map.get(implementation.tool.id);
    // The same implementation twice (two providers that share one) is one.
    if (earlier !== undefined && (earlier as unknown) !== implementation)
      throw new AuthoringError(
        `${where}: two implementations of tool "${implementation.tool.id}"; a driver runs one implementation per tool: keep one, or put the other in a driver of its own`,
      );
    map.set(
      implementation.tool.id,
      implementation as unknown as ToolImplementation<never, unknown>,
    );
  }
  return Object.freeze({ kind: "driver" as const, id: definition.id, implementations: map });
}

/** Refuse `implementations` that is not an array of implementTool's results. */
function refuseNotImplementations(where: string, implementations: unknown): void {
  if (!Array.isArray(implementations))
    throw new AuthoringError(
      `${where}: \`implementations\` must be an array of implementTool(tool, run) results, got ${valueKind(implementations)}`,
    );
  implementations.forEach((given: unknown, index) => {
    const kind = (given as { kind?: unknown } | null | undefined)?.kind;
    if (kind === "tool-implementation") return;
    const what =
      kind === "tool"
        ? `a tool ("${(given as Tool).id}"), not its implementation: pass implementTool(tool, run)`
        : `${valueKind(given)}, not an implementation: pass implementTool(tool, run)`;
    throw new AuthoringError(`${where}: \`implementations[${index}]\` is ${what}`);
  });
}
