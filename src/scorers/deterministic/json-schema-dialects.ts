// The dialects and formats the validator registers, imported for their side effects. Named (not
// bare) imports, so that no .d.ts imports @hyperjump's declarations, which fail a consumer's
// type check with skipLibCheck off.

import * as draft07 from "@hyperjump/json-schema/draft-07";
import * as draft201909 from "@hyperjump/json-schema/draft-2019-09";
import { addKeyword, getKeyword } from "@hyperjump/json-schema/experimental";
import * as formats from "@hyperjump/json-schema/formats";
import { typeOf, value } from "@hyperjump/json-schema/instance/experimental";
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
