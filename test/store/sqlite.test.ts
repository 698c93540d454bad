import { execFile } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NiceevalError } from "../../src/errors.js";
import type { AttemptRecord } from "../../src/eval/record.js";
import { isTruncated, openSqliteStore } from "../../src/store/index.js";
import { APPLICATION_ID, migrate } from "../../src/store/sqlite/schema.js";
import { repoRoot } from "../support/project.js";
import { attempt, judgment, manifest } from "./fixtures.js";
import { defineStoreSuite } from "./store-suite.js";

const run = promisify(execFile);

defineStoreSuite("sqlite", async () => {
  const dir = await mkdtemp(join(tmpdir(), "niceeval-store-"));
  const store = await openSqliteStore(join(dir, "nested", "niceeval.sqlite"));
  return { store, cleanup: () => rm(dir, { recursive: true, force: true }) };
});

// The CLI's store: appends on a worker thread. The thread runs the built script, so this opens
// the built store (from sources there is no script, and appends stay on this thread).
async function openThreadStore() {
  const built = pathToFileURL(join(repoRoot, "dist/store/sqlite/index.js")).href;
  const { openSqliteStore: openBuilt } = (await import(
    built
  )) as typeof import("../../src/store/sqlite/index.js");
  const dir = await mkdtemp(join(tmpdir(), "niceeval-store-thread-"));
  const store = await openBuilt(join(dir, "niceeval.sqlite"), { appendThread: true });
  return { store, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

defineStoreSuite("sqlite, appending on its own thread", openThreadStore);

describe("SQLite store appending on its own thread", () => {
  it("keeps the order of batches posted without waiting, and reads see every one", async () => {
    const { store, cleanup } = await openThreadStore();
    try {
      await store.beginRun(manifest("many"));
      // 40 batches at once: more than the thread is handed ahead, so some appends wait for room.
      await Promise.all(
        Array.from({ length: 40 }, (_, b) =>
          store.appendAttempts(
            "many",
            Array.from({ length: 25 }, (_, i) => attempt("alpha", b * 25 + i)),
          ),
        ),
      );
      const ids: string[] = [];
      for await (const record of store.streamAttempts("many")) ids.push(record.caseId);
      expect(ids).toHaveLength(1000);
      expect(ids).toEqual(Array.from({ length: 1000 }, (_, i) => attempt("alpha", i).caseId));
    } finally {
      await store.close();
      await cleanup();
    }
  });

  it("appends a small run in place, and a large one on the thread once it is ready, in order", async () => {
    const { store, cleanup } = await openThreadStore();
    const counts = () =>
      (
        store as unknown as { appendCounts(): { inPlace: number; onThread: number } }
      ).appendCounts();
    try {
      await store.beginRun(manifest("small"));
      await store.appendAttempts("small", [attempt("alpha", 0)]);
      await store.getRun("small");
      // A run of one attempt never starts the thread.
      expect(counts()).toEqual({ inPlace: 1, onThread: 0 });

      await store.beginRun(manifest("large"));
      let next = 0;
      const batch = () => Array.from({ length: 100 }, () => attempt("alpha", next++));
      // Past 1,024 attempts the thread starts; batches stay in place until it is ready.
      for (let b = 0; b < 11; b++) await store.appendAttempts("large", batch());
      const deadline = Date.now() + 10_000;
      while (counts().onThread === 0 && Date.now() < deadline) {
        await store.appendAttempts("large", batch());
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(counts().onThread).toBeGreaterThan(0);
      await Promise.all(Array.from({ length: 12 }, () => store.appendAttempts("large", batch())));
      const ids: string[] = [];
      for await (const record of store.streamAttempts("large")) ids.push(record.caseId);
      expect(ids).toEqual(Array.from({ length: next }, (_, i) => attempt("alpha", i).caseId));
      expect((await store.getRun("large"))?.totals.attempts).toBe(next);
    } finally {
      await store.close();
      await cleanup();
    }
  });
});

describe("SQLite store", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "niceeval-sqlite-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function refused(path: string): Promise<NiceevalError> {
    const before = readFileSync(path);
    const error = await openSqliteStore(path).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NiceevalError);
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(existsSync(`${path}-wal`)).toBe(false);
    const message = (error as NiceevalError).message;
    expect(message).toContain(path);
    // Opened from code: its advice names what code calls, not the CLI's flags (advice.test.ts).
    expect(message).toMatch(/[Oo]pen another path \(openStore, openSqliteStore\)/);
    expect(message).not.toContain("--store");
    return error as NiceevalError;
  }

  it("creates its folder, uses WAL and a schema version, and keeps runs across opens", async () => {
    const path = join(dir, "a", "b", "store.sqlite");
    const store = await openSqliteStore(path);
    expect(store.location).toBe(`sqlite:${path}`);
    await store.beginRun(manifest("kept"));
    await store.appendAttempts("kept", [attempt("alpha", 0)]);
    await store.close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.prepare("SELECT version FROM schema_version").all()).toEqual([
      { version: 1 },
      { version: 2 },
      { version: 3 },
      { version: 4 },
      { version: 5 },
    ]);
    db.close();
    const again = await openSqliteStore(path);
    expect((await again.getRun("kept"))?.totals.attempts).toBe(1);
    await again.close();
  });

  it("migrates a store of an older schema forward, step by step", async () => {
    const path = join(dir, "old.sqlite");
    const db = new Database(path);
    db.pragma(`application_id = ${APPLICATION_ID}`);
    migrate(db, 1);
    db.close();
    const store = await openSqliteStore(path);
    await store.beginRun(manifest("m"));
    await store.appendAttempts("m", [attempt("alpha", 0, { verdict: "failed" })]);
    expect((await store.queryAttempts("m", { text: "differs from" })).total).toBe(1);
    await store.close();
    const check = new Database(path, { readonly: true });
    expect(check.prepare("SELECT version FROM schema_version").pluck().all()).toEqual([
      1, 2, 3, 4, 5,
    ]);
    check.close();
  });

  it("counts the attempts a stop cut off in a store of schema 4 from those it holds, when read and when upgraded", async () => {
    const path = join(dir, "v4.sqlite");
    const store = await openSqliteStore(path);
    await store.beginRun(manifest("crashed", { evals: ["alpha", "beta"] }));
    const cutOff = (evalId: string, index: number) => {
      const record = attempt(evalId, index, { verdict: "errored" });
      record.error = { message: "interrupted by SIGINT", where: "run", interrupted: true };
      return record;
    };
    const threw = attempt("alpha", 3, { verdict: "errored" });
    threw.error = { message: "TypeError: boom", where: "target" };
    await store.appendAttempts("crashed", [
      attempt("alpha", 0),
      cutOff("alpha", 1),
      cutOff("alpha", 2),
      threw,
      cutOff("beta", 0),
    ]);
    await store.close();
    // What schema 4 wrote: no interrupted column (its run never ended, so it has no summaries).
    const db = new Database(path);
    db.exec(
      "ALTER TABLE run_evals DROP COLUMN interrupted; DELETE FROM schema_version WHERE version = 5",
    );
    db.close();
    const version = () => {
      const check = new Database(path, { readonly: true });
      const v = check.prepare("SELECT max(version) FROM schema_version").pluck().get();
      check.close();
      return v;
    };
    // Read from an upgraded copy, the file left as it is.
    const reader = await openSqliteStore(path, { readOnly: true });
    expect((await reader.getRun("crashed"))?.totals).toMatchObject({ errored: 4, interrupted: 3 });
    await reader.close();
    expect(version()).toBe(4);
    // A writer upgrades it, and counts on from there.
    const writer = await openSqliteStore(path);
    expect((await writer.listRuns())[0]?.totals).toMatchObject({ errored: 4, interrupted: 3 });
    await writer.appendAttempts("crashed", [attempt("beta", 0)]);
    expect((await writer.getRun("crashed"))?.totals).toMatchObject({ errored: 3, interrupted: 2 });
    await writer.close();
    expect(version()).toBe(5);
  });

  it("lists the attempt keys of a run whose error cell was edited into something that is not JSON", async () => {
    const path = join(dir, "edited.sqlite");
    const store = await openSqliteStore(path);
    await store.beginRun(manifest("edited"));
    const cutOff = (index: number) => {
      const record = attempt("alpha", index, { verdict: "errored" });
      record.error = { message: "interrupted by SIGINT", where: "target", interrupted: true };
      return record;
    };
    await store.appendAttempts("edited", [cutOff(0), cutOff(1)]);
    await store.close();
    const db = new Database(path);
    db.prepare("UPDATE attempts SET error = ? WHERE case_id = 'case-1'").run(
      '{"message":"interrupted by SIGINT","where":"target","interrupted":tr',
    );
    db.close();
    const reader = await openSqliteStore(path);
    const keys = [];
    for await (const key of reader.attemptKeys("edited"))
      keys.push(`${key.caseId}:${key.interrupted ?? false}`);
    await reader.close();
    expect(keys).toEqual(["case-0:true", "case-1:false"]);
  });

  it("refuses a text file, leaving it unchanged", async () => {
    const path = join(dir, "notes.sqlite");
    writeFileSync(path, "these are my notes, not a database\n".repeat(200));
    const error = await refused(path);
    expect(error.code).toBe("STORE_NOT_NICEEVAL");
  });

  it("refuses another application's SQLite database, leaving it unchanged", async () => {
    const path = join(dir, "other.sqlite");
    const db = new Database(path);
    db.exec("CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('Ada')");
    db.close();
    expect((await refused(path)).code).toBe("STORE_NOT_NICEEVAL");
    const withId = join(dir, "other-id.sqlite");
    const db2 = new Database(withId);
    db2.pragma("application_id = 1234");
    db2.close();
    expect((await refused(withId)).message).toContain("1234");
  });

  it("says a store held by another process past the busy timeout is locked, for reading and writing", async () => {
    const path = join(dir, "held.sqlite");
    (await openSqliteStore(path)).close();
    // A store left in rollback-journal mode (copied, or switched by a tool), held exclusively.
    const holder = new Database(path);
    holder.pragma("journal_mode = DELETE");
    holder.exec("BEGIN EXCLUSIVE");
    try {
      for (const readOnly of [true, false]) {
        const error = await openSqliteStore(path, { busyTimeoutMs: 50, readOnly }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toMatchObject({ code: "STORE_BUSY" });
        expect((error as Error).message).toBe(
          `the store ${path} stayed locked by another process for more than 50 ms. Retry, give openSqliteStore a longer busyTimeoutMs, or open another path (openStore, openSqliteStore).`,
        );
      }
    } finally {
      holder.exec("ROLLBACK");
      holder.close();
    }
  });

  it("refuses a damaged store, leaving it unchanged", async () => {
    const path = join(dir, "damaged.sqlite");
    const store = await openSqliteStore(path);
    await store.beginRun(manifest("r"));
    await store.close();
    const bytes = readFileSync(path);
    bytes.fill(0xa5, 100, 4096); // page 1 after its header: the schema table
    writeFileSync(path, bytes);
    expect((await refused(path)).code).toBe("STORE_CORRUPT");
  });

  it("refuses to write to a store damaged past its header where a run writes, and reads it", async () => {
    const path = join(dir, "damaged-inside.sqlite");
    const store = await openSqliteStore(path);
    for (const id of ["a", "b", "c"]) await store.beginRun(manifest(id));
    await store.close();
    const bytes = readFileSync(path);
    bytes.fill(0xa5, 8192, 8192 + 4096); // page 3: the root page of the runs table
    writeFileSync(path, bytes);
    const error = await openSqliteStore(path).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      code: "STORE_CORRUPT",
      message: `${path} is a damaged SQLite database (database disk image is malformed); niceeval does not write to it. Restore it from a copy, or move it away; meanwhile open another path (openStore, openSqliteStore) to keep runs in another file, or run without a store.`,
    });
    // A reader opens it, and finds the damage where it reads.
    const reader = await openSqliteStore(path, { readOnly: true });
    await expect(reader.listRuns()).rejects.toMatchObject({ code: "STORE_CORRUPT" });
    await reader.close();
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it("names the file when damage is found while reading, and writes nothing", async () => {
    const path = join(dir, "damaged-later.sqlite");
    const store = await openSqliteStore(path);
    await store.beginRun(manifest("r"));
    for (let i = 0; i < 2000; i += 500)
      await store.appendAttempts(
        "r",
        Array.from({ length: 500 }, (_, k) => attempt("alpha", i + k)),
      );
    await store.close();
    const bytes = readFileSync(path);
    const middle = Math.floor(bytes.length / 4096 / 2) * 4096;
    bytes.fill(0xa5, middle, middle + 16 * 4096);
    writeFileSync(path, bytes);
    let error: unknown;
    try {
      const damaged = await openSqliteStore(path);
      try {
        for await (const _ of damaged.streamAttempts("r"));
        await damaged.queryAttempts("r", { text: "case-1999" });
      } finally {
        await damaged.close();
      }
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(NiceevalError);
    expect((error as NiceevalError).code).toBe("STORE_CORRUPT");
    expect((error as NiceevalError).message).toContain(path);
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it("reports what stopped streaming attempts midway, not the reading connection it leaves", async () => {
    const path = join(dir, "damaged-rows.sqlite");
    const store = await openSqliteStore(path);
    await store.beginRun(manifest("r"));
    await store.appendAttempts(
      "r",
      Array.from({ length: 600 }, (_, k) => attempt("alpha", k)),
    );
    await store.close();
    // A row edited by hand to name a shared cell that does not exist, well into the run.
    const db = new Database(path);
    db.prepare("UPDATE attempts SET reasons = '999999' WHERE case_id = 'case-500'").run();
    db.close();
    const damaged = await openSqliteStore(path);
    try {
      const read = async () => {
        for await (const _ of damaged.streamAttempts("r"));
      };
      await expect(read()).rejects.toMatchObject({
        code: "STORE_DAMAGED_ROW",
        message: expect.stringContaining(
          `the store ${path} holds an attempt that cannot be read, damaged or edited by hand: run r, eval "alpha", case "case-500", trial 1, column reasons: it names shared text 999999, which the store lacks.`,
        ),
      });
    } finally {
      await damaged.close();
    }
  });

  it("names the store's own file for a damaged row read from a private copy", async () => {
    const path = join(dir, "older.sqlite");
    const store = await openSqliteStore(path);
    await store.beginRun(manifest("r"));
    // One attempt: its cells are inline, as the schema before shared cells wrote them.
    await store.appendAttempts("r", [attempt("alpha", 0)]);
    await store.close();
    // An older schema is read from an upgraded copy in a temporary folder.
    const db = new Database(path);
    db.exec(
      "DROP TABLE shared_cells; ALTER TABLE run_evals DROP COLUMN interrupted; DELETE FROM schema_version WHERE version >= 4",
    );
    db.prepare("UPDATE attempts SET output = '{cut'").run();
    db.close();
    const copy = await openSqliteStore(path, { readOnly: true });
    try {
      const read = async () => {
        for await (const _ of copy.streamAttempts("r"));
      };
      await expect(read()).rejects.toMatchObject({
        code: "STORE_DAMAGED_ROW",
        message: expect.stringMatching(
          new RegExp(
            `^the store ${path} holds .*: run r, eval "alpha", case "case-0", trial 1, column output: `,
          ),
        ),
      });
    } finally {
      await copy.close();
    }
  });

  it("refuses a folder given as the store path, naming it", async () => {
    const error = await openSqliteStore(dir).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NiceevalError);
    expect((error as NiceevalError).message).toBe(
      `the store path ${dir} is a folder; give openStore the path of a file in it (for example ${dir}/niceeval.sqlite).`,
    );
  });

  it("refuses a store written by a newer schema, leaving it unchanged", async () => {
    const path = join(dir, "newer.sqlite");
    const store = await openSqliteStore(path);
    await store.close();
    const db = new Database(path);
    db.prepare("INSERT INTO schema_version (version, applied_at) VALUES (99, 'later')").run();
    db.pragma("journal_mode = DELETE");
    db.close();
    const error = await refused(path);
    expect(error.code).toBe("STORE_TOO_NEW");
    expect(error.message).toContain("99");
  });

  it("stores a large value once, and truncates above its cap with a marker", async () => {
    const path = join(dir, "blobs.sqlite");
    const store = await openSqliteStore(path, { valueCapBytes: 4096 });
    await store.beginRun(manifest("b"));
    const doc = { text: "a long document ".repeat(200) };
    const huge = "z".repeat(10_000);
    await store.appendAttempts("b", [
      { ...attempt("alpha", 0), input: doc },
      { ...attempt("alpha", 1), input: doc, output: huge },
      { ...attempt("alpha", 2), output: huge },
    ]);
    const records = [];
    for await (const r of store.streamAttempts("b")) records.push(r);
    await store.close();
    expect(records.map((r) => r.input)).toEqual([doc, doc, 2]);
    const marker = records[1]?.output;
    expect(isTruncated(marker) && marker.bytes).toBe(10_002);
    expect(isTruncated(marker) && marker.head).toBe(`"${"z".repeat(4095)}`);
    const tiny = await openSqliteStore(join(dir, "tiny.sqlite"), { valueCapBytes: 8 });
    await tiny.beginRun(manifest("t"));
    await tiny.appendAttempts("t", [{ ...attempt("alpha", 0), output: "0123456789" }]);
    for await (const r of tiny.streamAttempts("t"))
      expect(r.output).toEqual({ "~truncated": true, bytes: 12, head: '"0123456' });
    await tiny.close();
    const db = new Database(path, { readonly: true });
    expect(db.prepare("SELECT count(*) AS n, sum(truncated) AS t FROM blobs").get()).toEqual({
      n: 2,
      t: 1,
    });
    db.close();
  });

  it("writes each batch in one transaction: a batch that fails stores nothing", async () => {
    const path = join(dir, "atomic.sqlite");
    const store = await openSqliteStore(path);
    await store.beginRun(manifest("t"));
    const bad = { ...attempt("alpha", 1), verdict: "bogus" } as unknown as AttemptRecord;
    const fresh = { ...attempt("alpha", 0) };
    fresh.judgments = [judgment("new-scorer", true, "a reason never seen")];
    await expect(store.appendAttempts("t", [fresh, bad])).rejects.toThrow();
    expect((await store.getRun("t"))?.totals.attempts).toBe(0);
    expect((await store.queryAttempts("t", { text: "never seen" })).total).toBe(0);
    await store.appendAttempts("t", [fresh, attempt("alpha", 1)]);
    const records = [];
    for await (const r of store.streamAttempts("t")) records.push(r);
    expect(records.map((r) => r.judgments[0]?.label)).toEqual(["new-scorer", "exact"]);
    expect((await store.queryAttempts("t", { text: "never seen" })).total).toBe(1);
    await store.close();
  });

  it("stores a judgments or reasons cell seen before once, and reads every attempt as appended", async () => {
    const path = join(dir, "shared.sqlite");
    const store = await openSqliteStore(path);
    await store.beginRun(manifest("s"));
    // The latency reason repeats every 7 cases: 7 reason lists and 1 judgments list in all.
    const records = Array.from({ length: 30 }, (_, i) => attempt("alpha", i));
    await store.appendAttempts("s", records.slice(0, 12));
    await store.appendAttempts("s", records.slice(12));
    const read = [];
    for await (const r of store.streamAttempts("s")) read.push(r);
    expect(read).toEqual(records);
    const db = new Database(path, { readonly: true });
    const rows = db.prepare("SELECT judgments, reasons FROM attempts ORDER BY id").all() as {
      judgments: string;
      reasons: string;
    }[];
    // The first sighting stays inline; later ones hold the id of one shared copy.
    expect(rows[0]!.judgments.startsWith("[")).toBe(true);
    expect(rows[1]!.judgments).toMatch(/^\d+$/);
    expect(new Set(rows.slice(1).map((row) => row.judgments)).size).toBe(1);
    expect(rows.slice(0, 7).every((row) => row.reasons.startsWith("["))).toBe(true);
    expect(rows.slice(7).every((row) => /^\d+$/.test(row.reasons))).toBe(true);
    expect(db.prepare("SELECT count(*) FROM shared_cells").pluck().get()).toBe(8);
    db.close();
    await store.close();
  });

  it("keeps no history for an attempt appended again unchanged, and archives a changed one", async () => {
    const store = await openSqliteStore(join(dir, "again.sqlite"));
    try {
      await store.beginRun(manifest("a"));
      const records = Array.from({ length: 10 }, (_, i) => attempt("alpha", i));
      await store.appendAttempts("a", records);
      // The same attempts again (an export imported twice), then one that changed.
      await store.appendAttempts("a", records);
      await store.appendAttempts("a", [attempt("alpha", 3, { verdict: "failed" })]);
      const history = [];
      for await (const h of store.attemptHistory("a")) history.push(h.record);
      expect(history).toEqual([records[3]]);
      const read = [];
      for await (const r of store.streamAttempts("a")) read.push(r);
      expect(read.map((r) => r.verdict)).toEqual([
        ...Array(3).fill("passed"),
        "failed",
        ...Array(6).fill("passed"),
      ]);
      expect((await store.getRun("a"))?.totals).toMatchObject({
        attempts: 10,
        passed: 9,
        failed: 1,
      });
    } finally {
      await store.close();
    }
  });

  it("forgets shared cells written by a batch that failed", async () => {
    const store = await openSqliteStore(join(dir, "shared-rollback.sqlite"));
    await store.beginRun(manifest("r"));
    const odd = (i: number) => {
      const record = attempt("alpha", i);
      record.judgments = [judgment("rare", true, "a reason only these attempts give")];
      return record;
    };
    const bad = { ...attempt("alpha", 9), verdict: "bogus" } as unknown as AttemptRecord;
    // The second attempt shares its cells with the first, then the batch rolls back.
    await expect(store.appendAttempts("r", [odd(0), odd(1), bad])).rejects.toThrow();
    await store.appendAttempts("r", [odd(0), odd(1), odd(2)]);
    const read = [];
    for await (const r of store.streamAttempts("r")) read.push(r);
    expect(read).toEqual([odd(0), odd(1), odd(2)]);
    await store.close();
  });

  it("grows by at most 1 KB per attempt of a 4-scorer suite", async () => {
    const path = join(dir, "size.sqlite");
    const store = await openSqliteStore(path);
    await store.beginRun(manifest("s"));
    await store.close();
    const size = () =>
      statSync(path).size + (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);
    const empty = size();
    const again = await openSqliteStore(path);
    const n = 5000;
    for (let i = 0; i < n; i += 250)
      await again.appendAttempts(
        "s",
        Array.from({ length: 250 }, (_, k) => attempt("alpha", i + k)),
      );
    await again.close(); // checkpoints the WAL into the file
    expect((size() - empty) / n).toBeLessThan(1000);
  });

  it("opens a new store that two processes create at the same moment", async () => {
    // Both processes spin until the same instant, then open the same new file: one of them
    // reads the file while the other commits its first migration. Forty pairs; before the
    // check read in one transaction, a pair now and then took the file for another app's.
    const built = pathToFileURL(join(repoRoot, "dist/store/sqlite/index.js")).href;
    const failures: string[] = [];
    for (let pair = 0; pair < 40; pair++) {
      const path = join(dir, `race-${pair}.sqlite`);
      const at = Date.now() + 250;
      const script = (lag: number) =>
        `const m = await import(${JSON.stringify(built)}); while (Date.now() < ${at + lag}); ` +
        `const s = await m.openSqliteStore(${JSON.stringify(path)}); await s.close();`;
      const outcomes = await Promise.allSettled(
        [0, pair % 4].map((lag) =>
          run(process.execPath, ["--input-type=module", "-e", script(lag)]),
        ),
      );
      for (const outcome of outcomes)
        if (outcome.status === "rejected") failures.push(String(outcome.reason));
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it("stores two runs written by two processes at once, each whole", async () => {
    const path = join(dir, "shared.sqlite");
    const n = 3000;
    const writer = join(import.meta.dirname, "writer.ts");
    await Promise.all(
      ["proc-a", "proc-b"].map((id) =>
        run(process.execPath, ["--import", "tsx", writer, path, id, String(n)], {
          cwd: join(import.meta.dirname, "..", ".."),
        }),
      ),
    );
    const store = await openSqliteStore(path);
    for (const id of ["proc-a", "proc-b"]) {
      const stored = await store.getRun(id);
      expect(stored?.status).toBe("finished");
      expect(stored?.totals).toMatchObject({ attempts: n, cases: n, passed: n, evals: 2 });
      let count = 0;
      for await (const _ of store.streamAttempts(id)) count++;
      expect(count).toBe(n);
    }
    await store.close();
  }, 120_000);
});

describe("SQLite store, a lone surrogate in what an attempt holds", () => {
  // Half of an emoji, as text cut inside one leaves it: the JSON reports write it as one U+FFFD.
  const cut = "\ud83d";
  const held: AttemptRecord = {
    ...attempt("halves", 0, { verdict: "errored" }),
    caseId: `case ${cut}`,
    input: `in ${cut}`,
    expected: { text: `ex ${cut}` },
    metadata: { note: `\ude00 meta` },
    // Large enough for a blob of its own.
    output: { text: `out ${cut}`, long: `${"x".repeat(100_000)}${cut}` },
    error: { where: "target", message: `err ${cut}` },
    judgments: [judgment(`label ${cut}`, false, `why ${cut}`)],
  };
  it.each([
    ["", false],
    [", appending on its own thread", true],
  ])(
    "is kept as one U+FFFD, as the JSON reports write it, in every cell and the search text%s",
    async (_, appendThread) => {
      const dir = await mkdtemp(join(tmpdir(), "niceeval-store-halves-"));
      const path = join(dir, "niceeval.sqlite");
      try {
        // The thread runs the built script (see openThreadStore).
        const open = appendThread
          ? (
              (await import(
                pathToFileURL(join(repoRoot, "dist/store/sqlite/index.js")).href
              )) as typeof import("../../src/store/sqlite/index.js")
            ).openSqliteStore
          : openSqliteStore;
        const store = await open(path, { appendThread });
        await store.beginRun(manifest("halves"));
        await store.appendAttempts("halves", [held]);
        const read: AttemptRecord[] = [];
        for await (const record of store.streamAttempts("halves")) read.push(record);
        const found = await store.queryAttempts("halves", { text: "out \ufffd" });
        await store.close();
        expect(read).toHaveLength(1);
        const [back] = read as [AttemptRecord];
        expect(back.caseId).toBe("case \ufffd");
        expect(back.input).toBe("in \ufffd");
        expect(back.expected).toEqual({ text: "ex \ufffd" });
        expect(back.metadata).toEqual({ note: "\ufffd meta" });
        expect(back.output).toEqual({ text: "out \ufffd", long: `${"x".repeat(100_000)}\ufffd` });
        expect(back.error?.message).toBe("err \ufffd");
        expect(back.judgments[0]!.label).toBe("label \ufffd");
        expect(back.judgments[0]!.reason).toBe("why \ufffd");
        expect(found.items.map((r) => r.caseId)).toEqual(["case \ufffd"]);
        // Read as SQLite holds it: no text anywhere holds half a character, or three U+FFFD for one.
        const db = new Database(path, { readonly: true });
        try {
          const tables = db
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
            .all() as {
            name: string;
          }[];
          for (const { name } of tables)
            for (const row of db.prepare(`SELECT * FROM "${name}"`).all() as Record<
              string,
              unknown
            >[])
              for (const value of Object.values(row)) {
                if (typeof value !== "string") continue;
                expect(value).not.toContain("\ufffd\ufffd\ufffd");
                expect(value).not.toMatch(/\\ud[89a-f][0-9a-f]{2}|[\ud800-\udfff]/i);
              }
        } finally {
          db.close();
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
