// One-off measurement that chose eval.json-schema-valid's validator: each candidate on the
// required tests of the vendored JSON-Schema-Test-Suite (formats as each draft defines them).
// `node bench/json-schema-candidates.mjs`; it needs ajv, ajv-formats and @cfworker/json-schema.
import * as Hyperjump from "@hyperjump/json-schema/draft-2020-12";
import "@hyperjump/json-schema/draft-07";
import "@hyperjump/json-schema/formats";
import { Validator } from "@cfworker/json-schema";
import Ajv07 from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { loadSuite } from "../test/fixtures/json-schema-test-suite/load.mjs";

let uri = 0;
const candidates = {
  ajv: (schema, draft) => {
    const ajv =
      draft === "draft-07"
        ? new Ajv07.default({ strict: false, logger: false })
        : new Ajv2020.default({ strict: false, logger: false });
    addFormats.default(ajv);
    const validate = ajv.compile(schema);
    return (data) => validate(data);
  },
  cfworker: (schema, draft) => {
    const validator = new Validator(schema, draft === "draft-07" ? "7" : "2020-12", true);
    return (data) => validator.validate(data).valid;
  },
  hyperjump: async (schema, draft) => {
    const id = `https://niceeval.invalid/candidate/${uri++}`;
    const before = new Set(Hyperjump.getAllRegisteredSchemaUris());
    Hyperjump.registerSchema(
      schema,
      id,
      draft === "draft-07"
        ? "http://json-schema.org/draft-07/schema"
        : "https://json-schema.org/draft/2020-12/schema",
    );
    try {
      const validate = await Hyperjump.validate(id);
      return (data) => validate(data).valid;
    } finally {
      for (const known of Hyperjump.getAllRegisteredSchemaUris())
        if (!before.has(known)) Hyperjump.unregisterSchema(known);
    }
  },
};

for (const [name, compile] of Object.entries(candidates)) {
  for (const draft of ["draft-07", "2020-12"]) {
    let agreed = 0;
    let total = 0;
    let threw = 0;
    for (const group of loadSuite(draft)) {
      let validate;
      try {
        validate = await compile(group.schema, draft);
      } catch {
        threw += group.tests.length;
        total += group.tests.length;
        continue;
      }
      for (const test of group.tests) {
        total++;
        try {
          if (validate(test.data) === test.valid) agreed++;
        } catch {
          threw++;
        }
      }
    }
    console.log(
      `${name} ${draft}: ${agreed}/${total} agree (${((agreed / total) * 100).toFixed(1)}%), ${threw} threw`,
    );
  }
}
