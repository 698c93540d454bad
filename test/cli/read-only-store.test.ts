import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/index.js";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { evalFileHeader } from "./eval-source.js";

// A store in a place nobody may write to (a CI artifact mounted read-only, a file marked
// immutable): SQLite cannot keep its journal beside it, even to read. The commands that only
// read it read a copy; a run is refused with what to do.

const evals = `${evalFileHeader}
export const pair = defineSuite<string, string>({
  id: "pair",
  cases: [
    { id: "a", input: "a", expected: "a" },
    { id: "b", input: "b", expected: "x" },
  ],
  target: (input) => input,
  scorers: [same],
});
`;

/** Mark paths immutable (even root may not write them), or undo it; false where that is refused. */
function immutable(on: boolean, ...paths: string[]): boolean {
  try {
    execFileSync("chattr", [on ? "+i" : "-i", ...paths], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const copies = () => readdirSync(tmpdir()).filter((name) => name.startsWith("niceeval-store-"));

describe("a store in a read-only place (real CLI)", { timeout: 60_000 }, () => {
  let project: FixtureProject;
  let folder: string;
  let store: string;
  let locked = false;
  beforeAll(async () => {
    project = await makeProject({ "evals/pair.eval.ts": evals });
    folder = join(project.dir, "artifact");
    store = join(folder, "runs.sqlite");
    const run = await runCli(["run", "--name", "nightly", "--store", store], project.dir);
    expect(run.code).toBe(1);
    locked = immutable(true, store, folder);
  });
  afterAll(async () => {
    if (locked) immutable(false, store, folder);
    await project.cleanup();
  });

  it("is listed, shown and compared from a copy, which is removed after", async ({ skip }) => {
    if (!locked) skip("chattr +i is not allowed on this machine");
    // Really read-only: nothing can be created beside the store.
    expect(() => writeFileSync(join(folder, "probe"), "")).toThrow();
    const before = copies();
    // The copy of a reader killed outright (its process is gone): the next reader removes it.
    const gone = spawnSync(process.execPath, ["-e", ""]).pid;
    const orphan = mkdtempSync(join(tmpdir(), `niceeval-store-${gone}-`));
    writeFileSync(join(orphan, "runs.sqlite"), "left behind");

    const listed = await runCli(["runs", "--store", store], project.dir);
    expect(listed.stderr).toBe("");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/nightly\s.*finished\s+2\s+50\.0%/);

    const shown = await runCli(["show", "nightly", "--store", store], project.dir);
    // The run's own verdict: case b failed.
    expect(shown.stderr).toBe("");
    expect(shown.code).toBe(1);
    expect(shown.stdout).toMatch(/✓ a passed/);
    expect(shown.stdout).toMatch(/✗ b failed/);

    const compared = await runCli(["compare", "nightly", "nightly", "--store", store], project.dir);
    expect(compared.code).toBe(0);

    expect(copies()).toEqual(before);
    expect(existsSync(orphan)).toBe(false);
  });

  it("refuses a run that would write to it, saying what to do", async ({ skip }) => {
    if (!locked) skip("chattr +i is not allowed on this machine");
    const run = await runCli(["run", "--store", store], project.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /cannot write to the store .*runs\.sqlite: it or its folder is read-only .* Make it writable, or pass --store <a path in a folder you can write to>/,
    );
  });

  it("opened to read only through the API, reads its runs and refuses writes", async ({ skip }) => {
    if (!locked) skip("chattr +i is not allowed on this machine");
    const opened = await openStore(store, { readOnly: true });
    try {
      const [run] = await opened.listRuns();
      expect(run?.name).toBe("nightly");
      expect(opened.location).toBe(`sqlite:${store}`);
      await expect(opened.finishRun(run!.runId, { status: "finished" } as never)).rejects.toThrow(
        /was opened to read only/,
      );
    } finally {
      await opened.close();
    }
  });
});
