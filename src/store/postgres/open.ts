import type pg from "pg";
import { NiceevalError } from "../../errors.js";
import type { StoreAdvice } from "../advice.js";
import {
  cannotCreateSchema,
  cannotMigrate,
  missingPrivileges,
  noSchemaUsage,
  readPgAccess,
  tablesRefused,
  upgradeBlock,
} from "./access.js";
import { redactUrl } from "./connection.js";
import { migrateAsOwner } from "./owner-role.js";
import {
  type MigrationNeeds,
  migratePg,
  notNiceeval,
  PG_SCHEMA,
  PG_SCHEMA_VERSION,
  readPgSchemaVersion,
  stepsAfter,
  tooNew,
} from "./schema.js";

/**
 * Make the database ready for a writer: check from the catalog that the user may do what comes
 * next (create the schema; upgrade it, which takes CREATE on it for a step that adds tables and
 * the owner's rights on each table a step alters; read and write its tables), then migrate (as
 * the schema's owner when the user is a member of its role). A
 * missing privilege is `STORE_PERMISSION`, naming the user, the database and the GRANT or who
 * can do it instead, before anything is written.
 */
export async function prepareToWrite(
  client: pg.ClientBase,
  url: string,
  advice: StoreAdvice,
): Promise<void> {
  const location = redactUrl(url);
  const before = await readPgAccess(client);
  const schema = before.schema;
  let steps: readonly MigrationNeeds[] = [];
  let refusal: (() => Error) | undefined;
  if (!schema) {
    if (!before.createSchema) throw cannotCreateSchema(url, before, advice);
  } else {
    if (!schema.usage) throw noSchemaUsage(url, before, "write", advice);
    if (schema.tables.size > 0 && !schema.tables.has("schema_version"))
      throw notNiceeval(location, advice);
    if (schema.tables.has("schema_version") && !schema.tables.get("schema_version")?.has("SELECT"))
      throw tablesRefused(
        url,
        before,
        "write",
        [{ table: "schema_version", lacks: ["SELECT"] }],
        advice,
      );
    const version = await readPgSchemaVersion(client);
    steps = version < PG_SCHEMA_VERSION ? stepsAfter(version) : [];
    const blocked = steps.length > 0 && upgradeBlock(before, steps);
    // Refused unless the user may act as the schema's owner, which may apply the steps: a member
    // of its role that does not inherit its rights (NOINHERIT) lacks them as itself.
    if (blocked) refusal = () => cannotMigrate(url, before, version, blocked, advice);
  }
  // As the schema's owner when the user is a member of its role: the tables it creates are the owner's.
  const migrated = await migrateAsOwner(
    client,
    before,
    steps,
    () => migratePg(client, location, advice),
    refusal,
  );
  // Tables a migration made are the migrating role's: read the rights again.
  const access = migrated ? await readPgAccess(client) : before;
  const missing = missingPrivileges(access, "write");
  if (missing.length) throw tablesRefused(url, access, "write", missing, advice);
}

/**
 * Check that the database can be read as it is, and by this user, without creating or changing
 * anything: a database without niceeval's tables is `STORE_NOT_FOUND` (as a missing SQLite file
 * is), one a newer niceeval wrote is `STORE_TOO_NEW`, one an older niceeval wrote is read as it
 * is. Resolves to its schema version, which says which tables it has.
 */
export async function prepareToRead(
  client: pg.ClientBase,
  url: string,
  advice: StoreAdvice,
): Promise<number> {
  const location = redactUrl(url);
  const access = await readPgAccess(client);
  const schema = access.schema;
  if (!schema || schema.tables.size === 0)
    throw new NiceevalError(
      "STORE_NOT_FOUND",
      `no store in ${location}: the database has no niceeval tables (in a schema ${PG_SCHEMA}), so no run has been stored there yet. Open it to write (not readOnly) to create them.`,
    );
  if (!schema.usage) throw noSchemaUsage(url, access, "read", advice);
  if (!schema.tables.has("schema_version")) throw notNiceeval(location, advice);
  const missing = missingPrivileges(access, "read");
  if (missing.length) throw tablesRefused(url, access, "read", missing, advice);
  const version = await readPgSchemaVersion(client);
  if (version > PG_SCHEMA_VERSION) throw tooNew(location, version, advice);
  // niceeval writes its version table and first version in one transaction.
  if (version === 0) throw notNiceeval(location, advice);
  return version;
}
