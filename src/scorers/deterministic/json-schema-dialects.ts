// The dialects and formats the validator registers, imported for their side effects. Named (not
// bare) imports, so that no .d.ts imports @hyperjump's declarations, which fail a consumer's
// type check with skipLibCheck off.

import * as draft07 from "@hyperjump/json-schema/draft-07";
import * as draft201909 from "@hyperjump/json-schema/draft-2019-09";
import { addKeyword, getKeyword } from "@hyperjump/json-schema/experimental";
import * as formats from "@hyperjump/json-schema/formats";
import { typeOf, value } from "@hyperjump/json-schema/instance/experimental";
import { compileLinearRegex, type LinearRegex } from "../../expect/linear-regex.js";
import { codePointCount } from "./code-points.js";

/** The modules loaded for their registrations. */
export const registeredDialects: readonly unknown[] = [draft201909, draft07, formats];

// The library counts a string's length by spreading it into an array of characters: a 50 MB
// output took minutes. The same keywords (every draft names them by these ids), counted in place.
for (const [id, fits] of [
  ["https://json-schema.org/keyword/maxLength", (length: number, bound: number) => length <= bound],
  ["https://json-schema.org/keyword/minLength", (length: number, bound: number) => length >= bound],
] as const) {
  addKeyword<number>({
    ...getKeyword<number>(id),
    interpret: (bound, instance) =>
      typeOf(instance) !== "string" || fits(codePointCount(value<string>(instance)), bound),
  });
}

/**
 * A schema's pattern on the linear-time engine (RE2), like every user pattern: the library's own
 * `RegExp` backtracks, and `^(a+)+$` against 40 characters never returned. A pattern RE2 cannot
 * run fails the schema's compilation with why, so the check is errored, not slow.
 */
function linear(pattern: RegExp): LinearRegex {
  const compiled = compileLinearRegex(pattern.source, pattern.flags);
  if (!compiled.ok) throw new Error(compiled.reason);
  return compiled.regex;
}

const PATTERN = "https://json-schema.org/keyword/pattern";
const patternKeyword = getKeyword<RegExp>(PATTERN);
addKeyword<LinearRegex>({
  id: PATTERN,
  compile: async (schema, ast, parent) => linear(await patternKeyword.compile(schema, ast, parent)),
  interpret: (pattern, instance) =>
    typeOf(instance) !== "string" || pattern.test(value<string>(instance)),
});

// Its interpretation only calls `test` on each pattern: the compiled pairs keep their schema.
const PATTERN_PROPERTIES = "https://json-schema.org/keyword/patternProperties";
const propertiesKeyword = getKeyword<[RegExp, string][]>(PATTERN_PROPERTIES);
addKeyword<[RegExp, string][]>({
  ...propertiesKeyword,
  compile: async (schema, ast, parent) =>
    (await propertiesKeyword.compile(schema, ast, parent)).map(
      ([pattern, uri]) => [linear(pattern) as unknown as RegExp, uri] as [RegExp, string],
    ),
});
