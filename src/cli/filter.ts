import { NiceevalError } from "../errors.js";
import { compileLinearRegex } from "../expect/linear-regex.js";

/** Build the case filter of `--filter`. */
export function makeFilter(text: string): (evalId: string, caseId: string) => boolean {
  const regex = /^\/(.+)\/([a-z]*)$/.exec(text);
  if (regex) {
    // Linear time (RE2), like every user pattern: a filter cannot hang the run either.
    const compiled = compileLinearRegex(regex[1]!, regex[2]);
    if (!compiled.ok) throw new NiceevalError("USAGE", `--filter: ${compiled.reason}`);
    const pattern = compiled.regex;
    return (evalId, caseId) => pattern.test(evalId) || pattern.test(`${evalId}/${caseId}`);
  }
  return (evalId, caseId) => evalId.includes(text) || `${evalId}/${caseId}`.includes(text);
}
