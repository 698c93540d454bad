import { runInProgress, runReading } from "../runner/globals.js";

/** The fetch there was as a Vitest face last registered its tests (see {@link holdHostFetch}). */
let registered: typeof fetch | undefined;

/**
 * The `fetch` judge calls go through: the one the run found as it started (runner/globals.ts,
 * read once its eval files loaded, so a fetch an eval file installs on purpose is kept), not one
 * the code under test put in its place while attempts run (a target mocking its model through
 * `globalThis.fetch` would otherwise answer the judge too, and its answer be cached). Outside a
 * run, the one a Vitest face held as it registered its tests, else the global as it is.
 */
export function hostFetch(): typeof fetch {
  // Once the run ended, what it found is stale: the host may have put another fetch in place
  // since (a test's stub for the judge it calls), as the judges' variables are read anew then.
  if (runInProgress()) {
    const found = runReading("fetch");
    if (typeof found === "function") return found as typeof fetch;
  }
  return registered ?? fetch;
}

/**
 * A Vitest face (`evaluate`, `toVitest`) registers its tests: Vitest collects them before any
 * hook runs, so the fetch now is the host's, not one a `beforeEach` stubs for the agent's model
 * (`vi.stubGlobal("fetch", …)`), which the judges would otherwise ask.
 */
export function holdHostFetch(): void {
  registered = globalThis.fetch;
}
