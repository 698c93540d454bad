import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/index.js";
import { attempt, manifest } from "../store/fixtures.js";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { evalFileHeader } from "./eval-source.js";
import { cleanEnv } from "./store-fixture.js";

// A store damaged past its header (a page overwritten inside the file) is refused by `run` as
// `runs` refuses it, before any case runs; damage only a write reaches stops the run there.

/** Ten cases, one at a time with --concurrency 1, each long enough for the store to answer. */
const slowEval = `${evalFileHeader}
export const slow = defineSuite<string, string>({
  id: "slow",
  cases: Array.from({ length: 10 }, (_, i) => ({ id: "c" + i, input: "c" + i, expected: "c" + i })),
  target: async (input) => {
    console.error("target ran for " + input);
    await new Promise((done) => setTimeout(done, 150));
    return input;
  },
  scorers: [same],
});
`;

const damaged = (path: string) =>
  `niceeval: ${path} is a damaged SQLite database (database disk image is malformed); niceeval does not write to it. Restore it from a copy, or move it away; meanwhile pass --store <other path> to keep runs in another file, or run with --no-store.\n`;

/** Overwrite a page of the store's file with garbage: its `nth` page, or the last leaf of `tree`. */
function damage(path: string, at: { page: number } | { lastLeafOf: string }): Buffer {
  const db = new Database(path);
  db.pragma("wal_checkpoint(TRUNCATE)");
  const page =
    "page" in at
      ? at.page
      : (
          db
            .prepare(
              "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY path DESC LIMIT 1",
            )
            .get(at.lastLeafOf) as { pageno: number }
        ).pageno;
  const size = db.pragma("page_size", { simple: true }) as number;
  db.close();
  const bytes = readFileSync(path);
  bytes.fill(0xa5, (page - 1) * size, page * size);
  writeFileSync(path, bytes);
  return bytes;
}

describe("a damaged store through the real CLI", { timeout: 120_000 }, () => {
  let project: FixtureProject;
  const cli = (args: string[]) => runCli(args, project.dir, cleanEnv);
  const ran = (stderr: string) => stderr.match(/target ran for c\d/g) ?? [];

  beforeAll(async () => {
    project = await makeProject({ "evals/slow.eval.ts": slowEval });
  });
  afterAll(() => project.cleanup());

  it("run refuses a store damaged inside (4 KiB at offset 8192) before any case, as runs does", async () => {
    const path = join(project.dir, "root.sqlite");
    for (let i = 0; i < 3; i++)
      expect((await cli(["run", "--store", "root.sqlite", "--filter", "c0"])).code).toBe(0);
    // Page 3: the root page of the runs table, past the header and the schema SQLite checks.
    const bytes = damage(path, { page: 3 });
    const runs = await cli(["runs", "--store", "root.sqlite"]);
    expect(runs.code).toBe(2);
    expect(runs.stderr).toBe(damaged(path));
    for (const args of [[], ["--filter", "c1"], ["--resume", "latest"]]) {
      const run = await cli(["run", "--store", "root.sqlite", ...args]);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(damaged(path));
      expect(run.stdout).toBe("");
    }
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it("refuses one whose damage only the run's first write reaches, before any case", async () => {
    const path = join(project.dir, "evals.sqlite");
    // Runs of fifty evals each: the rows of the run's evals span leaves, and a new run's go last.
    const store = await openSqliteStore(path);
    const evals = Array.from({ length: 50 }, (_, i) => `e${i}`);
    for (let r = 0; r < 20; r++) await store.beginRun(manifest(`run-${r}`, { evals }));
    await store.close();
    const bytes = damage(path, { lastLeafOf: "run_evals" });
    // Opened, the store reads as sound where it is checked: the run's first write finds it.
    await (await openSqliteStore(path)).close();
    const run = await cli(["run", "--store", "evals.sqlite"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(damaged(path));
    expect(ran(run.stderr)).toEqual([]);
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it("stops a run once a write finds the store damaged: no case starts after, and no --resume advice", async () => {
    const path = join(project.dir, "attempts.sqlite");
    const store = await openSqliteStore(path);
    await store.beginRun(manifest("big"));
    for (let i = 0; i < 3000; i += 500)
      await store.appendAttempts(
        "big",
        Array.from({ length: 500 }, (_, k) => attempt("alpha", i + k)),
      );
    await store.close();
    // Where the new run's attempt keys go (after every other run's): only its first append reaches it.
    damage(path, { lastLeafOf: "attempts_key" });
    const run = await cli(["run", "--store", "attempts.sqlite", "--concurrency", "1"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${damaged(path)}niceeval: the run stops: no new case starts\n`);
    expect(ran(run.stderr).length).toBeGreaterThan(0);
    expect(ran(run.stderr).length).toBeLessThan(5);
    // What the stop cut off and left unstarted, counted; the store takes no --resume, and the
    // attempt it cut off does not promise one.
    expect(run.stdout).toMatch(
      /cancelled: (1 attempt cut off by the stop \(errored, left out of the pass rate\) · )?\d+ attempts did not start(, nor did [^\n]*)?\n/,
    );
    expect(run.stdout).not.toMatch(/resume/);
    // Every attempt that ran is said unwritten: none reached the damaged store.
    const last = run.stderr.trimEnd().split("\n").at(-1)!;
    expect(last).toMatch(/\(see above\): (\d+) of its \1 attempts were not written, so/);
    expect(last.replace(/: \d+ of its \d+ attempts were not written/, "")).toBe(
      `niceeval: the run is not stored whole in sqlite:${path} (see above), so it exits 2; the store is damaged and takes no write, so no case started once that was found and \`--resume\` cannot continue the run there. Restore the store from a copy or move it away, or pass --store <other path> (or --no-store), and run again`,
    );
    expect(run.stderr).not.toMatch(/run --resume/);
  });
});
