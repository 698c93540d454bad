// What the connected PostgreSQL user may do with niceeval's schema, read from the catalog (which
// any user may read), and the messages that say which privilege is missing and how to grant it.
import type pg from "pg";
import { NiceevalError } from "../../errors.js";
import type { StoreAdvice } from "../advice.js";
import { endpoint, redactUrl } from "./connection.js";
import { type MigrationNeeds, PG_SCHEMA, PG_SCHEMA_VERSION } from "./schema.js";

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
    /** Whether the user is a member of the owner's role (or a superuser): may act as the owner. */
    member: boolean;
    usage: boolean;
    /** CREATE on the schema: may add tables to it (a migration). */
    create: boolean;
    /** Its tables, each with the privileges the user holds on it. */
    tables: Map<string, Set<TablePrivilege>>;
    /**
     * Its tables' owners, and whether the user has their rights (is the owner, a member of its
     * role, or a superuser): only then may it alter the table.
     */
    owners: Map<string, { owner: string; mine: boolean }>;
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
    member: boolean;
    usage: boolean;
    create: boolean;
    tables: { name: string; granted: TablePrivilege[]; owner: string; mine: boolean }[];
  }>(
    `SELECT current_user AS "user", current_database() AS database,
       has_database_privilege(current_database(), 'CREATE') AS create_schema,
       n.oid IS NOT NULL AS has_schema, pg_get_userbyid(n.nspowner) AS owner,
       coalesce(pg_has_role(n.nspowner, 'MEMBER'), false) AS member,
       coalesce(has_schema_privilege(n.oid, 'USAGE'), false) AS usage,
       coalesce(has_schema_privilege(n.oid, 'CREATE'), false) AS "create",
       coalesce((
         SELECT json_agg(json_build_object('name', c.relname, 'granted', ARRAY(
           SELECT p FROM unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE']) AS p
           WHERE has_table_privilege(c.oid, p)),
           'owner', pg_get_userbyid(c.relowner), 'mine', pg_has_role(c.relowner, 'USAGE')))
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
            member: row.member,
            usage: row.usage,
            create: row.create,
            tables: new Map(row.tables.map((t) => [t.name, new Set(t.granted)])),
            owners: new Map(row.tables.map((t) => [t.name, { owner: t.owner, mine: t.mine }])),
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

/** What keeps the user from applying the steps that bring niceeval's schema up to date. */
export interface UpgradeBlock {
  /** Steps that create tables, when the user lacks CREATE on the schema. */
  create: readonly MigrationNeeds[];
  /** Tables a step alters whose owner's rights the user does not have. */
  alter: readonly { step: MigrationNeeds; table: string; owner: string }[];
}

/**
 * Whether the user may apply `steps` to the existing niceeval schema, from the catalog: creating
 * tables needs CREATE on the schema, altering one needs its owner's rights (no GRANT gives them).
 * Undefined when nothing is in the way.
 */
export function upgradeBlock(
  access: PgAccess,
  steps: readonly MigrationNeeds[],
): UpgradeBlock | undefined {
  const schema = access.schema;
  if (!schema) return undefined;
  const create = schema.create ? [] : steps.filter((step) => step.creates);
  const alter = steps.flatMap((step) =>
    step.alters.flatMap((table) => {
      // A table the database lacks is created by an earlier step: the upgrading user's own.
      const owned = schema.owners.get(table);
      return owned && !owned.mine ? [{ step, table, owner: owned.owner }] : [];
    }),
  );
  return create.length > 0 || alter.length > 0 ? { create, alter } : undefined;
}

/** "step 1 (niceeval's tables) and step 2 (the history of replaced attempts)" */
function stepNames(steps: readonly MigrationNeeds[]): string {
  const names = steps.map((step) => `step ${step.version} (${step.about})`);
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : names[0]!;
}

/**
 * What a superuser can do so that `user` may apply the steps: make it a member of the role that
 * owns each table a step alters, which gives it that role's rights and leaves the tables, and
 * their owner's rights on them, as they are (handing a table to `user` would take them away).
 */
function joinOwners(user: string, schemaOwner: string, block: UpgradeBlock): string {
  const owners = [...new Set(block.alter.map((a) => a.owner))];
  // A member of the schema's owner has CREATE on the schema too.
  const create =
    block.create.length > 0 && !owners.includes(schemaOwner)
      ? [`GRANT CREATE ON SCHEMA ${PG_SCHEMA} TO ${ident(user)}`]
      : [];
  const statements = [
    ...create,
    ...owners.map((owner) => `GRANT ${ident(owner)} TO ${ident(user)}`),
  ];
  const names =
    owners.length > 1 ? `${owners.slice(0, -1).join(", ")} and ${owners.at(-1)}` : owners[0];
  return `have a superuser make ${user} a member of the role${owners.length > 1 ? "s" : ""} ${names} (${statements.join("; ")}), which lets it alter the tables and leaves them ${names}'s`;
}

