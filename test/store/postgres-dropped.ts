// A child process for the dropped-connection test: the server ends the store's connection while a
// write waits on it (pg_terminate_backend, what a server shutdown does to every connection). The
// write must fail, the process must not throw outside it, and the next write must go through.
// Prints {"failed": {code, message}, "next": "stored"} on stdout.
// node --import tsx test/store/postgres-dropped.ts <url>
import pg from "pg";
import { openPostgresStore } from "../../src/store/index.js";
import { endWaitingConnection } from "../support/postgres.js";
import { attempt, manifest } from "./fixtures.js";

const url = process.argv[2]!;
const store = await openPostgresStore(url);
await store.beginRun(manifest("dropped"));
await store.appendAttempts("dropped", [attempt("alpha", 0)]);

// Hold the run's row, so the store's next write waits on its connection, checked out.
const admin = new pg.Client({ connectionString: url });
await admin.connect();
await admin.query("BEGIN");
await admin.query("SELECT 1 FROM niceeval.runs WHERE id = 'dropped' FOR UPDATE");
const write = store.appendAttempts("dropped", [attempt("alpha", 1)]).then(
  () => ({ code: "none", message: "the write went through" }),
  (error: { code?: string; message?: string }) => ({ code: error.code, message: error.message }),
);
await endWaitingConnection(url);
await admin.query("ROLLBACK");
await admin.end();
const failed = await write;
await store.appendAttempts("dropped", [attempt("alpha", 2)]);
await store.close();
process.stdout.write(`${JSON.stringify({ failed, next: "stored" })}\n`);
