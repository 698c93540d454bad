import { execFile } from "node:child_process";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStoreAt } from "../../src/cli/store.js";
import { NiceevalError } from "../../src/errors.js";
import { isTruncated, openPostgresStore, openStore } from "../../src/store/index.js";
import type { Store } from "../../src/store/types.js";
import {
  endWaitingConnection,
  PG_PASSWORD,
  startPostgres,
  type TestPostgres,
} from "../support/postgres.js";
import { attempt, manifest } from "./fixtures.js";
import { defineStoreSuite } from "./store-suite.js";

const run = promisify(execFile);

let server: TestPostgres;
let url: string;
beforeAll(async () => {
  server = await startPostgres();
  url = await server.createDatabase("store_suite");
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

/** Drop everything niceeval wrote, so the next store starts from an empty database. */
async function dropSchema(database: string): Promise<void> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  await client.query("DROP SCHEMA IF EXISTS niceeval CASCADE");
  await client.end();
}

/** The schema version a database's niceeval tables record. */
async function schemaVersion(database: string): Promise<number> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    const { rows } = await client.query(
      "SELECT max(version)::int AS v FROM niceeval.schema_version",
    );
    return rows[0]?.v;
  } finally {
    await client.end();
  }
}

/** What takes a database niceeval wrote back to what schema `version` had (1 or 2). */
const backTo = (version: 1 | 2): string[] => [
  "ALTER TABLE niceeval.run_evals DROP COLUMN interrupted",
  ...(version === 1 ? ["DROP TABLE niceeval.attempt_history"] : []),
  `DELETE FROM niceeval.schema_version WHERE version > ${version}`,
];

defineStoreSuite("postgres", async () => {
  const store = await openPostgresStore(url);
  return { store, cleanup: () => dropSchema(url) };
});

async function refusal(promise: Promise<unknown>): Promise<NiceevalError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(NiceevalError);
  return error as NiceevalError;
}

