import { runReading } from "../runner/globals.js";

/**
 * The `fetch` judge calls go through: the one the run found as it started (runner/globals.ts,
 * read once its eval files loaded, so a fetch an eval file installs on purpose is kept), not one
 * the code under test put in its place while attempts run (a target mocking its model through
 * `globalThis.fetch` would otherwise answer the judge too, and its answer be cached). Outside a
 * run (a judge called from a Vitest test), the global as it is.
 */
export function hostFetch(): typeof fetch {
  const found = runReading("fetch");
  return typeof found === "function" ? (found as typeof fetch) : fetch;
}
