import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/index.js";
import { cliPath, type FixtureProject, makeProject, runCli } from "../support/project.js";
import { evalFileHeader } from "./eval-source.js";

// A store in a place nobody may write to (a CI artifact mounted read-only, a file marked
// immutable): SQLite cannot keep its journal beside it, even to read. The commands that only
// read it read a copy; a run is refused with what to do.

const evals = `${evalFileHeader}
export const pair = defineSuite<string, string>({
  id: "pair",
  cases: [
    { id: "a", input: "a", expected: "a" },
    { id: "b", input: "b", expected: "x" },
  ],
  target: (input) => input,
  scorers: [same],
});
`;

/** Mark paths immutable (even root may not write them), or undo it; false where that is refused. */
function immutable(on: boolean, ...paths: string[]): boolean {
  try {
    execFileSync("chattr", [on ? "+i" : "-i", ...paths], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const copies = () => readdirSync(tmpdir()).filter((name) => name.startsWith("niceeval-store-"));

describe("a store in a read-only place (real CLI)", { timeout: 60_000 }, () => {
  let project: FixtureProject;
  let folder: string;
  let store: string;
  let locked = false;
  beforeAll(async () => {
    project = await makeProject({ "evals/pair.eval.ts": evals });
    folder = join(project.dir, "artifact");
    store = join(folder, "runs.sqlite");
    const run = await runCli(["run", "--name", "nightly", "--store", store], project.dir);
    expect(run.code).toBe(1);
    locked = immutable(true, store, folder);
  });
  afterAll(async () => {
    if (locked) immutable(false, store, folder);
    await project.cleanup();
  });

  it("is listed, shown and compared from a copy, which is removed after", async ({ skip }) => {
    if (!locked) skip("chattr +i is not allowed on this machine");
    // Really read-only: nothing can be created beside the store.
    expect(() => writeFileSync(join(folder, "probe"), "")).toThrow();
    const before = copies();
    // The copy of a reader killed outright (its process is gone): the next reader removes it.
    const gone = spawnSync(process.execPath, ["-e", ""]).pid;
    const orphan = mkdtempSync(join(tmpdir(), `niceeval-store-${gone}-`));
    writeFileSync(join(orphan, "runs.sqlite"), "left behind");

    const listed = await runCli(["runs", "--store", store], project.dir);
    expect(listed.stderr).toBe("");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/nightly\s.*finished\s+2\s+50\.0%/);

    const shown = await runCli(["show", "nightly", "--store", store], project.dir);
    // The run's own verdict: case b failed.
    expect(shown.stderr).toBe("");
    expect(shown.code).toBe(1);
    expect(shown.stdout).toMatch(/✓ a passed/);
    expect(shown.stdout).toMatch(/✗ b failed/);

    const compared = await runCli(["compare", "nightly", "nightly", "--store", store], project.dir);
    expect(compared.code).toBe(0);

    expect(copies()).toEqual(before);
    expect(existsSync(orphan)).toBe(false);
  });

  it("refuses a run that would write to it, saying what to do", async ({ skip }) => {
    if (!locked) skip("chattr +i is not allowed on this machine");
    const run = await runCli(["run", "--store", store], project.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /cannot write to the store .*runs\.sqlite: it or its folder is read-only .* Make it writable, or pass --store <a path in a folder you can write to>/,
    );
  });

  it("opened to read only through the API, reads its runs and refuses writes", async ({ skip }) => {
    if (!locked) skip("chattr +i is not allowed on this machine");
    const opened = await openStore(store, { readOnly: true });
    try {
      const [run] = await opened.listRuns();
      expect(run?.name).toBe("nightly");
      expect(opened.location).toBe(`sqlite:${store}`);
      await expect(opened.finishRun(run!.runId, { status: "finished" } as never)).rejects.toThrow(
        /was opened to read only/,
      );
    } finally {
      await opened.close();
    }
  });
});

/** Make a file read-only for this user: immutable for root (whom modes do not stop), else 0444. */
function readOnlyFile(path: string, on: boolean): boolean {
  if (process.getuid?.() === 0) return immutable(on, path);
  chmodSync(path, on ? 0o444 : 0o644);
  return true;
}

// The store file alone read-only, in a folder that can be written (a file copied from a
// read-only artifact, a chmod): SQLite then opens it read-only without a word, so the run's
// first write fails. The run is refused before any case, as for a read-only folder, rather than
// running unstored and advising a --resume of a run the store never held.
describe("a read-only store file in a writable folder (real CLI)", { timeout: 60_000 }, () => {
  let project: FixtureProject;
  let store: string;
  let locked = false;
  beforeAll(async () => {
    project = await makeProject({ "evals/pair.eval.ts": evals });
    store = join(project.dir, "runs.sqlite");
    const run = await runCli(["run", "--name", "nightly", "--store", store], project.dir);
    expect(run.code).toBe(1);
    locked = readOnlyFile(store, true);
  });
  afterAll(async () => {
    if (locked) readOnlyFile(store, false);
    await project.cleanup();
  });

  it("refuses a run before any case, saying what to do, and still lists the store", async ({
    skip,
  }) => {
    if (!locked) skip("chattr +i is not allowed on this machine");
    const run = await runCli(["run", "--store", store], project.dir);
    expect(run.stderr).toMatch(
      /^niceeval: cannot write to the store .*runs\.sqlite: it or its folder is read-only .* Make it writable, or pass --store <a path in a folder you can write to>/,
    );
    expect(run.stderr).not.toContain("--resume");
    expect(run.stdout).toBe("");
    expect(run.code).toBe(2);
    const listed = await runCli(["runs", "--store", store, "--json"], project.dir);
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { name: string }[]).map((r) => r.name)).toEqual([
      "nightly",
    ]);
  });
});

