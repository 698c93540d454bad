import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parentDeathLauncher } from "../../src/supervisor/spawn.js";
import { cliPath, type FixtureProject, makeProject } from "../support/project.js";

// A target that says which process runs it, then never gives its event loop back.
const spinningSuite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });

export const spins = defineSuite({
  id: "spins",
  cases: [{ id: "forever", input: "a", expected: "a" }],
  target: () => {
    console.error("TARGET-STARTED pid=" + process.pid);
    for (;;) {}
  },
  scorers: [same],
});
`;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Start the CLI and answer the pid of the process its target runs in, and the CLI itself. */
function startSpinning(
  dir: string,
  env: Record<string, string> = {},
): Promise<{ cli: ReturnType<typeof spawn>; target: number }> {
  return new Promise((resolve, reject) => {
    const cli = spawn(process.execPath, [cliPath, "run", "--no-store"], {
      cwd: dir,
      env: { ...process.env, CI: "true", NO_COLOR: "1", ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    cli.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      const found = /TARGET-STARTED pid=(\d+)/.exec(stderr);
      if (found) resolve({ cli, target: Number(found[1]) });
    });
    cli.on("error", reject);
    cli.on("close", (code) => reject(new Error(`the CLI ended (${code}) first:\n${stderr}`)));
  });
}

describe("an eval process whose supervisor was killed outright (real CLI)", () => {
  let project: FixtureProject;
  // A setpriv that knows the option but cannot set the signal (as in a sandbox refusing the
  // call): the eval process it fails to start is replaced by one started without it.
  const refusing = mkdtempSync(join(tmpdir(), "niceeval-setpriv-"));
  writeFileSync(
    join(refusing, "setpriv"),
    '#!/bin/sh\n# --pdeathsig\necho "setpriv: set parent death signal failed" >&2\nexit 127\n',
    { mode: 0o755 },
  );
  beforeAll(async () => {
    project = await makeProject({ "evals/spins.eval.ts": spinningSuite });
  });
  afterAll(async () => {
    await project.cleanup();
    rmSync(refusing, { recursive: true, force: true });
  });

  // Where the kernel's parent-death signal is at hand (Linux with util-linux's setpriv) it ends
  // the process; elsewhere a thread of the eval process watches its parent. Both are run here.
  const ways: [string, Record<string, string>][] = [
    [parentDeathLauncher() ? "the kernel's parent-death signal" : "its watching thread", {}],
    ["its watching thread (NICEEVAL_ORPHAN_WATCH=thread)", { NICEEVAL_ORPHAN_WATCH: "thread" }],
    [
      "its watching thread, after a setpriv that could not start it",
      { PATH: `${refusing}${delimiter}${process.env.PATH ?? ""}` },
    ],
  ];
  it.each(ways)(
    "ends by itself although its target never yields: %s",
    async (_, env) => {
      const { cli, target } = await startSpinning(project.dir, env);
      try {
        expect(target).not.toBe(cli.pid);
        cli.kill("SIGKILL");
        const deadline = Date.now() + 15_000;
        while (alive(target) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
        expect(alive(target)).toBe(false);
      } finally {
        // Never leave a spinning process behind, whatever the outcome.
        if (alive(target)) process.kill(target, "SIGKILL");
      }
    },
    30_000,
  );
});
