import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FixtureProject,
  makeProject,
  readJsonRecords,
  repoRoot,
  runCli,
} from "../support/project.js";

// Case c3's target installs @sinonjs/fake-timers (what `vi.useFakeTimers()` is built on) and
// never uninstalls them, as a test that forgets its cleanup does: from then on the process's
// global setTimeout, setImmediate, setInterval, Date and performance are fakes that never fire
// or move unless the test ticks them. The targets use no timer themselves.
const suite = (id: string, uninstall: boolean, atTop = false) => `
import FakeTimers from "@sinonjs/fake-timers";
${atTop ? "FakeTimers.install();" : ""}
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });
export const s = defineSuite({
  id: "${id}",
  cases: Array.from({ length: 40 }, (_, i) => ({ id: "c" + i, input: i, expected: i })),
  target: async (i) => {
    if (i === 3) {
      const clock = FakeTimers.install();
      ${uninstall ? "clock.uninstall();" : ""}
    }
    await Promise.resolve();
    return i;
  },
  scorers: [same],
});
`;

// Each case's target fakes the clock and timers as a test does (Vitest's default set: not
// process.nextTick nor queueMicrotask), waits while they are installed, and uninstalls them in a
// finally: the timer it sets after its first await must be a fake the clock fires.
const awaiting = (id: string) => `
import FakeTimers from "@sinonjs/fake-timers";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });
export const s = defineSuite({
  id: "${id}",
  cases: Array.from({ length: 6 }, (_, i) => ({ id: "c" + i, input: i, expected: i })),
  target: async (i) => {
    const clock = FakeTimers.install({
      toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "setImmediate", "clearImmediate", "Date", "performance"],
    });
    try {
      await Promise.resolve();
      let firedAt = -1;
      setTimeout(() => { firedAt = Date.now(); }, 3_600_000);
      await clock.tickAsync(3_600_000);
      return firedAt === 3_600_000 ? i : -1;
    } finally {
      clock.uninstall();
    }
  },
  scorers: [same],
});
`;

describe("a target that installs fake timers (real CLI, real @sinonjs/fake-timers)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/leftinstalled.eval.ts": suite("leftinstalled", false),
      "evals/uninstalled.eval.ts": suite("uninstalled", true),
      // Installed as the file loads (no case installs them): the file's own mistake.
      "evals/attop.eval.ts": suite("attop", true, true).replace("if (i === 3)", "if (false)"),
      "evals/awaiting.eval.ts": awaiting("awaiting"),
    });
    await mkdir(join(project.dir, "node_modules/@sinonjs"), { recursive: true });
    await symlink(
      join(repoRoot, "node_modules/@sinonjs/fake-timers"),
      join(project.dir, "node_modules/@sinonjs/fake-timers"),
      "dir",
    );
  });
  afterAll(() => project.cleanup());

  const run = async (id: string, ...flags: string[]) => {
    const args = ["run", `evals/${id}.eval.ts`, "--no-store", "--json", `${id}.json`, ...flags];
    const cli = await runCli(args, project.dir);
    const records = await readJsonRecords(project.dir, `${id}.json`);
    return { cli, records };
  };

  for (const flags of [[], ["--no-supervise"]]) {
    const how = flags.length ? "in one process" : "supervised";
    it(`finishes every case when they are left installed (${how})`, async () => {
      const { cli, records } = await run("leftinstalled", ...flags);
      expect(records).toHaveLength(40);
      // The case that installed them is errored and names what it replaced (put back after it,
      // so the cases after it run on the real timers); every other case passes.
      const notPassed = records.filter((r) => r.verdict !== "passed");
      expect(notPassed.map((r) => `${r.caseId}:${r.verdict}`)).toEqual(["c3:errored"]);
      expect(notPassed[0]?.error?.message).toMatch(
        /replaced .*process\.nextTick.*setTimeout.* while this attempt ran.*Fake timers must be uninstalled before the attempt ends/,
      );
      expect(cli.stderr).not.toMatch(/SIGTERM|hang|killed/);
    }, 60_000);
  }

  for (const flags of [[], ["--no-supervise"]]) {
    const how = flags.length ? "in one process" : "supervised";
    it(`passes every case that waits with them installed and uninstalls them in a finally (${how})`, async () => {
      // An hour of fake time: were the fakes taken away at the first await, the timer would be
      // a real one that has not fired. One at a time: fake timers are the process's. No
      // --timeout: the target is then called at once, in the attempt's synchronous part.
      const { cli, records } = await run("awaiting", "--concurrency", "1", ...flags);
      expect(records.map((r) => `${r.caseId}:${r.verdict}:${r.error?.message ?? ""}`)).toEqual(
        Array.from({ length: 6 }, (_, i) => `c${i}:passed:`),
      );
      expect(cli.code).toBe(0);
    }, 60_000);
  }

  it("passes every case when the target uninstalls them", async () => {
    const { cli, records } = await run("uninstalled");
    expect(records.map((r) => r.verdict)).toEqual(Array(40).fill("passed"));
    expect(cli.code).toBe(0);
  }, 60_000);

  it("puts back process.nextTick when an eval file installs them as it loads, and says so", async () => {
    const { cli, records } = await run("attop");
    expect(records.map((r) => r.verdict)).toEqual(Array(40).fill("passed"));
    expect(cli.stderr).toMatch(
      /evals\/attop\.eval\.ts replaced process\.nextTick and queueMicrotask as it loaded \(fake timers installed at its top level\?\)/,
    );
    expect(cli.code).toBe(0);
  }, 60_000);
});