describe("PostgreSQL store", () => {
  let store: Store;
  let database: string;
  beforeAll(async () => {
    database = await server.createDatabase("store_specific");
  });
  const fresh = async () => {
    await dropSchema(database);
    store = await openPostgresStore(database);
    return store;
  };

  it("migrates once into a niceeval schema, with a version table, and keeps runs across opens", async () => {
    await fresh();
    expect(store.location).toBe(database.replace(PG_PASSWORD, "***"));
    expect(store.location).not.toContain(PG_PASSWORD);
    await store.beginRun(manifest("kept"));
    await store.appendAttempts("kept", [attempt("alpha", 0)]);
    await store.close();
    // Several processes opening a new database at once: the advisory lock serialises them.
    await dropSchema(database);
    const stores = await Promise.all(Array.from({ length: 4 }, () => openPostgresStore(database)));
    await Promise.all(stores.map((s) => s.close()));
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    const { rows } = await client.query("SELECT version FROM niceeval.schema_version");
    await client.end();
    expect(rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }]);
  });

  it("refuses a database written by a newer schema, before writing anything", async () => {
    await (await fresh()).close();
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    await client.query(
      "INSERT INTO niceeval.schema_version (version, applied_at) VALUES (99, 'later')",
    );
    const error = await refusal(openPostgresStore(database));
    const { rows } = await client.query("SELECT count(*)::int AS n FROM niceeval.schema_version");
    await client.end();
    expect(error.code).toBe("STORE_TOO_NEW");
    expect(error.message).toContain("99");
    // Opened from code: what to do is said in code's terms, never the CLI's flags.
    expect(error.message).toContain(
      "Upgrade niceeval, or open another database (openStore, openPostgresStore).",
    );
    expect(error.message).not.toContain("--store");
    expect(error.message).not.toContain(PG_PASSWORD);
    expect(rows).toEqual([{ n: 4 }]);
  });

  it("refuses a niceeval schema another tool made", async () => {
    await dropSchema(database);
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    await client.query("CREATE SCHEMA niceeval; CREATE TABLE niceeval.contacts (name text)");
    await client.end();
    const error = await refusal(openPostgresStore(database));
    expect(error.code).toBe("STORE_NOT_NICEEVAL");
    expect(error.message).toContain(
      "niceeval does not write to it. Open another database (openStore, openPostgresStore).",
    );
    // The CLI names its flag.
    const fromCli = await refusal(openStoreAt(database, process.cwd()));
    expect(fromCli.message).toContain(
      "niceeval does not write to it. Pass --store with another database.",
    );
  });

  it("stores a large value once, and truncates above its cap with a marker", async () => {
    await dropSchema(database);
    store = await openPostgresStore(database, { valueCapBytes: 4096 });
    await store.beginRun(manifest("b"));
    const doc = { text: "a long document ".repeat(200) };
    const huge = "z".repeat(10_000);
    await store.appendAttempts("b", [
      { ...attempt("alpha", 0), input: doc },
      { ...attempt("alpha", 1), input: doc, output: huge },
    ]);
    await store.appendAttempts("b", [{ ...attempt("alpha", 2), output: huge }]);
    const records = [];
    for await (const r of store.streamAttempts("b")) records.push(r);
    await store.close();
    expect(records.map((r) => r.input)).toEqual([doc, doc, 2]);
    const marker = records[1]?.output;
    expect(isTruncated(marker) && marker.bytes).toBe(10_002);
    expect(isTruncated(marker) && marker.head).toBe(`"${"z".repeat(4095)}`);
    expect(records[2]?.output).toEqual(marker);
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    const { rows } = await client.query(
      "SELECT count(*)::int AS n, count(*) FILTER (WHERE truncated)::int AS t FROM niceeval.blobs",
    );
    await client.end();
    expect(rows).toEqual([{ n: 2, t: 1 }]);
  });

  it("names the store, run, case and column of a row edited by hand", async () => {
    await fresh();
    await store.beginRun(manifest("edited"));
    await store.appendAttempts("edited", [attempt("alpha", 0), attempt("alpha", 1)]);
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    await client.query(
      "UPDATE niceeval.attempts SET judgments = '{not json' WHERE case_id = 'case-1'",
    );
    await client.end();
    const read = async () => {
      for await (const _ of store.streamAttempts("edited"));
    };
    await expect(read()).rejects.toMatchObject({
      code: "STORE_DAMAGED_ROW",
      message: expect.stringContaining(
        `the store ${store.location} holds an attempt that cannot be read, damaged or edited by hand: run edited, eval "alpha", case "case-1", trial 1, column judgments: `,
      ),
    });
    await store.close();
  });

  it("names the server, masks the password and says what to do when it cannot connect", async () => {
    const refused = await refusal(
      openPostgresStore(`postgres://ci:hunter2@127.0.0.1:1/evals`, { connectTimeoutMs: 3000 }),
    );
    expect(refused.code).toBe("STORE_UNREACHABLE");
    expect(refused.message).toContain("postgres://ci:***@127.0.0.1:1/evals");
    expect(refused.message).toContain("127.0.0.1:1 refused the connection");
    expect(refused.message).toContain("Start the server");
    expect(refused.message).not.toContain("hunter2");

    const unknown = await refusal(
      openPostgresStore("postgres://ci:hunter2@no-such-host.invalid/evals"),
    );
    expect(unknown.message).toContain("no-such-host.invalid was not found");
    expect(unknown.message).not.toContain("hunter2");

    const login = await refusal(
      openPostgresStore(`postgres://niceeval:wrong-pw@127.0.0.1:${server.port}/postgres`),
    );
    expect(login.message).toContain("refused the login of user niceeval");
    expect(login.message).toContain("Check the user and password");
    expect(login.message).not.toContain("wrong-pw");

    const noDb = await refusal(openPostgresStore(server.url("no_such_db")));
    expect(noDb.message).toContain("has no database no_such_db");
    expect(noDb.message).toContain("createdb no_such_db");
    expect(noDb.message).not.toContain(PG_PASSWORD);

    const bad = await refusal(openPostgresStore("postgres://ci:hunter2@host:notaport/db"));
    expect(bad.code).toBe("STORE_BAD_URL");
    expect(bad.message).not.toContain("hunter2");
  });

  it("names the server that takes the connection and never answers, once the connect timeout passed", async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket.on("error", () => {})));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const url = `postgres://ci:hunter2@127.0.0.1:${port}/evals`;
      const unanswered = await refusal(openPostgresStore(url, { connectTimeoutMs: 1000 }));
      expect(unanswered.code).toBe("STORE_UNREACHABLE");
      expect(unanswered.message).toContain(
        `cannot reach the PostgreSQL store postgres://ci:***@127.0.0.1:${port}/evals: 127.0.0.1:${port} did not complete the connection`,
      );
      expect(sockets.length).toBeGreaterThan(0);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("names the server when it ends the connection while the store opens, or refuses it shutting down", async () => {
    const opening = await server.createDatabase("ended_while_opening");
    // A schema an older niceeval wrote, so the next open migrates it.
    await (await openPostgresStore(opening)).close();
    const admin = new pg.Client({ connectionString: opening });
    await admin.connect();
    for (const statement of backTo(1)) await admin.query(statement);
    // The migration waits to record its version; then the server ends its connection.
    await admin.query("BEGIN");
    await admin.query("LOCK TABLE niceeval.schema_version IN SHARE MODE");
    const open = openPostgresStore(opening).catch((error: unknown) => error);
    await endWaitingConnection(opening);
    await admin.query("ROLLBACK");
    await admin.end();
    const ended = (await open) as NiceevalError;
    expect(ended).toBeInstanceOf(NiceevalError);
    expect(ended.code).toBe("STORE_UNREACHABLE");
    expect(ended.message).toContain(
      `cannot reach the PostgreSQL store postgres://niceeval:***@127.0.0.1:${server.port}/ended_while_opening: 127.0.0.1:${server.port} ended the connection (terminating connection due to administrator command)`,
    );
    expect(ended.message).not.toContain(PG_PASSWORD);

    const stopping = await startPostgres();
    try {
      const url = await stopping.createDatabase("evals");
      await stopping.shutDownHeld();
      const refused = await refusal(openPostgresStore(url));
      expect(refused.code).toBe("STORE_UNREACHABLE");
      expect(refused.message).toContain(
        `cannot reach the PostgreSQL store postgres://niceeval:***@127.0.0.1:${stopping.port}/evals: 127.0.0.1:${stopping.port} does not accept connections now (the database system is shutting down). Wait until the server is up`,
      );
    } finally {
      await stopping.stop();
    }
  }, 120_000);

  it("fails the write whose connection the server ends, without an uncaught error, and writes again after", async () => {
    const dropped = await server.createDatabase("dropped_connection");
    const child = join(import.meta.dirname, "postgres-dropped.ts");
    const { stdout } = await run(process.execPath, ["--import", "tsx", child, dropped], {
      cwd: join(import.meta.dirname, "..", ".."),
    });
    const { failed, next } = JSON.parse(stdout) as {
      failed: { code: string; message: string };
      next: string;
    };
    expect(failed.code).toBe("STORE_UNREACHABLE");
    expect(failed.message).toContain(
      `cannot reach the PostgreSQL store postgres://niceeval:***@127.0.0.1:${server.port}/dropped_connection: 127.0.0.1:${server.port} ended the connection (terminating connection due to administrator command)`,
    );
    expect(next).toBe("stored");
  }, 60_000);

  it("refuses a user that lacks a privilege with STORE_PERMISSION and the GRANT, also once open", async () => {
    const admin = async (url: string, ...statements: string[]) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        for (const statement of statements) await client.query(statement);
      } finally {
        await client.end();
      }
    };
    const owned = await server.createDatabase("owned_by_admin");
    await admin(owned, "CREATE ROLE writer LOGIN PASSWORD 'writer-pw-31'");
    await (await openPostgresStore(owned)).close();
    await admin(
      owned,
      "GRANT USAGE ON SCHEMA niceeval TO writer",
      "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA niceeval TO writer",
    );
    const asWriter = `postgres://writer:writer-pw-31@127.0.0.1:${server.port}/owned_by_admin`;
    const writer = await openPostgresStore(asWriter);
    // Taken away while the store is open: the write says so, in the same words.
    await admin(owned, "REVOKE INSERT ON niceeval.runs FROM writer");
    const revoked = await refusal(writer.beginRun(manifest("refused")));
    await writer.close();
    expect(revoked.code).toBe("STORE_PERMISSION");
    expect(revoked.message).toContain(
      `the PostgreSQL user writer was refused (permission denied for table runs) in database owned_by_admin on 127.0.0.1:${server.port} (postgres://writer:***@127.0.0.1:${server.port}/owned_by_admin)`,
    );
    expect(revoked.message).toContain("GRANT USAGE ON SCHEMA niceeval TO writer;");
    expect(revoked.message).toContain(
      "; or fix the URL given to openStore (or openPostgresStore), or open the path of a SQLite file to keep runs there.",
    );
    expect(revoked.message).not.toContain("writer-pw-31");

    // A schema an older niceeval wrote, which this user may not upgrade: refused before any change.
    await admin(owned, ...backTo(1));
    const older = await refusal(openPostgresStore(asWriter));
    expect(older.code).toBe("STORE_PERMISSION");
    expect(older.message).toContain(
      "was written by an older niceeval (schema version 1, this one writes 3), and the PostgreSQL user writer may not upgrade it (reading runs needs no upgrade): step 2 (the history of replaced attempts) creates tables in it, which needs CREATE on the schema, and step 3 (counting the attempts a stop cut off) alters the table niceeval.run_evals, which only its owner (niceeval) may do. Make one run into it as niceeval, which upgrades it, or have a superuser make writer a member of the role niceeval (GRANT niceeval TO writer), which lets it alter the tables and leaves them niceeval's",
    );
    // Given what it lacked: it upgrades the schema, unchanged before then, and writes.
    expect(await schemaVersion(owned)).toBe(1);
    const reader = await openPostgresStore(asWriter, { readOnly: true });
    expect((await reader.listRuns()).length).toBe(0);
    await reader.close();
    await admin(owned, "GRANT niceeval TO writer", "GRANT INSERT ON niceeval.runs TO writer");
    const upgraded = await openPostgresStore(asWriter);
    await upgraded.beginRun(manifest("by-writer"));
    await upgraded.close();
    expect(await schemaVersion(owned)).toBe(3);
    // A role's members are the cluster's: writer is no longer niceeval's for what follows.
    await admin(owned, "REVOKE niceeval FROM writer");

    // An empty niceeval schema the user may use but not add tables to.
    const empty = await server.createDatabase("empty_schema");
    await admin(empty, "CREATE SCHEMA niceeval", "GRANT USAGE ON SCHEMA niceeval TO writer");
    const none = await refusal(
      openPostgresStore(`postgres://writer:writer-pw-31@127.0.0.1:${server.port}/empty_schema`),
    );
    expect(none.message).toContain(
      "has no niceeval tables yet, and the PostgreSQL user writer may not create them: step 1 (niceeval's tables) and step 2 (the history of replaced attempts) create tables in it, which needs CREATE on the schema. Make one run into it as niceeval, which creates them, or have niceeval grant that (GRANT CREATE ON SCHEMA niceeval TO writer)",
    );
  });

  it("upgrades as a user who may alter the tables, without CREATE on the database", async () => {
    const url = await server.createDatabase("upgraded_by_user");
    const owner = await openPostgresStore(url);
    await owner.beginRun(manifest("before"));
    await owner.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const statement of [
        ...backTo(2),
        "CREATE ROLE upgrader LOGIN PASSWORD 'upgrader-pw-62'",
        "GRANT USAGE, CREATE ON SCHEMA niceeval TO upgrader",
        "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA niceeval TO upgrader",
        "ALTER TABLE niceeval.run_evals OWNER TO upgrader",
      ])
        await client.query(statement);
      const { rows } = await client.query(
        "SELECT has_database_privilege('upgrader', current_database(), 'CREATE') AS create",
      );
      expect(rows).toEqual([{ create: false }]);
      const store = await openPostgresStore(
        `postgres://upgrader:upgrader-pw-62@127.0.0.1:${server.port}/upgraded_by_user`,
      );
      await store.beginRun(manifest("after"));
      await store.close();
      expect(await schemaVersion(url)).toBe(3);
    } finally {
      await client.end();
    }
  });

  it("opened to read only, creates and migrates nothing: no schema is STORE_NOT_FOUND, an older one is read as it is", async () => {
    const url = await server.createDatabase("read_only");
    const sql = async (statement: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(statement)).rows;
      } finally {
        await client.end();
      }
    };
    const schemas = () =>
      sql("SELECT nspname FROM pg_namespace WHERE nspname = 'niceeval'").then((r) => r.length);
    for (const open of [
      () => openStore(url, { readOnly: true }),
      () => openPostgresStore(url, { readOnly: true }),
    ]) {
      const absent = await refusal(open());
      expect(absent.code).toBe("STORE_NOT_FOUND");
      expect(absent.message).toContain(url.replace(PG_PASSWORD, "***"));
      expect(absent.message).not.toContain(PG_PASSWORD);
    }
    expect(await schemas()).toBe(0);

    // A store an older niceeval wrote (schema version 1: no attempt history).
    const writer = await openPostgresStore(url);
    await writer.beginRun(manifest("old"));
    await writer.appendAttempts("old", [attempt("alpha", 0), attempt("alpha", 1)]);
    await writer.close();
    for (const statement of backTo(1)) await sql(statement);
    const reader = await openStore(url, { readOnly: true });
    expect((await reader.listRuns()).map((r) => r.runId)).toEqual(["old"]);
    const records = [];
    for await (const r of reader.streamAttempts("old")) records.push(r.caseId);
    expect(records).toHaveLength(2);
    const replaced = [];
    for await (const r of reader.attemptHistory("old")) replaced.push(r);
    expect(replaced).toEqual([]);
    expect((await refusal(reader.beginRun(manifest("new")))).code).toBe("STORE_READ_ONLY");
    await reader.close();
    expect(await sql("SELECT version FROM niceeval.schema_version")).toEqual([{ version: 1 }]);
    expect(await sql("SELECT to_regclass('niceeval.attempt_history') AS t")).toEqual([{ t: null }]);

    // A newer one is refused to readers too.
    await sql("INSERT INTO niceeval.schema_version (version, applied_at) VALUES (99, 'later')");
    expect((await refusal(openStore(url, { readOnly: true }))).code).toBe("STORE_TOO_NEW");
  });

  it("counts the attempts a stop cut off in a database of schema 2 from those it holds, read as it is and upgraded", async () => {
    const url = await server.createDatabase("before_interrupted");
    const writer = await openPostgresStore(url);
    await writer.beginRun(manifest("crashed", { evals: ["alpha", "beta"] }));
    const cutOff = (evalId: string, index: number) => {
      const record = attempt(evalId, index, { verdict: "errored" });
      record.error = { message: "interrupted by SIGINT", where: "run", interrupted: true };
      return record;
    };
    const threw = attempt("alpha", 3, { verdict: "errored" });
    threw.error = { message: 'TypeError: "interrupted" is not a function', where: "target" };
    await writer.appendAttempts("crashed", [
      attempt("alpha", 0),
      cutOff("alpha", 1),
      cutOff("alpha", 2),
      threw,
      cutOff("beta", 0),
    ]);
    await writer.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    for (const statement of backTo(2)) await client.query(statement);
    const version = async () =>
      (await client.query("SELECT max(version)::int AS v FROM niceeval.schema_version")).rows[0]?.v;
    try {
      // Read as it is: counted from its attempts, nothing changed.
      const reader = await openPostgresStore(url, { readOnly: true });
      expect((await reader.listRuns())[0]?.totals).toMatchObject({ errored: 4, interrupted: 3 });
      await reader.close();
      expect(await version()).toBe(2);
      // A writer upgrades it, counting those stored, and counts on from there.
      const upgraded = await openPostgresStore(url);
      expect((await upgraded.getRun("crashed"))?.totals).toMatchObject({ interrupted: 3 });
      await upgraded.appendAttempts("crashed", [attempt("beta", 0)]);
      expect((await upgraded.getRun("crashed"))?.totals).toMatchObject({
        errored: 3,
        interrupted: 2,
      });
      await upgraded.close();
      expect(await version()).toBe(3);
    } finally {
      await client.end();
    }
  });

  it("reads an error cell as cut off only when it is JSON saying so: one edited by hand fails no query", async () => {
    const url = await server.createDatabase("edited_error_cell");
    const writer = await openPostgresStore(url);
    await writer.beginRun(manifest("edited", { evals: ["alpha"] }));
    const errored = (index: number, error: { message: string; interrupted?: true }) => {
      const record = attempt("alpha", index, { verdict: "errored" });
      record.error = { where: "target", ...error };
      return record;
    };
    await writer.appendAttempts("edited", [
      errored(0, { message: "interrupted by SIGINT", interrupted: true }),
      errored(1, { message: "interrupted by SIGINT", interrupted: true }),
      // The key and value in the message, escaped in the cell: not cut off.
      errored(2, { message: 'TypeError: {"interrupted":true} is not a function' }),
      errored(3, { message: "edited by hand below" }),
      errored(4, { message: "edited by hand below" }),
    ]);
    await writer.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const edit = (index: number, cell: string) =>
      client.query("UPDATE niceeval.attempts SET error = $1 WHERE case_id = $2", [
        cell,
        `case-${index}`,
      ]);
    try {
      for (const statement of backTo(2)) await client.query(statement);
      await edit(1, '{"message":"interrupted by SIGINT","where":"target","interrupted":tr');
      await edit(3, '{ "message": "spaced", "where": "target", "interrupted" : true }');
      await edit(4, '{"message":"says false","where":"target","interrupted":false}');
      // Read as it is, upgraded, and written on: counted alike, nothing thrown.
      const reader = await openPostgresStore(url, { readOnly: true });
      expect((await reader.listRuns())[0]?.totals).toMatchObject({ errored: 5, interrupted: 2 });
      await reader.close();
      const store = await openPostgresStore(url);
      expect((await store.getRun("edited"))?.totals).toMatchObject({ interrupted: 2 });
      const cut = [];
      for await (const key of store.attemptKeys("edited"))
        if (key.interrupted) cut.push(key.caseId);
      expect(cut).toEqual(["case-0", "case-3"]);
      await store.appendAttempts("edited", [attempt("alpha", 1), attempt("alpha", 3)]);
      expect((await store.getRun("edited"))?.totals).toMatchObject({
        errored: 3,
        interrupted: 1,
      });
      await store.beginRun(manifest("edited", { evals: ["alpha"] }), {
        resume: true,
        retire: [{ evalId: "alpha", caseId: "case-0", trial: 0 }],
      });
      expect((await store.getRun("edited"))?.totals).toMatchObject({
        errored: 2,
        interrupted: 0,
      });
      await store.close();
    } finally {
      await client.end();
    }
  });

  it("keeps exactly one attempt per key and right totals when two processes append to one run", async () => {
    await fresh();
    await store.close();
    const writer = join(import.meta.dirname, "postgres-writer.ts");
    const total = 2000;
    // Both write every key, in the same order from the same moment: one passed, the other failed.
    const start = String(Date.now() + 3000);
    await Promise.all(
      ["a", "b"].map((who) =>
        run(
          process.execPath,
          ["--import", "tsx", writer, database, "shared", who, String(total), start],
          { cwd: join(import.meta.dirname, "..", "..") },
        ),
      ),
    );
    store = await openPostgresStore(database);
    const stored = await store.getRun("shared");
    const records = [];
    for await (const r of store.streamAttempts("shared")) records.push(r);
    const keys = new Set(records.map((r) => `${r.evalId}/${r.caseId}/${r.trial}`));
    expect(records).toHaveLength(total);
    expect(keys.size).toBe(total);
    const counted = { passed: 0, failed: 0 };
    for (const r of records) counted[r.verdict as "passed" | "failed"]++;
    expect(stored?.totals).toMatchObject({
      attempts: total,
      cases: total / 2,
      evals: 2,
      ...counted,
    });
    expect(counted.passed + counted.failed).toBe(total);
    expect(records.map((r) => r.index)).toEqual(records.map((r) => Number(r.caseId.slice(5))));
    await store.close();
  }, 120_000);

  it("lists 1,000 runs quickly", async () => {
    await fresh();
    for (let i = 0; i < 1000; i += 100)
      await Promise.all(
        Array.from({ length: 100 }, (_, k) =>
          store.beginRun(
            manifest(`many-${i + k}`, {
              startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i + k)).toISOString(),
            }),
          ),
        ),
      );
    await store.appendAttempts("many-999", [attempt("alpha", 0)]);
    const runs = await store.listRuns();
    expect(runs).toHaveLength(1000);
    expect(runs[0]?.runId).toBe("many-999");
    expect(runs[0]?.totals.attempts).toBe(1);
    await store.close();
  }, 60_000);
});