/**
 * The user may not apply the steps that create niceeval's tables in its (existing, empty) schema
 * or upgrade them: which step needs what, who can apply them, and what to give the user instead.
 */
export function cannotMigrate(
  url: string,
  access: PgAccess,
  version: number,
  block: UpgradeBlock,
  advice: StoreAdvice,
): NiceevalError {
  const { user, database } = access;
  const schemaOwner = access.schema?.owner ?? "its owner";
  const what =
    version === 0
      ? `has no niceeval tables yet, and the PostgreSQL user ${user} may not create them`
      : `was written by an older niceeval (schema version ${version}, this one writes ${PG_SCHEMA_VERSION}), and the PostgreSQL user ${user} may not upgrade it (reading runs needs no upgrade)`;
  const why = [
    ...(block.create.length > 0
      ? [
          `${stepNames(block.create)} ${block.create.length > 1 ? "create" : "creates"} tables in it, which needs CREATE on the schema`,
        ]
      : []),
    ...block.alter.map(
      (a) =>
        `${stepNames([a.step])} alters the table ${PG_SCHEMA}.${a.table}, which only its owner (${a.owner}) may do`,
    ),
  ];
  const instead =
    block.alter.length === 0
      ? `have ${schemaOwner} grant that (GRANT CREATE ON SCHEMA ${PG_SCHEMA} TO ${ident(user)})`
      : joinOwners(user, schemaOwner, block);
  const by = block.alter[0]?.owner ?? schemaOwner;
  return refused(
    `the schema ${PG_SCHEMA} of ${where(url, database)} ${what}: ${why.join(", and ")}. Make one run into it as ${by}, which ${version === 0 ? "creates them" : "upgrades it"}, or ${instead}`,
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

/**
 * Who can grant the missing privileges and how: the owner of each table (read from the catalog),
 * which is the schema's owner unless a table was handed to another role.
 */
function grantors(access: PgAccess, use: StoreUse, missing: readonly { table: string }[]): string {
  const { user, schema } = access;
  const byOwner = new Map<string, string[]>();
  for (const { table } of missing) {
    const owner = schema?.owners.get(table)?.owner ?? schema?.owner ?? "the schema's owner";
    byOwner.set(owner, [...(byOwner.get(owner) ?? []), `${PG_SCHEMA}.${ident(table)}`]);
  }
  const owners = [...byOwner.keys()];
  if (schema && owners.length === 1 && owners[0] === schema.owner)
    return `Its owner (${schema.owner}) can grant them: ${grants(user, use)}`;
  return [...byOwner]
    .map(
      ([owner, tables]) =>
        `${owner}, who owns ${tables.join(", ")}, can grant ${tables.length > 1 ? "them" : "it"}: GRANT ${GRANTS[use]} ON ${tables.join(", ")} TO ${ident(user)}`,
    )
    .join("; and ");
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
    `the PostgreSQL user ${user} may not ${use === "read" ? "read runs from" : "write runs to"} the schema ${PG_SCHEMA} of ${where(url, database)}: it lacks ${list}. ${grantors(access, use, missing)}`,
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
