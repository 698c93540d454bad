import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root, whose built `dist/` the fixtures import as `niceeval`. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** One test as Vitest's JSON reporter writes it. */
export interface JsonTest {
  ancestorTitles: string[];
  title: string;
  fullName: string;
  status: "passed" | "failed" | "skipped" | "pending" | "todo" | "disabled";
  failureMessages: string[];
  meta: Record<string, unknown>;
}

/** What a Vitest run on a fixture produced. */
export interface FixtureRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  numPassedTests: number;
  numFailedTests: number;
  tests: JsonTest[];
  /** Errors of files that failed outside any test (collection, imports). */
  fileMessages: string[];
  /** The test named by its describe and title; throws when absent. */
  test(describe: string, title: string): JsonTest;
}

/** Fail early, and say what to do, when the package was not built. */
export function assertBuilt(): void {
  for (const entry of ["dist/index.js", "dist/vitest/index.js", "dist/scorers/index.js"]) {
    if (!existsSync(join(repoRoot, entry))) {
      throw new Error(
        `${entry} is missing: the Vitest fixtures import the built package. Run \`npm run build\` first (\`npm test\` does).`,
      );
    }
  }
}

/** Where a fixture lives: `test/vitest/fixtures/<name>` (files `*.spec.ts`), else `test/fixtures/<name>`. */
function fixtureDir(name: string): string {
  const own = join(repoRoot, "test/vitest/fixtures", name);
  return existsSync(own) ? own : join(repoRoot, "test/fixtures", name);
}

/**
 * Copy the fixture `name` to a fresh temp dir where `niceeval` and `vitest` are installed as
 * symlinks, run real Vitest there (`vitest run`, then `args`) with the JSON reporter, and return
 * its report. `env` is added to this process's environment for Vitest.
 */
export async function runFixture(
  name: string,
  args: readonly string[] = [],
  env: Record<string, string> = {},
): Promise<FixtureRun> {
  assertBuilt();
  const dir = await mkdtemp(join(tmpdir(), `niceeval-${name}-`));
  try {
    await cp(fixtureDir(name), dir, { recursive: true });
    await mkdir(join(dir, "node_modules"), { recursive: true });
    await symlink(repoRoot, join(dir, "node_modules/niceeval"), "dir");
    await symlink(join(repoRoot, "node_modules/vitest"), join(dir, "node_modules/vitest"), "dir");
    const outputFile = join(dir, "report.json");
    const vitestBin = join(repoRoot, "node_modules/vitest/vitest.mjs");
    const argv = [
      vitestBin,
      "run",
      "--reporter=json",
      `--outputFile=${outputFile}`,
      "--reporter=default",
      ...args,
    ];
    const { exitCode, stdout, stderr } = await new Promise<{
      exitCode: number;
      stdout: string;
      stderr: string;
    }>((done) => {
      execFile(
        process.execPath,
        argv,
        {
          cwd: dir,
          env: { ...process.env, ...env, CI: "1", NO_COLOR: "1", FORCE_COLOR: "0" },
          timeout: 60_000,
        },
        (error, out, err) =>
          done({ exitCode: error ? Number(error.code ?? 1) : 0, stdout: out, stderr: err }),
      );
    });
    if (!existsSync(outputFile)) {
      throw new Error(
        `Vitest wrote no report for fixture "${name}" (exit ${exitCode}):\n${stdout}\n${stderr}`,
      );
    }
    const report = JSON.parse(await readFile(outputFile, "utf8")) as {
      numPassedTests: number;
      numFailedTests: number;
      testResults: { message: string; assertionResults: JsonTest[] }[];
    };
    const tests = report.testResults.flatMap((file) => file.assertionResults);
    return {
      exitCode,
      stdout,
      stderr,
      numPassedTests: report.numPassedTests,
      numFailedTests: report.numFailedTests,
      tests,
      fileMessages: report.testResults
        .map((file) => file.message)
        .filter((message) => message !== ""),
      test(describe, title) {
        const found = tests.find((t) => t.ancestorTitles.at(-1) === describe && t.title === title);
        if (!found) {
          const known = tests
            .map((t) => `${t.ancestorTitles.join(" > ")} > ${t.title}`)
            .join("\n  ");
          throw new Error(
            `no test "${describe} > ${title}" in fixture "${name}"; it has:\n  ${known}`,
          );
        }
        return found;
      },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
