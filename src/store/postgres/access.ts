// What the connected PostgreSQL user may do with niceeval's schema, read from the catalog (which
// any user may read), and the messages that say which privilege is missing and how to grant it.
import type pg from "pg";
import { NiceevalError } from "../../errors.js";
import type { StoreAdvice } from "../advice.js";
import { endpoint, redactUrl } from "./connection.js";
import { PG_SCHEMA, PG_SCHEMA_VERSION } from "./schema.js";

type TablePrivilege = "SELECT" | "INSERT" | "UPDATE" | "DELETE";

/** What the store's queries do to each table besides reading it (store.ts, values.ts). */
const WRITES: Readonly<Record<string, readonly TablePrivilege[]>> = {
  schema_version: [],
  runs: ["INSERT", "UPDATE"],
  run_tags: ["INSERT"],
  run_evals: ["INSERT", "UPDATE"],
  judgment_kinds: ["INSERT"],
  blobs: ["INSERT"],
  attempts: ["INSERT", "UPDATE", "DELETE"],
  attempt_history: ["INSERT"],
};

/** The connected user's rights on the database and on niceeval's schema. */
export interface PgAccess {
  user: string;
  database: string;
  /** CREATE on the database: may create niceeval's schema. */
  createSchema: boolean;
  /** niceeval's schema, when the database has one. */
  schema?: {
    owner: string;
    usage: boolean;
    /** CREATE on the schema: may add tables to it (a migration). */
    create: boolean;
    /** Its tables, each with the privileges the user holds on it. */
    tables: Map<string, Set<TablePrivilege>>;
  };
}

/** Read the user's rights; needs no privilege (the catalog and `has_*_privilege` are public). */
export async function readPgAccess(client: pg.ClientBase): Promise<PgAccess> {
  const { rows } = await client.query<{
    user: string;
    database: string;
    create_schema: boolean;
    has_schema: boolean;
    owner: string | null;
    usage: boolean;
    create: boolean;
    tables: { name: string; granted: TablePrivilege[] }[];
  }>(
    `SELECT current_user AS "user", current_database() AS database,
       has_database_privilege(current_database(), 'CREATE') AS create_schema,
       n.oid IS NOT NULL AS has_schema, pg_get_userbyid(n.nspowner) AS owner,
       coalesce(has_schema_privilege(n.oid, 'USAGE'), false) AS usage,
       coalesce(has_schema_privilege(n.oid, 'CREATE'), false) AS "create",
       coalesce((
         SELECT json_agg(json_build_object('name', c.relname, 'granted', ARRAY(
           SELECT p FROM unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE']) AS p
           WHERE has_table_privilege(c.oid, p))))
         FROM pg_class c WHERE c.relnamespace = n.oid AND c.relkind IN ('r', 'p')
       ), '[]') AS tables
     FROM (SELECT 1) AS one LEFT JOIN pg_namespace n ON n.nspname = $1`,
    [PG_SCHEMA],
  );
  const row = rows[0]!;
  return {
    user: row.user,
    database: row.database,
    createSchema: row.create_schema,
    ...(row.has_schema
      ? {
          schema: {
            owner: row.owner ?? "its owner",
            usage: row.usage,
            create: row.create,
            tables: new Map(row.tables.map((t) => [t.name, new Set(t.granted)])),
          },
        }
      : {}),
  };
}

/** To read runs, or to write them too. */
export type StoreUse = "read" | "write";

/**
 * The privileges the user lacks on niceeval's tables for `use`, table by table, in the order of
 * {@link WRITES}: not the catalog's, which changes when a migration alters a table.
 */
export function missingPrivileges(
  access: PgAccess,
  use: StoreUse,
): { table: string; lacks: TablePrivilege[] }[] {
  const missing: { table: string; lacks: TablePrivilege[] }[] = [];
  for (const [table, needed] of Object.entries(WRITES)) {
    const granted = access.schema?.tables.get(table);
    if (!granted) continue;
    const lacks = (["SELECT", ...(use === "write" ? needed : [])] as TablePrivilege[]).filter(
      (p) => !granted.has(p),
    );
    if (lacks.length) missing.push({ table, lacks });
  }
  return missing;
}

// ── Messages ──

