import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { discoverEvalFiles } from "./discover.js";

describe("discoverEvalFiles", () => {
  let cwd: string;
  beforeAll(() => {
    cwd = mkdtempSync(join(tmpdir(), "niceeval-discover-"));
    mkdirSync(join(cwd, "evals", "slow"), { recursive: true });
    mkdirSync(join(cwd, "checks"));
    for (const file of [
      "evals/a.eval.ts",
      "evals/slow/b.eval.ts",
      "evals/c.eval.js",
      "evals/d.eval.tsx",
      "evals/notes.txt",
      "evals/data.json",
      "checks/smoke.mts",
    ])
      writeFileSync(join(cwd, file), "");
  });
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it("skips the files and folders --exclude names", async () => {
    expect(
      await discoverEvalFiles([], { cwd, exclude: ["evals/slow", "evals/c.eval.js"] }),
    ).toEqual(["evals/a.eval.ts", "evals/d.eval.tsx"]);
  });

  it("refuses --excludes that leave out every eval file found, naming them and the files, not as none found", async () => {
    await expect(
      discoverEvalFiles(["evals"], {
        cwd,
        exclude: ["evals/slow", "evals/a.eval.ts", "evals/c.eval.js", "evals/d.eval.tsx"],
      }),
    ).rejects.toMatchObject({
      code: "USAGE",
      message:
        "--exclude evals/slow, --exclude evals/a.eval.ts, --exclude evals/c.eval.js, --exclude evals/d.eval.tsx left out all 4 eval files found in evals (evals/a.eval.ts, evals/c.eval.js, evals/d.eval.tsx, evals/slow/b.eval.ts), so there is nothing to run. Exclude fewer files or folders.",
    });
    await expect(discoverEvalFiles(["evals/slow"], { cwd, exclude: ["evals"] })).rejects.toThrow(
      "--exclude evals left out the one eval file found in evals/slow (evals/slow/b.eval.ts)",
    );
    // A folder with no eval file at all is still "none found" (the caller's message).
    expect(await discoverEvalFiles(["checks"], { cwd, exclude: ["evals"] })).toEqual([]);
  });

  it("finds .eval.tsx files in folders, as it loads them by path", async () => {
    expect(await discoverEvalFiles(["evals"], { cwd })).toContain("evals/d.eval.tsx");
  });

  // As a file linked into the folder is: a folder of shared evals linked in is searched too, once
  // however many links lead to it, and a link back up does not loop.
  it("follows a linked folder once, and a link to a folder above it without looping", async () => {
    const project = mkdtempSync(join(tmpdir(), "niceeval-discover-links-"));
    try {
      mkdirSync(join(project, "shared"));
      mkdirSync(join(project, "evals"));
      writeFileSync(join(project, "shared", "s.eval.ts"), "");
      writeFileSync(join(project, "evals", "a.eval.ts"), "");
      symlinkSync("../shared", join(project, "evals", "linked"));
      symlinkSync("../shared", join(project, "evals", "again"));
      symlinkSync("..", join(project, "evals", "up"));
      symlinkSync("../missing", join(project, "evals", "dangling"));
      const found = await discoverEvalFiles(["evals"], { cwd: project });
      expect(found).toHaveLength(2);
      expect(found[0]).toBe("evals/a.eval.ts");
      expect(found[1]).toMatch(/^evals\/(again|linked|up\/shared)\/s\.eval\.ts$/);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it("says that a path with a pattern is not expanded", async () => {
    await expect(discoverEvalFiles(["evals/*.eval.ts"], { cwd })).rejects.toThrow(
      "path not found: evals/*.eval.ts. niceeval does not expand patterns: let the shell expand it (leave it unquoted), or pass the folder",
    );
  });

  it("refuses a named file niceeval cannot load as code, and takes a named code file of any name", async () => {
    for (const file of ["evals/notes.txt", "evals/data.json"])
      await expect(discoverEvalFiles(["evals/a.eval.ts", file], { cwd })).rejects.toMatchObject({
        code: "USAGE",
        message: `cannot run ${file}: niceeval runs JavaScript and TypeScript files (.ts, .tsx, .mts, .cts, .js, .mjs, .cjs), and in a folder the *.eval.* ones. Pass eval files or folders.`,
      });
    expect(await discoverEvalFiles(["checks/smoke.mts"], { cwd })).toEqual(["checks/smoke.mts"]);
    // In a folder, only eval files are looked for: the others are no error.
    expect(await discoverEvalFiles(["evals"], { cwd })).not.toContain("evals/notes.txt");
  });

  it("refuses an --exclude that names nothing, saying globs are not expanded", async () => {
    await expect(discoverEvalFiles([], { cwd, exclude: ["**/b.eval.ts"] })).rejects.toThrow(
      "--exclude **/b.eval.ts: no such file or folder (globs are not expanded: give the file or folder to skip). Pass a file or folder that exists.",
    );
    await expect(discoverEvalFiles([], { cwd, exclude: ["evals/nope"] })).rejects.toMatchObject({
      code: "USAGE",
      message: "--exclude evals/nope: no such file or folder. Pass a file or folder that exists.",
    });
  });
});
