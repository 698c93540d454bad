import { spawn } from "node:child_process";
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
  // One process for all three: `--porcelain=v2 --branch` heads its list of changed files with
  // the commit (`# branch.oid`) and the branch (`# branch.head`). The first changed file says
  // the checkout is dirty: the rest (thousands of lines after a mass edit) is not read.
  const status = await new Promise<string | undefined>((resolve) => {
    // No index lock: `git status` would otherwise refresh the index, and a git command the user
    // runs meanwhile would fail on the lock file.
    const env = { ...process.env, GIT_OPTIONAL_LOCKS: "0" };
    let out = "";
    let enough = false;
    const git = spawn("git", ["status", "--porcelain=v2", "--branch", "--untracked-files=no"], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 5000,
    });
    git.stdout.setEncoding("utf8");
    git.stdout.on("data", (chunk: string) => {
      if (enough) return;
      out += chunk;
      // A line that is not a header, whole: a changed file.
      if (/^[^#\n][^\n]*\n/m.test(out)) {
        enough = true;
        git.kill();
      }
    });
    git.on("error", () => resolve(undefined));
    git.on("close", (code) => resolve(enough || code === 0 ? out : undefined));
  });
  return status === undefined ? undefined : parseGitStatus(status);
}

/** The state `git status --porcelain=v2 --branch` prints; undefined before the first commit. */
function parseGitStatus(status: string): RunManifest["git"] {
  let commit: string | undefined;
  let head: string | undefined;
  let dirty = false;
  for (const line of status.split("\n")) {
    if (line.startsWith("# branch.oid ")) commit = line.slice("# branch.oid ".length).trim();
    else if (line.startsWith("# branch.head ")) head = line.slice("# branch.head ".length).trim();
    else if (line !== "" && !line.startsWith("#")) dirty = true;
  }
  if (commit === undefined || commit === "(initial)") return undefined;
  const named =
    process.env.GITHUB_HEAD_REF ||
    process.env.GITHUB_REF_NAME ||
    (head === "(detached)" ? "" : head);
  return { commit, ...(named ? { branch: named } : {}), dirty };
}