/** The store's schema version, journal mode and tables, read without changing anything. */
function storeState(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    return {
      version: db.prepare("SELECT max(version) AS v FROM schema_version").pluck().get(),
      journal: db.pragma("journal_mode", { simple: true }),
      shared: db
        .prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'shared_cells'")
        .pluck()
        .get(),
    };
  } finally {
    db.close();
  }
}

// A store an older niceeval wrote (still writing to it, maybe, in another job): commands that
// only read it leave it as it is (schema, journal mode) and read an upgraded copy; a missing
// store is not created by a reader.
describe("readers leave a store as they find it (real CLI)", { timeout: 60_000 }, () => {
  let project: FixtureProject;
  let store: string;
  beforeAll(async () => {
    project = await makeProject({ "evals/pair.eval.ts": evals });
    store = join(project.dir, "old.sqlite");
    const run = await runCli(["run", "--name", "before", "--store", store], project.dir);
    expect(run.code).toBe(1);
    // What the version before shared cells wrote: schema 3, and a rollback journal.
    const db = new Database(store);
    db.exec(
      "DROP TABLE shared_cells; ALTER TABLE run_evals DROP COLUMN interrupted; DELETE FROM schema_version WHERE version >= 4",
    );
    db.pragma("journal_mode = DELETE");
    db.close();
  });
  afterAll(async () => {
    await project.cleanup();
  });

  it("reads an older store from an upgraded copy, leaving the file unchanged", async () => {
    const before = storeState(store);
    expect(before).toEqual({ version: 3, journal: "delete", shared: 0 });
    // The copy goes in the temporary folder: one that cannot be written is named as the cause.
    const noTemp = await runCli(["runs", "--store", store], project.dir, {
      TMPDIR: join(project.dir, "no-such-tmp"),
    });
    expect(noTemp.code).toBe(2);
    expect(noTemp.stderr).toContain(
      `Reading a copy of it failed too (ENOENT: no such file or directory, mkdtemp '${join(project.dir, "no-such-tmp")}/niceeval-store-`,
    );
    expect(noTemp.stderr).toContain(
      `: the copy goes in the temporary folder ${join(project.dir, "no-such-tmp")} (TMPDIR); make that writable, or point TMPDIR at a folder you can write to.`,
    );
    const listed = await runCli(["runs", "--store", store], project.dir);
    expect(listed.stderr).toBe("");
    expect(listed.stdout).toMatch(/before\s.*finished\s+2\s+50\.0%/);
    const shown = await runCli(["show", "before", "--store", store], project.dir);
    expect(shown.code).toBe(1);
    expect(shown.stdout).toMatch(/✗ b failed/);
    expect(storeState(store)).toEqual(before);
    expect(existsSync(`${store}-wal`)).toBe(false);
    // A run, which writes, upgrades it.
    const run = await runCli(["run", "--store", store], project.dir);
    expect(run.code).toBe(1);
    expect(storeState(store)).toMatchObject({ version: 5, journal: "wal", shared: 1 });
  });

  it("view and export of a store that is not there say so and create nothing", async () => {
    const missing = join(project.dir, "nowhere", "runs.sqlite");
    for (const args of [
      ["view", "--store", missing],
      ["export", "latest", "--html", join(project.dir, "report.html"), "--store", missing],
    ]) {
      const result = await runCli(args, project.dir);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/no store at .*nowhere\/runs\.sqlite: no run has been stored/);
    }
    expect(existsSync(join(project.dir, "nowhere"))).toBe(false);
    await expect(openStore(missing, { readOnly: true })).rejects.toThrow(/no store at/);
    expect(existsSync(join(project.dir, "nowhere"))).toBe(false);
  });
});

