import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresStore, openSqliteStore, openStore } from "../../src/store/index.js";

// A misspelt option of the functions that open a store was ignored: { readonly: true } opened a
// new store to write instead of refusing a missing one (STORE_NOT_FOUND). Each is refused before
// anything is opened, created or connected to, naming the key and the key meant.
describe("the store openers' options", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "niceeval-open-options-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("refuse a key they do not take, creating nothing", async () => {
    const path = join(dir, "typo.sqlite");
    await expect(openStore(path, { readonly: true } as never)).rejects.toMatchObject({
      code: "USAGE",
      message:
        'openStore: unknown key "options.readonly" (did you mean "options.readOnly"?); known keys: options.cwd, options.readOnly',
    });
    await expect(openSqliteStore(path, { readonly: true } as never)).rejects.toMatchObject({
      code: "USAGE",
      message: expect.stringMatching(
        /^openSqliteStore: unknown key "options\.readonly" \(did you mean "options\.readOnly"\?\); known keys: .*options\.busyTimeoutMs/,
      ),
    });
    expect(existsSync(path)).toBe(false);
    // Refused before any connection: no server listens at this URL.
    await expect(
      openPostgresStore("postgres://u:p@127.0.0.1:1/db", { readonly: true } as never),
    ).rejects.toMatchObject({
      code: "USAGE",
      message: expect.stringMatching(
        /^openPostgresStore: unknown key "options\.readonly" \(did you mean "options\.readOnly"\?\); known keys: .*options\.poolSize/,
      ),
    });
  });

  it("refuse options that are not an object", async () => {
    await expect(openStore(join(dir, "x.sqlite"), null as never)).rejects.toMatchObject({
      code: "USAGE",
      message: "openStore: options must be an object ({ cwd, readOnly }) when given, got null",
    });
    expect(existsSync(join(dir, "x.sqlite"))).toBe(false);
  });

  it("still open a store with the keys they take", async () => {
    const path = join(dir, "good.sqlite");
    const writer = await openStore(path, { cwd: dir });
    await writer.close();
    const reader = await openSqliteStore(path, { readOnly: true, busyTimeoutMs: 100 });
    expect(await reader.listRuns()).toEqual([]);
    await reader.close();
  });
});
