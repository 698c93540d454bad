import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { AttemptRecord } from "../../src/eval/record.js";

/** The repository root (the niceeval package). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** The built CLI. */
export const cliPath = join(repoRoot, "dist/cli/bin.js");

/** A project holding these files of this repository, at the same paths (the bundled examples). */
export async function projectOfRepoFiles(paths: readonly string[]): Promise<FixtureProject> {
  const files: Record<string, string> = {};
  for (const path of paths) files[path] = await readFile(join(repoRoot, path), "utf8");
  return makeProject(files);
}

/** A throwaway project in a temp dir whose `niceeval` import resolves to this repository. */
export interface FixtureProject {
  dir: string;
  cleanup(): Promise<void>;
}

export async function makeProject(
  files: Record<string, string>,
  packageJson: Record<string, unknown> = { name: "fixture", type: "module" },
): Promise<FixtureProject> {
  if (!existsSync(cliPath)) {
    throw new Error(`${cliPath} is missing: run \`npm run build\` before the integration tests`);
  }
  const dir = await mkdtemp(join(tmpdir(), "niceeval-fixture-"));
  await mkdir(join(dir, "node_modules"), { recursive: true });
  await symlink(repoRoot, join(dir, "node_modules", "niceeval"), "dir");
  await writeFile(join(dir, "package.json"), JSON.stringify(packageJson));
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Result of running the real CLI. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run the built `niceeval` CLI in `cwd` as a child process; `input`, when given, is its stdin. */
export function runCli(
  args: readonly string[],
  cwd: string,
  env: Record<string, string> = {},
  input?: string,
): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd,
      env: { ...process.env, CI: "true", NO_COLOR: "1", ...env },
      stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    child.stdin?.end(input);
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolvePromise({ code, stdout, stderr }));
  });
}

/**
 * Start the built CLI in `cwd` (stdin ignored, `env` added to the environment), collecting its
 * output; `onStderr` sees all of stderr so far each time it grows. Resolves with how it ended, and the signal that killed it.
 */
export function startCli(
  args: readonly string[],
  cwd: string,
  onStderr: (stderr: string, child: ChildProcess) => void = () => {},
  env: Record<string, string> = {},
): { child: ChildProcess; ended: Promise<CliRun & { signal: NodeJS.Signals | null }> } {
  const child = spawn(process.execPath, [cliPath, ...args], {
    cwd,
    env: { ...process.env, CI: "true", NO_COLOR: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const ended = new Promise<CliRun & { signal: NodeJS.Signals | null }>((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      onStderr(stderr, child);
    });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, ended };
}

/**
 * Run the CLI and send `signals` (in order, 200 ms apart) once its eval prints TARGET-STARTED on
 * stderr.
 */
export async function runAndSignal(
  args: readonly string[],
  cwd: string,
  signals: readonly NodeJS.Signals[],
): Promise<CliRun & { afterSignalMs: number }> {
  let sent = false;
  let signalledAt = Number.NaN;
  const { code, stdout, stderr } = await startCli(args, cwd, (stderr, child) => {
    if (sent || !stderr.includes("TARGET-STARTED")) return;
    sent = true;
    for (const [i, signal] of signals.entries())
      setTimeout(
        () => {
          signalledAt = performance.now();
          child.kill(signal);
        },
        100 + i * 200,
      );
  }).ended;
  // From the last signal to the end of the run.
  return { code, stdout, stderr, afterSignalMs: performance.now() - signalledAt };
}

/** The records of the JSON report a run wrote (`--json <file>`) in `dir`. */
export async function readJsonRecords(dir: string, file: string): Promise<AttemptRecord[]> {
  const report = JSON.parse(await readFile(join(dir, file), "utf8")) as {
    records: AttemptRecord[];
  };
  return report.records;
}

/** An eval file of one case that passes, for tests about how a run starts rather than what it judges. */
export const ONE_CASE_EVAL = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer({ name: "same", score: () => ({ score: 1 }) });
export const echo = defineSuite({ id: "echo", cases: [{ id: "a", input: "a" }], target: (x) => x, scorers: [same] });
`;
