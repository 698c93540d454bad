import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CliRun,
  cliPath,
  type FixtureProject,
  makeProject,
  runCli,
} from "../support/project.js";
import { cleanEnv, qaEval } from "./store-fixture.js";

// A store on a disk that is full, or in a process over its file size limit (ulimit -f): SQLite
// cannot make the shared-memory file it keeps beside a WAL store, and fails the open with a bare
// "disk I/O error". Every command that opens the store must say which store, what is wrong and
// what to do (exit 2), not crash with a stack trace; once there is room the store reads as before.

/** The CLI under a file size limit of `blocks` 1 KiB blocks (`ulimit -f`). */
function runLimited(args: readonly string[], cwd: string, blocks: number): CliRun {
  const quoted = [process.execPath, cliPath, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`);
  const { status, stdout, stderr } = spawnSync(
    "sh",
    ["-c", `ulimit -f ${blocks} && exec ${quoted.join(" ")}`],
    { cwd, encoding: "utf8", env: { ...process.env, ...cleanEnv, CI: "true", NO_COLOR: "1" } },
  );
  return { code: status, stdout, stderr };
}

/** What every command says of a store it cannot open for want of room. */
function expectNoRoom(result: CliRun, store: string): void {
  expect(result.stderr).not.toMatch(/crashed|\n\s+at /);
  expect(result.stderr).toMatch(
    new RegExp(
      `^niceeval: cannot use the store ${store.replaceAll(".", "\\.")}: SQLite could not write in it or beside it \\(disk I/O error, SQLITE_IOERR_SHMSIZE\\); the disk holding it may be full, or this process past its file size limit \\(ulimit -f\\)\\. Free space there, or pass --store <other path> to keep runs in another file\\.\\n$`,
    ),
  );
  expect(result.code).toBe(2);
}

describe("a store with no room to write beside it (real CLI)", { timeout: 120_000 }, () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/qa.eval.ts": qaEval });
  });
  afterAll(() => project.cleanup());

  it("under ulimit -f: runs, show and run say what to do; the store reads after", async () => {
    const store = join(project.dir, "limited.sqlite");
    expect((await runCli(["run", "--name", "first", "--store", store], project.dir)).code).toBe(0);
    for (const args of [["runs"], ["show", "first"], ["run"]])
      expectNoRoom(runLimited([...args, "--store", store], project.dir, 16), store);
    const listed = await runCli(["runs", "--store", store, "--json"], project.dir);
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { name: string }[]).map((r) => r.name)).toEqual(["first"]);
  });

  it("a run whose first write finds no room reports, and is not advised a --resume of a run never stored", async () => {
    const store = join(project.dir, "first-write.sqlite");
    expect((await runCli(["run", "--name", "first", "--store", store], project.dir)).code).toBe(0);
    // Held open here, the store keeps its shared-memory file: the run's open needs no room, its
    // first write (the run's row, into the journal) does.
    const holder = new Database(store);
    try {
      holder.prepare("SELECT count(*) FROM runs").get();
      const run = runLimited(["run", "--store", store], project.dir, 1);
      expect(run.code).toBe(2);
      expect(run.stdout).toMatch(/3 passed/);
      expect(run.stderr).toMatch(/SQLite could not write in it or beside it/);
      expect(run.stderr).toMatch(
        /the run is not stored in sqlite:.*first-write\.sqlite at all: its first write failed \(see above\), so it exits 2; once the store answers again, run it again \(or pass --store <other path>\)/,
      );
      expect(run.stderr).not.toContain("--resume");
    } finally {
      holder.close();
    }
    const listed = await runCli(["runs", "--store", store, "--json"], project.dir);
    expect((JSON.parse(listed.stdout) as { name: string }[]).map((r) => r.name)).toEqual(["first"]);
  });

  it("a run whose store fills up mid-run says how many of its attempts were not written", async () => {
    const store = join(project.dir, "mid-run.sqlite");
    expect((await runCli(["run", "--name", "first", "--store", store], project.dir)).code).toBe(0);
    const holder = new Database(store);
    let lost: number;
    try {
      holder.prepare("SELECT count(*) FROM runs").get();
      // 6,000 attempts: the journal passes 256 KiB part of the way through.
      const run = runLimited(
        ["run", "--trials", "2000", "--name", "full", "--store", store],
        project.dir,
        256,
      );
      expect(run.code).toBe(2);
      const said = run.stderr.match(
        /the run is not stored whole in sqlite:.*mid-run\.sqlite \(see above\): (\d+) of its 6000 attempts were not written, so it exits 2; once the store answers again, `niceeval run --resume [0-9a-f]{8} --store \S+mid-run\.sqlite` keeps the attempts it holds and runs the rest/,
      );
      expect(said).not.toBeNull();
      // The failure's own sentence sits in the line's brackets without its full stop.
      expect(run.stderr).toMatch(
        /niceeval: writing the run to sqlite:.*mid-run\.sqlite failed \(.*[^.]\); the report is still written/,
      );
      lost = Number(said![1]);
    } finally {
      holder.close();
    }
    const listed = await runCli(["runs", "--store", store, "--json"], project.dir);
    const full = (JSON.parse(listed.stdout) as { name: string; attempts: number }[]).find(
      (r) => r.name === "full",
    );
    // What was said not written is exactly what the store lacks: nothing lost unsaid.
    expect(lost).toBeGreaterThan(0);
    expect(full!.attempts + lost).toBe(6000);
  });

  it("on a full disk (a 2 MiB tmpfs): the same, and the store reads once there is room", async ({
    skip,
  }) => {
    if (process.getuid?.() !== 0) skip("mounting a tmpfs needs root");
    const mount = join(project.dir, "small");
    mkdirSync(mount);
    if (spawnSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mount]).status !== 0)
      skip("mount -t tmpfs is not allowed here (a container without CAP_SYS_ADMIN)");
    try {
      const store = join(mount, "runs.sqlite");
      expect((await runCli(["run", "--name", "first", "--store", store], project.dir)).code).toBe(
        0,
      );
      const filler = join(mount, "filler");
      spawnSync("dd", ["if=/dev/zero", `of=${filler}`, "bs=4096"], { stdio: "ignore" });
      for (const args of [["runs"], ["show", "first"], ["run"]])
        expectNoRoom(await runCli([...args, "--store", store], project.dir), store);
      rmSync(filler);
      const listed = await runCli(["runs", "--store", store, "--json"], project.dir);
      expect(listed.code).toBe(0);
      expect((JSON.parse(listed.stdout) as { name: string }[]).map((r) => r.name)).toEqual([
        "first",
      ]);
    } finally {
      spawnSync("umount", [mount]);
    }
  });
});

// Four evals of a case each, JavaScript (no compiled copy to write): each eval's testcases fit in
// the JUnit reporter's file of them under 1 KiB, the report they make does not.
const fourEvals = `import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const ran = createScorer({ name: "ran", score: () => ({ score: 1 }) });
const suite = (id) => defineSuite({ id, cases: [{ id: "c", input: "x" }], target: (x) => x, scorers: [ran] });
export const first = suite("first");
export const second = suite("second");
export const third = suite("third");
export const fourth = suite("fourth");
`;

describe("a JUnit report with no room to write (real CLI)", { timeout: 60_000 }, () => {
  it("under ulimit -f: keeps the report that was there, and leaves no partial file beside it", async () => {
    const project = await makeProject({ "evals/four.eval.mjs": fourEvals });
    try {
      const reports = join(project.dir, "reports");
      mkdirSync(reports);
      writeFileSync(join(reports, "junit.xml"), "the last run's report");
      const run = runLimited(
        ["run", "--no-store", "--reporter", "junit=reports/junit.xml"],
        project.dir,
        1,
      );
      expect(run.stdout).toMatch(/4 passed/);
      expect(run.stderr).toMatch(/the junit report \(reports\/junit\.xml\).*EFBIG/);
      expect(readFileSync(join(reports, "junit.xml"), "utf8")).toBe("the last run's report");
      expect(readdirSync(reports)).toEqual(["junit.xml"]);
    } finally {
      await project.cleanup();
    }
  });
});

// The store's -wal file deleted while a process has written to it and holds it open: another
// process finds SQLite's shared memory counting frames the new, empty journal does not have.
describe("a store whose journal was deleted under its writer (real CLI)", {
  timeout: 60_000,
}, () => {
  it("runs says the journal may be gone and to retry once no process uses it, not a full disk", async () => {
    const project = await makeProject({ "evals/qa.eval.ts": qaEval });
    try {
      const store = join(project.dir, "journal.sqlite");
      expect((await runCli(["run", "--name", "kept", "--store", store], project.dir)).code).toBe(0);
      const writer = new Database(store);
      try {
        writer.prepare("UPDATE runs SET name = 'renamed'").run();
        rmSync(`${store}-wal`);
        const listed = await runCli(["runs", "--store", store], project.dir);
        expect(listed.stderr).toBe(
          `niceeval: cannot use the store ${store}: SQLite could not read it with its journal (disk I/O error, SQLITE_IOERR_SHORT_READ); its -wal file may have been deleted or replaced while a process wrote to it, or the disk is failing. Once no process uses the store, retry (SQLite then reads the file alone); meanwhile pass --store <other path> to keep runs in another file.\n`,
        );
        expect(listed.code).toBe(2);
      } finally {
        writer.close();
      }
      const again = await runCli(["runs", "--store", store, "--json"], project.dir);
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toHaveLength(1);
    } finally {
      await project.cleanup();
    }
  });
});
