import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliPath, type FixtureProject, makeProject, runCli } from "../support/project.js";

// Targets that start processes and never end them: a supervised run ends them with the eval
// process that ran the target (its process group), whether the run ended normally or the eval
// process was killed for a hang. A marker in the command line tells this run's processes apart.
const marker = `4${randomBytes(3).readUIntBE(0, 3)}`;
const detachedMarker = `5${randomBytes(3).readUIntBE(0, 3)}`;

const leakingSuite = `
import { spawn } from "node:child_process";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });
export const leaks = defineSuite({
  id: "leaks",
  concurrency: 1,
  cases: [{ id: "a", input: "a", expected: "a" }, { id: "b", input: "b", expected: "b" }],
  target: (input) => {
    // A shell that starts a child of its own: both are left behind.
    spawn("sh", ["-c", "sleep ${marker}; :"], { stdio: "ignore" });
    // One that holds the run's stdout, as a server started with stdio "inherit" does.
    if (process.env.INHERIT) spawn("sleep", ["${marker}"], { stdio: "inherit" });
    // One in a process group of its own: not followed.
    if (process.env.DETACHED) spawn("sleep", ["${detachedMarker}"], { stdio: "ignore", detached: true }).unref();
    if (input === "b" && process.env.HANG_B) for (;;) {}
    if (process.env.HOLD) {
      console.error("SPAWNED");
      return new Promise(() => {});
    }
    return input;
  },
  scorers: [same],
});
`;

/** Pids of the processes whose command line holds the marker (Linux: /proc). */
function leftBehind(sought = marker): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (cmdline.includes(`sleep\0${sought}`) || cmdline.includes(`sleep ${sought}`))
        found.push(Number(entry));
    } catch {}
  }
  return found;
}

/** The processes still there after up to `ms` (a killed process takes a moment to go). */
async function stillThere(ms = 2000): Promise<number[]> {
  const until = Date.now() + ms;
  let pids = leftBehind();
  while (pids.length > 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    pids = leftBehind();
  }
  return pids;
}

describe.skipIf(process.platform !== "linux")("processes a target started (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/leaks.eval.js": leakingSuite });
  });
  afterAll(async () => {
    for (const pid of [...leftBehind(), ...leftBehind(detachedMarker)]) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
    await project.cleanup();
  });

  it("ends them with the run", async () => {
    const run = await runCli(["run", "--no-store"], project.dir);
    expect(run.stdout).toContain("2 passed");
    expect(run.code).toBe(0);
    expect(await stillThere()).toEqual([]);
  });

  // A shell's job or a CI step: the CLI leads a process group, which a closed terminal (SIGHUP)
  // or a hard stop (SIGKILL: `timeout -s KILL`, a runner ending the job) signals whole. The eval
  // process leads a group of its own, which neither reaches: before, what its targets started
  // outlived both.
  for (const [signal, env] of [
    ["SIGHUP", {}],
    ["SIGKILL", {}],
    ["SIGKILL", { NICEEVAL_ORPHAN_WATCH: "thread" }],
  ] as const) {
    const how = "NICEEVAL_ORPHAN_WATCH" in env ? " (an eval process watching with a thread)" : "";
    it(`ends them when the CLI's process group gets ${signal}${how}`, async () => {
      const cli = spawn(process.execPath, [cliPath, "run", "--no-store"], {
        cwd: project.dir,
        detached: true,
        env: { ...process.env, ...env, CI: "true", HOLD: "1" },
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      await new Promise<void>((resolve, reject) => {
        cli.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
          stderr += chunk;
          if (stderr.includes("SPAWNED")) resolve();
        });
        cli.on("close", () => reject(new Error(`the CLI ended first: ${stderr}`)));
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(leftBehind().length).toBeGreaterThan(0);
      const closed = new Promise((resolve) => cli.on("close", resolve));
      process.kill(-cli.pid!, signal);
      await closed;
      // The thread waits 2 s for a free main thread to exit its own way, and reads every 0.25 s.
      expect(await stillThere(env ? 4000 : 2000)).toEqual([]);
    });
  }

  // In process, nothing ends with an eval process: the CLI ends them as it exits, else a pipe
  // its report goes through (`niceeval run --no-supervise | tee log`) stays open until they end.
  it("ends them as the CLI exits with --no-supervise, leaving one started detached", async () => {
    const cli = spawn(process.execPath, [cliPath, "run", "--no-store", "--no-supervise"], {
      cwd: project.dir,
      env: { ...process.env, CI: "true", INHERIT: "1", DETACHED: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    cli.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    // The pipe closes once every process holding it ended: the CLI and the inherited sleep.
    const [code] = await Promise.all([
      new Promise((resolve) => cli.on("exit", resolve)),
      new Promise((resolve) => cli.stdout!.on("close", resolve)),
    ]);
    expect(stdout).toContain("2 passed");
    expect(code).toBe(0);
    expect(await stillThere()).toEqual([]);
    expect(leftBehind(detachedMarker)).toHaveLength(2);
  });

  it("ends them with an eval process killed for a hang, and the run goes on", async () => {
    const run = await runCli(["run", "--no-store", "--hang-timeout", "1000"], project.dir, {
      HANG_B: "1",
    });
    expect(run.stdout).toContain("1 passed");
    expect(run.stdout).toContain("1 errored");
    expect(run.code).toBe(1);
    expect(await stillThere()).toEqual([]);
  });
});
