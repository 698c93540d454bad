import { beforeAll, describe, expect, it } from "vitest";
import { type FixtureRun, runFixture } from "./run-fixture.js";

// Vitest clones each test's meta to its main process: a scorer's metadata that cannot be cloned
// must not lose the file's results, so meta.niceeval holds a JSON-safe copy of it.
describe("evaluate() with metadata that cannot be cloned", () => {
  let run: FixtureRun;
  beforeAll(async () => {
    run = await runFixture("vitest-items", ["metadata"]);
  }, 60_000);

  it("keeps every test's result in the file", () => {
    expect(run.stdout + run.stderr).not.toContain("could not be cloned");
    expect(run.fileMessages).toEqual([]);
    expect(run.test("unclonable metadata", "right").status).toBe("passed");
    expect(run.test("unclonable metadata", "wrong").status).toBe("failed");
    expect(run.test("beside it", "plain").status).toBe("passed");
  });

  it("writes what JSON cannot hold as markers in meta.niceeval", () => {
    expect(run.test("unclonable metadata", "right").meta.niceeval).toEqual({
      item: "right",
      passed: true,
      score: 1,
      scores: [
        {
          name: "explained",
          score: 1,
          metadata: {
            explain: "[unserialisable: function explain]",
            tag: "[unserialisable: Symbol(tag)]",
            tokens: "[unserialisable: bigint 10]",
            cyclic: { depth: 1, self: "[unserialisable: circular reference]" },
          },
        },
      ],
    });
  });
});
