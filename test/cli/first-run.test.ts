import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, repoRoot, runCli } from "../support/project.js";
import { evalFileHeader } from "./eval-source.js";

// What a new user meets first: help, version, counts, the order of the report, default exports.

const suite = (
  id: string,
  cases: string[],
  failing: string[] = [],
) => `defineSuite<string, string>({
  id: "${id}",
  cases: [${cases.map((c) => `{ id: "${c}", input: "${c}", expected: "${failing.includes(c) ? "nope" : c}" }`).join(", ")}],
  target: async (input) => input,
  scorers: [same],
})`;

const header = evalFileHeader;

describe("niceeval for a new user (real CLI on fixture projects)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/a.eval.ts": `${header}
export const zebra = ${suite("zebra", ["z1"])};
export const apple = ${suite("apple", ["a1", "a2"], ["a2"])};
const mango = ${suite("mango", ["m1"])};
export { mango };
`,
      "evals/b.eval.ts": `${header}export default ${suite("banana", ["b1"])};\n`,
      "one/one.eval.ts": `${header}export const single = ${suite("single", ["only"])};\n`,
    });
  });
  afterAll(() => project.cleanup());

  it("prints --help and --version to stdout and exits 0", async () => {
    for (const ask of ["--help", "help"]) {
      const help = await runCli([ask], project.dir);
      expect(help.code).toBe(0);
      expect(help.stderr).toBe("");
      expect(help.stdout).toContain("Usage");
      expect(help.stdout).toContain("--failures-only");
    }
    const version = await runCli(["--version"], project.dir);
    expect(version.code).toBe(0);
    expect(version.stderr).toBe("");
    const { version: expected } = JSON.parse(
      await readFile(join(repoRoot, "package.json"), "utf8"),
    );
    expect(version.stdout.trim()).toBe(expected);
    expect((await runCli(["-v"], project.dir)).stdout.trim()).toBe(expected);
  });

  it("pluralises its counts", async () => {
    const one = await runCli(["run", "one"], project.dir);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain("niceeval run · 1 eval from 1 file ·");
    expect(one.stdout).toContain("  1 case: 1 passed");
    expect(one.stdout).toMatch(/ {2}1 eval · 1 case · 1 passed/);
    const all = await runCli(["run", "evals"], project.dir);
    expect(all.stdout).toContain("· 4 evals from 2 files ·");
    expect(all.stdout).toContain("  2 cases: 1 passed, 1 failed");
    expect(all.stdout).toMatch(/ {2}4 evals · 5 cases · 4 passed/);
  });

  it("reports evals in file order, then in the order the file declares them", async () => {
    const run = await runCli(["run", "evals"], project.dir);
    const order = [...run.stdout.matchAll(/^(\w+) suite · /gm)].map((m) => m[1]);
    expect(order).toEqual(["zebra", "apple", "mango", "banana"]);
  });

  it("prints no line for a passed case with --failures-only", async () => {
    const run = await runCli(["run", "evals", "--failures-only"], project.dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/✗ a2 failed/);
    expect(run.stdout).toMatch(/✗ same \(gate · 1 pt\) 0\/1/);
    for (const passed of ["z1", "a1", "m1", "b1"]) expect(run.stdout).not.toContain(` ${passed} `);
    expect(run.stdout).not.toContain("✓");
    expect(run.stdout).toMatch(/ {2}4 evals · 5 cases · 4 passed/);
  });

  it("keeps each case's input, expected value and output in --json and NDJSON reports without a store", async () => {
    for (const flag of [
      ["--json", "r.json"],
      ["--reporter", "ndjson=r.ndjson"],
    ]) {
      for (const supervise of [[], ["--no-supervise"]]) {
        const run = await runCli(["run", "one", "--no-store", ...flag, ...supervise], project.dir);
        expect(run.code).toBe(0);
        const text = await readFile(join(project.dir, flag[1]!.replace("ndjson=", "")), "utf8");
        const record =
          flag[0] === "--json"
            ? (JSON.parse(text) as { records: Record<string, unknown>[] }).records[0]
            : text
                .trim()
                .split("\n")
                .map((line) => JSON.parse(line) as { type: string; record?: unknown })
                .find((line) => line.type === "record")?.record;
        expect(record).toMatchObject({
          caseId: "only",
          input: "only",
          expected: "only",
          output: "only",
        });
      }
    }
  });

  it('loads `export default defineSuite(...)` in a project without "type": "module"', async () => {
    const plain = await makeProject(
      {
        "evals/default.eval.ts": `${header}export default ${suite("fallback", ["f1"])};\n`,
        "evals/mixed.eval.ts": `${header}export const named = ${suite("named", ["n1"])};\nexport default ${suite("also-default", ["d1"])};\n`,
      },
      { name: "plain" },
    );
    try {
      const run = await runCli(["run"], plain.dir);
      expect(run.stdout).not.toContain("failed to load");
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("fallback suite");
      const order = [...run.stdout.matchAll(/^([\w-]+) suite · /gm)].map((m) => m[1]);
      expect(order).toEqual(["fallback", "named", "also-default"]);
      expect(run.stdout).toMatch(/3 evals · 3 cases · 3 passed/);
    } finally {
      await plain.cleanup();
    }
  });
});
