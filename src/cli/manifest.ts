import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import type { RunEntry } from "../runner/entry.js";
import { trialsOf } from "../runner/source.js";
import { hashValue } from "../store/hash.js";
import type { RunManifest } from "../store/types.js";

/** What the CLI knows about a run before it starts. */
export interface ManifestInput {
  runId: string;
  cwd: string;
  /** The checkout's state ({@link readGitState}); undefined outside a git repository. */
  git: RunManifest["git"];
  entries: readonly RunEntry[];
  files: readonly string[];
  argv: readonly string[];
  name?: string;
  tags: Record<string, string>;
  trials: number;
  concurrency: number;
  niceevalVersion: string;
  /** Judge models configured for the run (the default judge), when known. */
  judgeModels: string[];
}

/** The manifest a run is stored with: versions, git state, file and configuration hashes. */
export function buildManifest(input: ManifestInput): RunManifest {
  const { git } = input;
  return {
    runId: input.runId,
    ...(input.name !== undefined ? { name: input.name } : {}),
    tags: input.tags,
    niceevalVersion: input.niceevalVersion,
    nodeVersion: process.version,
    ...(git ? { git } : {}),
    command: [...input.argv],
    files: input.files.map((file) => ({
      path: relative(input.cwd, file) || file,
      hash: fileHash(file),
    })),
    evals: input.entries.map(({ eval: runnable, file }) => ({
      evalId: runnable.id,
      style: runnable.style,
      ...(file ? { file: relative(input.cwd, file) || file } : {}),
      configHash: hashValue({
        fingerprint: runnable.fingerprint?.() ?? null,
        judgeModels: input.judgeModels,
      }),
      judgeModels: input.judgeModels,
      trials: trialsOf(runnable.trials ?? input.trials),
    })),
    trials: input.trials,
    concurrency: input.concurrency,
    startedAt: new Date().toISOString(),
  };
}

/** A short hash of a file's contents ("unreadable" when it cannot be read). */
export function fileHash(file: string): string {
  try {
    return createHash("sha256").update(readFileSync(file)).digest("hex").slice(0, 16);
  } catch {
    return "unreadable";
  }
}

/**
 * Commit, branch and dirty flag of the checkout, or undefined outside a git repository. Read
 * without blocking: the run command starts it first and takes it when it builds the manifest.
 */
export async function readGitState(cwd: string): Promise<RunManifest["git"]> {
  const git = (...args: string[]) =>
    new Promise<string>((resolve, reject) => {
      // No index lock: `git status` would otherwise refresh the index, and a git command the
      // user runs meanwhile would fail on the lock file.
      const env = { ...process.env, GIT_OPTIONAL_LOCKS: "0" };
      execFile("git", args, { cwd, env, encoding: "utf8", timeout: 5000 }, (error, stdout) =>
        error ? reject(error) : resolve(stdout.trim()),
      );
    });
  try {
    const commit = await git("rev-parse", "HEAD");
    const [named, status] = await Promise.all([
      process.env.GITHUB_HEAD_REF ||
        process.env.GITHUB_REF_NAME ||
        git("rev-parse", "--abbrev-ref", "HEAD"),
      git("status", "--porcelain", "--untracked-files=no"),
    ]);
    const branch = named === "HEAD" ? undefined : named;
    return { commit, ...(branch ? { branch } : {}), dirty: status !== "" };
  } catch {
    return undefined;
  }
}
