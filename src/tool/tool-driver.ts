import { AuthoringError } from "../errors.js";
import { implementationAdvice } from "./shipped-driver.js";
import { type Driver, notADriver, notATool, type Tool } from "./tool.js";

/**
 * Refuse, when a definition pairs a tool with the driver that is to run it (a scorer binding, an
 * AI SDK tool), a `driver` that is not a driver, a `tool` that is not defineTool's, and a driver
 * that does not implement the tool: each would otherwise fail on every call. `where` names the
 * definition (`bindScorer("exact")`, `toAiSdkTool("acme.cite")`).
 * @example
 * refuseToolDriver('toAiSdkTool("eval.exact-match")', exactMatchTool, styleScorersProvider);
 * // AuthoringError: …`driver` niceeval.style-scorers does not implement tool "eval.exact-match"; pass driver: evalScorersProvider (…)
 */
export function refuseToolDriver(
  where: string,
  tool: unknown,
  driver: unknown,
): asserts driver is Driver {
  const notDriver = notADriver(driver);
  if (notDriver !== undefined) throw new AuthoringError(`${where}: \`driver\` is ${notDriver}`);
  const problem = notATool(tool);
  if (problem !== undefined)
    throw new AuthoringError(
      `${where}: \`tool\` must be a tool made by defineTool (a built-in one: exactMatchTool, regexMatchTool, …), got ${problem}`,
    );
  const id = (tool as Tool).id;
  if (!(driver as Driver).implementations.has(id))
    throw new AuthoringError(
      `${where}: \`driver\` ${(driver as Driver).id} does not implement tool "${id}"; ${implementationAdvice(tool as Tool, "driver")}`,
    );
}
