import type { Tool } from "./tool.js";

/** The driver niceeval ships for one of its tools: its export and how it is passed. */
interface ShippedDriver {
  /** The export of `niceeval/scorers` (`evalScorersProvider`, `makeLlmJudgeDriver`). */
  readonly name: string;
  /** How it is passed: the export itself, or a call of it (`makeLlmJudgeDriver(judge)`). */
  readonly expression: string;
}

// Keyed on the tool itself: a tool of the user's with a built-in tool's id gets no advice.
const shipped = new WeakMap<object, ShippedDriver>();

/**
 * Internal: note that `name`, exported by `niceeval/scorers`, implements `tool`, passed as
 * `expression`, so a driver that does not is refused with the one that does.
 */
export function noteShippedDriver(tool: Tool, name: string, expression: string = name): void {
  shipped.set(tool, { name, expression });
}

/**
 * What to pass as `option` (a binding's `driver`, runTool's `candidates`) when what was passed
 * does not implement `tool`: the driver niceeval ships for it with its import, or one's own.
 * @example
 * implementationAdvice(textStatsTool, "driver");
 * // → 'pass driver: evalScorersProvider (import { evalScorersProvider } from "niceeval/scorers")'
 */
export function implementationAdvice(tool: Tool, option: "driver" | "candidates"): string {
  const driver = shipped.get(tool);
  if (driver === undefined)
    return `pass ${option === "driver" ? "as `driver`" : "in `candidates`"} a driver that implements it: defineDriver({ id, implementations: [implementTool(tool, run)] })`;
  const given = option === "driver" ? driver.expression : `[${driver.expression}]`;
  return `pass ${option}: ${given} (import { ${driver.name} } from "niceeval/scorers")`;
}
