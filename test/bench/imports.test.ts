import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { assertBuilt, repoRoot } from "../vitest/run-fixture.js";

// The benchmarks load internal modules from the build. A module that moved (schedulerFor went
// from judge/call.ts to judge/retries.ts) broke `npm run bench` halfway, after minutes of
// figures, and nothing in `npm test` noticed. Each named import of a benchmark from dist/ must
// be there.

const benchDir = join(repoRoot, "bench");
const IMPORT = /import\s*\{([^}]*)\}\s*from\s*"(\.\.\/dist\/[^"]+)"/g;

/** The names a file imports from each built module it names. */
function distImports(file: string): { module: string; names: string[] }[] {
  const text = readFileSync(join(benchDir, file), "utf8");
  return [...text.matchAll(IMPORT)].map((match) => ({
    module: match[2]!,
    names: match[1]!
      .split(",")
      .map((part) => part.trim().replace(/^type\s+/, ""))
      .filter((part) => part !== "" && !match[1]!.includes(`type ${part}`))
      .map((part) => part.split(/\s+as\s+/)[0]!),
  }));
}

describe("the benchmarks' imports from the build", () => {
  const files = readdirSync(benchDir).filter((file) => file.endsWith(".mjs"));

  it("finds benchmark files that import from dist/", () => {
    expect(files.flatMap(distImports).length).toBeGreaterThan(5);
  });

  it.each(files)("%s imports only what the build exports", async (file) => {
    assertBuilt();
    for (const { module, names } of distImports(file)) {
      const url = pathToFileURL(join(benchDir, module)).href;
      const loaded = (await import(url)) as Record<string, unknown>;
      const missing = names.filter((name) => !(name in loaded));
      expect(missing, `${file} imports ${missing.join(", ")} from ${module}`).toEqual([]);
    }
  });
});
