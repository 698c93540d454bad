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

/**
 * Wait until the live eval processes are exactly `expected` (or 10 s pass: on a loaded machine
 * an eval process told to end can take seconds to); return them.
 */
async function settle(expected: readonly (number | undefined)[]): Promise<number[]> {
  const want = [...expected].sort().join(",");
  const until = performance.now() + 10_000;
  while (performance.now() < until) {
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

  // A send to an adopted eval process that died is an error event too: its claims file must stay
  // until its exit is heard, which reads it (how far it got, what it had not sent).
  it("keeps its claims file through an error event once adopted", () => {
    spawn.startEvalProcessEarly(repoRoot, undefined);
    const adopted = spawn.takeEvalProcess(repoRoot, undefined);
    started.push(adopted);
    adopted.on("error", () => {});
    expect(spawn.hasClaimsFile(adopted)).toBe(true);
    adopted.emit("error", Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
    expect(spawn.hasClaimsFile(adopted)).toBe(true);
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

describe("the flags an eval process starts with", () => {
  it("keeps this process's flags but not the code given on the command line", () => {
    expect(spawn.childExecArgv(["--max-old-space-size=512", "--import", "./hook.mjs"])).toEqual([
      "--max-old-space-size=512",
      "--import",
      "./hook.mjs",
    ]);
    expect(spawn.childExecArgv(["--input-type=module", "-e", "code()"])).toEqual([]);
    expect(spawn.childExecArgv(["--input-type", "module", "--eval", "code()"])).toEqual([]);
    expect(spawn.childExecArgv(["-p", "-e", "1", "--no-warnings"])).toEqual(["--no-warnings"]);
    expect(spawn.childExecArgv(["-pe", "1", "--eval=x", "--print=y"])).toEqual([]);
  });

  it("runs a supervised run from a `node --input-type=module -e` script", async () => {
    const dir = await mkdtemp(join(tmpdir(), "niceeval-exec-argv-"));
    try {
      const file = join(dir, "one.eval.mjs");
      const { writeFile } = await import("node:fs/promises");
      await writeFile(
        file,
        `import { defineSuite } from ${JSON.stringify(pathToFileURL(join(repoRoot, "dist/index.js")).href)};
import { createScorer } from ${JSON.stringify(pathToFileURL(join(repoRoot, "dist/scorers/index.js")).href)};
const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });
export const one = defineSuite({ id: "one", cases: [{ id: "a", input: 1, expected: 1 }, { id: "b", input: 2, expected: 2 }], target: (i) => i, scorers: [same] });
`,
      );
      const dist = (path: string) =>
        JSON.stringify(pathToFileURL(join(repoRoot, "dist", path)).href);
      const script = `
const { loadEvalFiles } = await import(${dist("cli/load.js")});
const { runEvals } = await import(${dist("runner/run.js")});
const { supervisedExecutor } = await import(${dist("supervisor/index.js")});
const file = ${JSON.stringify(file)};
const loaded = await loadEvalFiles([file], ${JSON.stringify(dir)});
const executor = supervisedExecutor({ files: [file], cwd: ${JSON.stringify(dir)}, start: true, stderr: (t) => process.stderr.write(t) });
const summary = await runEvals(loaded.entries, { executor });
await executor.close();
console.log(JSON.stringify(summary.totals));
`;
      const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
        cwd: dir,
        encoding: "utf8",
        timeout: 30_000,
      });
      expect(JSON.parse(out.trim().split("\n").at(-1)!)).toMatchObject({ passed: 2, errored: 0 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
