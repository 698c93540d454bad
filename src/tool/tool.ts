import type { z } from "zod";

/**
 * A tool contract: an id, a description and the schemas of what goes in and what comes out.
 * It holds no behaviour; a driver implements it.
 */
export interface Tool<Input = unknown, Output = unknown> {
  readonly kind: "tool";
  readonly id: string;
  readonly description: string;
  readonly inputSchema: z.ZodType<Input>;
  readonly outputSchema: z.ZodType<Output>;
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

/**
 * Declare a tool contract.
 * @example
 * const echo = defineTool({ id: "demo.echo", description: "echo", inputSchema: z.string(), outputSchema: z.string() });
 */
export function defineTool<Input, Output>(definition: {
  id: string;
  description: string;
  inputSchema: z.ZodType<Input>;
  outputSchema: z.ZodType<Output>;
}): Tool<Input, Output> {
  return Object.freeze({ kind: "tool" as const, ...definition });
}

/** Attach behaviour to a tool contract. */
export function implementTool<Input, Output>(
  tool: Tool<Input, Output>,
  run: (input: Input, context: ToolContext) => Output | Promise<Output>,
): ToolImplementation<Input, Output> {
  return Object.freeze({ kind: "tool-implementation" as const, tool, run });
}

/** Bundle implementations under a driver id. */
export function defineDriver(definition: {
  id: string;
  // biome-ignore lint/suspicious/noExplicitAny: implementations of different tools coexist here
  implementations: readonly ToolImplementation<any, any>[];
}): Driver {
  const map = new Map<string, ToolImplementation<never, unknown>>();
  for (const implementation of definition.implementations) {
    map.set(
      implementation.tool.id,
      implementation as unknown as ToolImplementation<never, unknown>,
    );
  }
  return Object.freeze({ kind: "driver" as const, id: definition.id, implementations: map });
}