/**
 * How to run the CLI as a user whom file modes stop: root (whom they do not) runs it as nobody,
 * another user as itself; undefined where root has no way to switch users.
 */
function userModesStop(): string[] | undefined {
  if (process.getuid?.() !== 0) return [];
  for (const [tool, ...args] of [
    ["runuser", "-u", "nobody", "--"],
    ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"],
  ] as const)
    if (spawnSync(tool, [...args, "true"]).status === 0) return [tool, ...args];
  return undefined;
}

/** Run the built CLI in `cwd` through `prefix` (another user), as runCli does. */
function runCliThrough(prefix: string[], args: string[], cwd: string) {
  const [command, ...rest] = [...prefix, process.execPath, cliPath, ...args];
  const result = spawnSync(command!, rest, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, CI: "true", NO_COLOR: "1" },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

// Modes, not immutability: a store of mode 0444, copied from an artifact or chmodded by its
// owner, read by a user modes apply to. Its private copy must be writable (a copy keeps the
// mode), and a file that cannot be written is read from the copy even in a writable folder: read
// in place, SQLite would leave its -wal and -shm beside it with the file's mode 0444, and the
// owner's next run, once the store is writable again, would fail on them.
describe("a store of mode 0444, read by a user modes stop (real CLI)", { timeout: 60_000 }, () => {
  const prefix = userModesStop();
  let project: FixtureProject;
  const cli = (...args: string[]) => runCliThrough(prefix ?? [], args, project.dir);
  beforeAll(async () => {
    project = await makeProject({ "evals/pair.eval.ts": evals });
    const run = await runCli(["run", "--name", "nightly", "--store", "runs.sqlite"], project.dir);
    expect(run.code).toBe(1);
    // The other user owns the project, as its owner would.
    if (prefix?.length) execFileSync("chown", ["-R", "-h", "nobody", project.dir]);
  });
  afterAll(async () => {
    await project.cleanup();
  });

  it("in a read-only folder: runs, show, compare and export read a copy", async ({ skip }) => {
    if (!prefix) skip("running as root, with neither runuser nor setpriv to run as nobody");
    const folder = join(project.dir, "artifact");
    execFileSync("mkdir", [folder]);
    execFileSync("cp", [join(project.dir, "runs.sqlite"), folder]);
    const store = join(folder, "runs.sqlite");
    chmodSync(store, 0o444);
    chmodSync(folder, 0o555);
    try {
      const listed = cli("runs", "--store", store);
      expect(listed.stderr).toBe("");
      expect(listed.stdout).toMatch(/nightly\s.*finished\s+2\s+50\.0%/);
      const shown = cli("show", "nightly", "--store", store);
      expect(shown.stderr).toBe("");
      expect(shown.stdout).toMatch(/✗ b failed/);
      expect(cli("compare", "nightly", "nightly", "--store", store)).toMatchObject({
        code: 0,
        stderr: "",
      });
      const html = join(project.dir, "report.html");
      expect(cli("export", "nightly", "--html", html, "--store", store)).toMatchObject({
        stderr: "",
        code: 0,
      });
      expect(existsSync(html)).toBe(true);
    } finally {
      chmodSync(folder, 0o755);
    }
  });

  it("in a writable folder: read from a copy, so a run once it is writable again stores", async ({
    skip,
  }) => {
    if (!prefix) skip("running as root, with neither runuser nor setpriv to run as nobody");
    const store = join(project.dir, "runs.sqlite");
    chmodSync(store, 0o444);
    const listed = cli("runs", "--store", store);
    expect(listed.stderr).toBe("");
    expect(listed.stdout).toMatch(/nightly\s.*finished/);
    expect(existsSync(`${store}-wal`) || existsSync(`${store}-shm`)).toBe(false);
    chmodSync(store, 0o644);
    const run = cli("run", "--name", "again", "--store", store);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(1);
    expect(cli("runs", "--store", store).stdout).toMatch(/again\s/);
  });
});
