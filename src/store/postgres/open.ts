import type pg from "pg";
import {
  cannotCreateSchema,
  cannotMigrate,
  missingPrivileges,
  noSchemaUsage,
  readPgAccess,
  tablesRefused,
} from "./access.js";
import { redactUrl } from "./connection.js";
import { migratePg, notNiceeval, PG_SCHEMA_VERSION, readPgSchemaVersion } from "./schema.js";

/**
 * Make the database ready for a writer: check from the catalog that the user may do what comes
 * next (create the schema, upgrade it, read and write its tables), then migrate. A missing
 * privilege is `STORE_PERMISSION`, naming the user, the database and the GRANT, before anything
 * is written.
 */
export async function prepareToWrite(client: pg.ClientBase, url: string): Promise<void> {
  const location = redactUrl(url);
  const before = await readPgAccess(client);
  const schema = before.schema;
  if (!schema) {
    if (!before.createSchema) throw cannotCreateSchema(url, before);
  } else {
    if (!schema.usage) throw noSchemaUsage(url, before, "write");
    if (schema.tables.size > 0 && !schema.tables.has("schema_version")) throw notNiceeval(location);
    if (schema.tables.has("schema_version") && !schema.tables.get("schema_version")?.has("SELECT"))
      throw tablesRefused(url, before, "write", [{ table: "schema_version", lacks: ["SELECT"] }]);
    const version = await readPgSchemaVersion(client);
    if (version < PG_SCHEMA_VERSION && !schema.create) throw cannotMigrate(url, before, version);
  }
  const migrated = await migratePg(client, location);
  // Tables a migration made are the migrating user's: read the rights again.
  const access = migrated ? await readPgAccess(client) : before;
  const missing = missingPrivileges(access, "write");
  if (missing.length) throw tablesRefused(url, access, "write", missing);
}
