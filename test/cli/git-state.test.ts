import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  readGitState,
  readGitStateEarly,
  takeGitState,
  withEvalFiles,
} from "../../src/cli/git-state.js";

// The checkout state a stored run records, read from real repositories.

let dir: string;
const saved = { head: process.env.GITHUB_HEAD_REF, ref: process.env.GITHUB_REF_NAME };
const git = (...args: string[]) =>
  execFileSync("git", args, {
    cwd: dir,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.com",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.com",
    },
  }).trim();

/** A repository on `branch` with one commit of a tracked file; its commit id. */
async function committed(branch: string): Promise<string> {
  git("init", "-q", "-b", branch);
  await writeFile(join(dir, "a.txt"), "one\n");
  git("add", "a.txt");
  git("commit", "-q", "-m", "first");
  return git("rev-parse", "HEAD");
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "niceeval-git-"));
  // The CI's own variables would name the branch instead of the checkout.
  delete process.env.GITHUB_HEAD_REF;
  delete process.env.GITHUB_REF_NAME;
});
afterEach(async () => {
  for (const [key, value] of [
    ["GITHUB_HEAD_REF", saved.head],
    ["GITHUB_REF_NAME", saved.ref],
  ] as const)
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  await rm(dir, { recursive: true, force: true });
});

describe("readGitState", () => {
  it("is undefined outside a repository and before the first commit", async () => {
    expect(await readGitState(dir)).toBeUndefined();
    git("init", "-q", "-b", "main");
    expect(await readGitState(dir)).toBeUndefined();
  });

  it("reads the commit, the branch and whether tracked files changed", async () => {
    const commit = await committed("feature/x");
    expect(await readGitState(dir)).toEqual({ commit, branch: "feature/x", dirty: false });
    // An untracked file leaves it clean; an edited tracked one makes it dirty.
    await writeFile(join(dir, "new.txt"), "untracked\n");
    expect((await readGitState(dir))?.dirty).toBe(false);
    await writeFile(join(dir, "a.txt"), "two\n");
    expect(await readGitState(dir)).toEqual({ commit, branch: "feature/x", dirty: true });
  });

  it("is dirty when an eval file that ran is not in the commit (untracked or ignored), clean when every one is", async () => {
    const commit = await committed("main");
    await writeFile(join(dir, ".gitignore"), "ignored.eval.ts\n");
    await writeFile(join(dir, "kept.eval.ts"), "export {};\n");
    git("add", ".gitignore", "kept.eval.ts");
    git("commit", "-q", "-m", "evals");
    const head = git("rev-parse", "HEAD");
    expect(head).not.toBe(commit);
    await writeFile(join(dir, "new.eval.ts"), "export {};\n");
    await writeFile(join(dir, "ignored.eval.ts"), "export {};\n");
    const state = () => readGitState(dir);
    const clean = { commit: head, branch: "main", dirty: false };
    expect(await withEvalFiles(state(), dir, [join(dir, "kept.eval.ts")])).toEqual(clean);
    for (const file of ["new.eval.ts", "ignored.eval.ts"])
      expect(
        await withEvalFiles(state(), dir, [join(dir, "kept.eval.ts"), join(dir, file)]),
        file,
      ).toEqual({ ...clean, dirty: true });
    // A file outside the checkout says nothing of it.
    expect(await withEvalFiles(state(), dir, [join(tmpdir(), "elsewhere.eval.ts")])).toEqual(clean);
  });

  it("reads a checkout with thousands of edited files (more than a megabyte of status) as dirty", async () => {
    git("init", "-q", "-b", "main");
    // Long names: each changed file is a line of about 300 bytes in the status.
    const names = Array.from({ length: 4000 }, (_, i) => `${"f".repeat(180)}-${i}.txt`);
    await Promise.all(names.map((name) => writeFile(join(dir, name), "one\n")));
    git("add", ".");
    git("commit", "-q", "-m", "many");
    const commit = git("rev-parse", "HEAD");
    await Promise.all(names.map((name) => writeFile(join(dir, name), "two\n")));
    expect(await readGitState(dir)).toEqual({ commit, branch: "main", dirty: true });
  }, 60_000);

  it("has no branch on a detached checkout, unless the CI names it", async () => {
    const commit = await committed("main");
    git("checkout", "-q", "--detach");
    expect(await readGitState(dir)).toEqual({ commit, dirty: false });
    process.env.GITHUB_HEAD_REF = "pr-branch";
    expect(await readGitState(dir)).toEqual({ commit, branch: "pr-branch", dirty: false });
  });
});

describe("takeGitState", () => {
  it("gives the state read early for the same folder, and reads another folder now", async () => {
    const commit = await committed("main");
    readGitStateEarly(dir);
    expect(await takeGitState(dir)).toEqual({ commit, branch: "main", dirty: false });
    readGitStateEarly(dir);
    await writeFile(join(dir, "a.txt"), "two\n");
    const other = await mkdtemp(join(tmpdir(), "niceeval-git-other-"));
    try {
      expect(await takeGitState(other)).toBeUndefined();
      // Taking for another folder dropped the early read: this one reads the checkout now.
      expect(await takeGitState(dir)).toEqual({ commit, branch: "main", dirty: true });
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });
});
