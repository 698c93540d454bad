import type { ChildProcess } from "node:child_process";
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { repoRoot } from "../support/project.js";

// The built module: its eval process is dist/supervisor/child.js, as in a real run.
type Spawn = typeof import("../../src/supervisor/spawn.js");
const spawn = (await import(
  pathToFileURL(join(repoRoot, "dist/supervisor/spawn.js")).href
)) as Spawn;
type Main = typeof import("../../src/cli/main.js");
const { main } = (await import(pathToFileURL(join(repoRoot, "dist/cli/main.js")).href)) as Main;

const started: ChildProcess[] = [];
afterEach(async () => {
  for (const child of started.splice(0)) child.kill();
  await settle([]);
});

/** Eval processes this one started that are still alive (zombies aside). */
function liveChildren(): number[] {
  let out = "";
  try {
    out = execFileSync("ps", ["-o", "pid=,stat=,args=", "--ppid", String(process.pid)], {
      encoding: "utf8",
    });
  } catch {
    return []; // ps exits 1 when there is none
  }
  return out
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(
      ([pid, stat, ...args]) =>
        pid && !stat?.startsWith("Z") && args.join(" ").includes("supervisor/child.js"),
    )
    .map(([pid]) => Number(pid));
}

/** Wait until the live eval processes are exactly `expected` (or 5 s pass); return them. */
async function settle(expected: readonly (number | undefined)[]): Promise<number[]> {
  const want = [...expected].sort().join(",");
  for (let i = 0; i < 50; i++) {
    if (liveChildren().sort().join(",") === want) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return liveChildren();
}

describe("the eval process started early", () => {
  it("is the one the run adopts when cwd and stdout match", () => {
    spawn.startEvalProcessEarly(repoRoot, undefined);
    const first = spawn.takeEvalProcess(repoRoot, undefined);
    started.push(first);
    // Nothing is waiting any more: the next one is a new process.
    const second = spawn.takeEvalProcess(repoRoot, undefined);
    started.push(second);
    expect(first.pid).toBeTypeOf("number");
    expect(second.pid).not.toBe(first.pid);
    expect(first.connected).toBe(true);
  });

  it("is ended, and replaced, when the run needs another cwd", async () => {
    spawn.startEvalProcessEarly(repoRoot, undefined);
    const elsewhere = join(repoRoot, "test");
    const taken = spawn.takeEvalProcess(elsewhere, undefined);
    started.push(taken);
    // The early one was killed: only the adopted one is left.
    expect(await settle([taken.pid])).toEqual([taken.pid]);
  });

  it("does not outlive a run that stops before it starts (no eval files)", async () => {
    const errors: string[] = [];
    const empty = await mkdtemp(join(tmpdir(), "niceeval-early-"));
    const code = await main(["run", empty], {
      cwd: empty,
      env: {},
      stdoutFd: 1,
      stderr: (text) => errors.push(text),
      isTTY: false,
    });
    expect(code).toBe(2);
    expect(errors.join("")).toMatch(/no eval files found/);
    expect(await settle([])).toEqual([]);
    await rm(empty, { recursive: true, force: true });
  });

  it("is discarded when nothing adopts it", async () => {
    spawn.startEvalProcessEarly(repoRoot, undefined);
    expect(liveChildren()).toHaveLength(1);
    spawn.discardEarlyEvalProcess();
    expect(await settle([])).toEqual([]);
  });
});
