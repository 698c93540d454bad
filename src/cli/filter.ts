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

/**
 * What to say of a plain `--filter` that selected no case and reads as a regular expression
 * (`ok.*`, `^qa`), which is matched as the text it is: how to write it as one.
 */
export function regexFilterHint(text: string): string | undefined {
  if (/^\/.+\/[a-z]*$/.test(text) || !/[*+?^$|()[\]\\]/.test(text)) return undefined;
  return `--filter matches the text as written; for a regular expression write it between slashes: --filter "/${text}/"`;
}
