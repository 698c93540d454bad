// Upgrading niceeval's schema as the role that owns it, when the connected user may act as that
// role: a table a step creates belongs to the role that creates it, and one the user's own would
// be out of reach of the owner, who could then no longer read or write its own store.
import type pg from "pg";
import { type PgAccess, readPgAccess, upgradeBlock } from "./access.js";
import type { MigrationNeeds } from "./schema.js";

/**
 * Run `migrate` (which applies `steps`) as the schema's owner when the user is another role that
 * is a member of the owner's (or a superuser), so every table it creates is the owner's; else, or
 * when the server refuses the switch or the owner could not apply the steps, as the user itself,
 * unless the user may not apply them (`refusal`, from the catalog's rights of the user itself:
 * then that error is thrown, before anything changed). A member need not inherit the owner's
 * rights (NOINHERIT) to act as the owner. The session's role is the user's again afterwards, also
 * when `migrate` fails.
 */
export async function migrateAsOwner<T>(
  client: pg.ClientBase,
  access: PgAccess,
  steps: readonly MigrationNeeds[],
  migrate: () => Promise<T>,
  refusal?: () => Error,
): Promise<T> {
  const schema = access.schema;
  const owner = schema?.member && schema.owner !== access.user ? schema.owner : undefined;
  if (steps.length === 0 || !owner || !(await becomeOwner(client, owner, steps))) {
    if (refusal) throw refusal();
    return migrate();
  }
  let result: T;
  try {
    result = await migrate();
  } catch (error) {
    // On a connection the server ended this fails too: the step's failure is the one to report.
    await client.query("RESET ROLE").catch(() => {});
    throw error;
  }
  await client.query("RESET ROLE");
  return result;
}

/**
 * `SET ROLE owner`, kept when the owner may apply `steps` (it owns the schema, but a table a step
 * alters may be another role's). False, the session still the user's, when it may not, or when
 * the server refuses the switch (a membership granted WITH SET FALSE).
 */
async function becomeOwner(
  client: pg.ClientBase,
  owner: string,
  steps: readonly MigrationNeeds[],
): Promise<boolean> {
  try {
    // Quoted always: a role may be named like a keyword, or in capitals.
    await client.query(`SET ROLE "${owner.replaceAll('"', '""')}"`);
  } catch (error) {
    if ((error as { code?: unknown }).code === "42501") return false;
    throw error;
  }
  try {
    if (!upgradeBlock(await readPgAccess(client), steps)) return true;
  } catch (error) {
    await client.query("RESET ROLE").catch(() => {});
    throw error;
  }
  await client.query("RESET ROLE");
  return false;
}
