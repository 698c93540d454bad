// The dialects and formats the validator registers, imported for their side effects. Named (not
// bare) imports, so that no .d.ts imports @hyperjump's declarations, which fail a consumer's
// type check with skipLibCheck off.

import * as draft07 from "@hyperjump/json-schema/draft-07";
import * as draft201909 from "@hyperjump/json-schema/draft-2019-09";
import * as formats from "@hyperjump/json-schema/formats";

/** The modules loaded for their registrations. */
export const registeredDialects: readonly unknown[] = [draft201909, draft07, formats];
