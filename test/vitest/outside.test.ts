import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { assertBuilt, repoRoot } from "./run-fixture.js";

/** Run `source` as an ES module with plain `node`, outside any Vitest run. */
async function runWithNode(source: string): Promise<{ code: number; stderr: string }> {
  assertBuilt();
  const dir = await mkdtemp(join(tmpdir(), "niceeval-outside-"));
  try {
    const file = join(dir, "capitals.eval.mjs");
    await writeFile(file, source);
    return await new Promise((done) => {
      execFile(process.execPath, [file], { timeout: 30_000 }, (error, _out, stderr) =>
        done({ code: error ? Number(error.code ?? 1) : 0, stderr }),
      );
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("niceeval/vitest evaluate() outside Vitest", () => {
  it("says it must run in a Vitest test file, and to use defineSuite for niceeval run", async () => {
    const vitestEntry = pathToFileURL(join(repoRoot, "dist/vitest/index.js")).href;
    const { code, stderr } = await runWithNode(
      [
        `import { createScorer, evaluate } from ${JSON.stringify(vitestEntry)};`,
        'const exact = createScorer({ name: "exact", score: () => ({ score: 1 }) });',
        'evaluate("capitals", { data: [{ input: "France" }], task: () => "Paris", scorers: [exact] });',
      ].join("\n"),
    );
    expect(code).not.toBe(0);
    expect(stderr).not.toContain("Cannot read properties of undefined");
    expect(stderr).toContain(
      'evaluate "capitals" must run inside a Vitest test file (run it with `vitest run`)',
    );
    expect(stderr).toContain("for `niceeval run`, write the evaluation with defineSuite instead");
  });
});