/** An identifier as SQL would need it written in a GRANT. */
function ident(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

const GRANTS: Record<StoreUse, string> = {
  read: "SELECT",
  write: "SELECT, INSERT, UPDATE, DELETE",
};

/** The statements that give `user` what `use` needs on niceeval's schema. */
function grants(user: string, use: StoreUse): string {
  return `GRANT USAGE ON SCHEMA ${PG_SCHEMA} TO ${ident(user)}; GRANT ${GRANTS[use]} ON ALL TABLES IN SCHEMA ${PG_SCHEMA} TO ${ident(user)}`;
}

/** "database evals on db.internal:5432 (postgres://ci:***@db.internal:5432/evals)" */
function where(url: string, database: string): string {
  return `database ${database} on ${endpoint(new URL(url))} (${redactUrl(url)})`;
}

function refused(message: string, advice: StoreAdvice): NiceevalError {
  return new NiceevalError("STORE_PERMISSION", `${message}; or ${advice.fixUrl}.`);
}

/** The user may not create niceeval's schema, which the database does not have yet. */
export function cannotCreateSchema(
  url: string,
  access: PgAccess,
  advice: StoreAdvice,
): NiceevalError {
  const { user, database } = access;
  return refused(
    `the PostgreSQL user ${user} may not create niceeval's schema in ${where(url, database)}: the first run into a database needs CREATE on it, later ones only read and write. Grant it (GRANT CREATE ON DATABASE ${ident(database)} TO ${ident(user)}), or make the first run as a user who has it and then grant ${user} the rest (${grants(user, "write")})`,
    advice,
  );
}

/** The user may not add the tables a migration creates to niceeval's schema. */
export function cannotMigrate(
  url: string,
  access: PgAccess,
  version: number,
  advice: StoreAdvice,
): NiceevalError {
  const { user, database } = access;
  const owner = access.schema?.owner ?? "its owner";
  const what =
    version === 0
      ? "has no niceeval tables yet"
      : `was written by an older niceeval (schema version ${version}, this one writes ${PG_SCHEMA_VERSION})`;
  return refused(
    `the schema ${PG_SCHEMA} of ${where(url, database)} ${what}, and the PostgreSQL user ${user} may not ${version === 0 ? "create them" : "upgrade it"}: that needs CREATE on the schema. Make one run as its owner (${owner}), or have it grant that (GRANT CREATE ON SCHEMA ${PG_SCHEMA} TO ${ident(user)})`,
    advice,
  );
}

/** The user has no USAGE on niceeval's schema: nothing in it can be read. */
export function noSchemaUsage(
  url: string,
  access: PgAccess,
  use: StoreUse,
  advice: StoreAdvice,
): NiceevalError {
  const { user, database } = access;
  return refused(
    `the PostgreSQL user ${user} may not use the schema ${PG_SCHEMA}, where niceeval keeps its runs, in ${where(url, database)}: to ${use} runs it needs USAGE on the schema and ${GRANTS[use].replace(/, (?=\w+$)/, " and ")} on its tables. Its owner (${access.schema?.owner ?? "the schema's owner"}) can grant them: ${grants(user, use)}`,
    advice,
  );
}

/** The user lacks privileges on some of niceeval's tables. */
export function tablesRefused(
  url: string,
  access: PgAccess,
  use: StoreUse,
  missing: readonly { table: string; lacks: readonly TablePrivilege[] }[],
  advice: StoreAdvice,
): NiceevalError {
  const { user, database } = access;
  const list = missing.map((m) => `${m.lacks.join(", ")} on ${PG_SCHEMA}.${m.table}`).join("; ");
  return refused(
    `the PostgreSQL user ${user} may not ${use === "read" ? "read runs from" : "write runs to"} the schema ${PG_SCHEMA} of ${where(url, database)}: it lacks ${list}. Its owner (${access.schema?.owner ?? "the schema's owner"}) can grant them: ${grants(user, use)}`,
    advice,
  );
}

/**
 * A query the server refused for want of a privilege (SQLSTATE 42501), in words: which user, the
 * server's own reason, and what a niceeval user needs. Undefined for any other error.
 */
export function permissionError(
  url: string,
  error: unknown,
  advice: StoreAdvice,
): NiceevalError | undefined {
  const e = (error ?? {}) as { code?: unknown; message?: unknown };
  if (e.code !== "42501") return undefined;
  const parsed = new URL(url);
  const user = decodeURIComponent(parsed.username) || "(default user)";
  const database = decodeURIComponent(parsed.pathname.slice(1)) || user;
  return new NiceevalError(
    "STORE_PERMISSION",
    `the PostgreSQL user ${user} was refused (${String(e.message)}) in ${where(url, database)}. niceeval's user needs CREATE on the database the first time, then USAGE on the schema ${PG_SCHEMA} and SELECT, INSERT, UPDATE and DELETE on its tables (SELECT alone to read runs), which the schema's owner can grant: ${grants(user, "write")}; or ${advice.fixUrl}.`,
    { cause: error },
  );
}
