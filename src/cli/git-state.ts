import { spawn } from "node:child_process";
import { isAbsolute, relative } from "node:path";
import type { RunManifest } from "../store/types.js";

let early: { cwd: string; state: Promise<RunManifest["git"]> } | undefined;

/**
 * Start reading the checkout's state before the CLI's own modules load (from bin.ts, for a run
 * that will likely be stored): `git` is then started by a small process, and runs while the
 * CLI loads. The run takes it with {@link takeGitState}; a command that does not just leaves it.
 */
export function readGitStateEarly(cwd: string): void {
  early ??= { cwd, state: readGitState(cwd) };
}

/** The checkout's state: the one read early for this folder, else read now. */
export function takeGitState(cwd: string): Promise<RunManifest["git"]> {
  const started = early;
  early = undefined;
  return started?.cwd === cwd ? started.state : readGitState(cwd);
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

/**
 * The checkout's `state` with the eval files that run: one its commit lacks (a new file not added
 * yet, or an ignored one) makes a clean checkout dirty, since the commit does not hold what ran.
 * Untracked files elsewhere (reports, the store) leave it clean. Asked only of a clean checkout.
 */
export async function withEvalFiles(
  state: Promise<RunManifest["git"]>,
  cwd: string,
  files: readonly string[],
): Promise<RunManifest["git"]> {
  const read = await state;
  if (!read || read.dirty) return read;
  return (await anyNotCommitted(cwd, files)) ? { ...read, dirty: true } : read;
}

/**
 * Whether git tracks none of some of `files` (those under `cwd`, so inside its checkout): `git
 * ls-files --others` names, of the paths it is given, those it does not track, ignored ones too.
 * False when git cannot say.
 */
function anyNotCommitted(cwd: string, files: readonly string[]): Promise<boolean> {
  const paths = files
    .map((file) => relative(cwd, file))
    .filter((path) => path !== "" && !path.startsWith("..") && !isAbsolute(path));
  if (paths.length === 0) return Promise.resolve(false);
  return new Promise((resolve) => {
    let out = "";
    const git = spawn(
      "git",
      ["ls-files", "--others", "-z", "--", ...paths.map((path) => `:(literal)${path}`)],
      {
        cwd,
        env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" },
        stdio: ["ignore", "pipe", "ignore"],
        timeout: 5000,
      },
    );
    git.stdout.setEncoding("utf8");
    git.stdout.on("data", (chunk: string) => {
      out += chunk;
    });
    git.on("error", () => resolve(false));
    git.on("close", (code) => resolve(code === 0 && out.length > 0));
  });
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
