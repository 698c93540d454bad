// Benchmark of eval.json-schema-valid (run by `npm run bench`, or alone after `npm run build`):
// agreement with the required JSON-Schema-Test-Suite tests of each draft, and validations per
// second over the same tests with every schema compiled beforehand (median of several runs).
import { cpus } from "node:os";
import { compileJsonSchema } from "../dist/scorers/index.js";
import { loadSuite } from "../test/fixtures/json-schema-test-suite/load.mjs";
import { median } from "./stats.mjs";

// Formats as each draft defines them: draft-07 asserts them, 2020-12 makes them annotations.
const DRAFTS = [
  ["draft-07", "assert"],
  ["2020-12", "annotate"],
];

async function prepare(draft) {
  const prepared = [];
  for (const group of loadSuite(draft)) {
    prepared.push({
      compiled: await compileJsonSchema(group.schema, { draft }),
      tests: group.tests,
    });
  }
  return prepared;
}

function agreement(prepared, formats) {
  let agreed = 0;
  let total = 0;
  for (const { compiled, tests } of prepared) {
    for (const test of tests) {
      total++;
      if (compiled.ok && (compiled.check(test.data, formats).outcome === "valid") === test.valid)
        agreed++;
    }
  }
  return { agreed, total };
}

function rate(prepared, formats, millis) {
  const usable = prepared.filter(({ compiled }) => compiled.ok);
  let count = 0;
  const started = performance.now();
  while (performance.now() - started < millis) {
    for (const { compiled, tests } of usable) {
      for (const test of tests) compiled.check(test.data, formats);
      count += tests.length;
    }
  }
  return count / ((performance.now() - started) / 1000);
}

// A schema as evals write them (an order with items, formats and a oneOf), half the values invalid.
const order = {
  type: "object",
  required: ["id", "email", "items"],
  properties: {
    id: { type: "string" },
    email: { type: "string", format: "email" },
    items: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        required: ["sku", "price"],
        properties: { sku: { type: "string" }, price: { type: "number", minimum: 0 } },
      },
    },
    payment: { oneOf: [{ required: ["card"] }, { required: ["iban"] }] },
  },
};
const orders = [
  { id: "o-1", email: "ada@example.com", items: [{ sku: "a", price: 1 }], payment: { card: "4" } },
  { id: "o-2", email: "ada@example.com", items: [{ sku: "a", price: "1" }] },
];

/** Print agreement and validations per second for each draft. */
export async function run({ quick = false } = {}) {
  const runs = quick ? 3 : 5;
  const millis = quick ? 300 : 1000;
  for (const [draft, formats] of DRAFTS) {
    const prepared = await prepare(draft);
    const { agreed, total } = agreement(prepared, formats);
    rate(prepared, formats, quick ? 500 : 1000); // warm-up: the first passes run before the JIT settles
    const rates = Array.from({ length: runs }, () => rate(prepared, formats, millis));
    console.log(
      `json-schema ${draft}: ${agreed}/${total} required suite tests agree (${((agreed / total) * 100).toFixed(2)}%), ${Math.round(median(rates)).toLocaleString("en-US")} validations/s over the suite's tests (median of ${runs}, ${cpus()[0]?.model ?? "unknown cpu"})`,
    );
  }

  const compiled = await compileJsonSchema(order);
  const typical = [{ compiled, tests: orders.map((data) => ({ data })) }];
  rate(typical, "assert", quick ? 500 : 1000);
  const rates = Array.from({ length: runs }, () => rate(typical, "assert", millis));
  console.log(
    `json-schema order schema (half invalid, with reasons): ${Math.round(median(rates)).toLocaleString("en-US")} validations/s (median of ${runs})`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`)
  await run({ quick: process.argv.includes("--quick") });
