import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStoreAt } from "../../src/cli/store.js";
import { openStore } from "../../src/store/index.js";

/** The error a promise rejects with. */
const rejection = (promise: Promise<unknown>): Promise<Error> =>
  promise.then(
    () => {
      throw new Error("expected the store to be refused");
    },
    (error: unknown) => error as Error,
  );

describe("a store refused from code advises what code calls, from the CLI its flags", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "niceeval-advice-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("a file that is not a niceeval store", async () => {
    const path = join(dir, "junk.sqlite");
    await writeFile(path, "not a database at all");
    const fromCode = await rejection(openStore(path));
    expect(fromCode).toMatchObject({
      code: "STORE_NOT_NICEEVAL",
      message: `${path} is not a niceeval store (it is not a SQLite database); niceeval does not write to it. Open another path (openStore, openSqliteStore) to keep runs in another file, or move this one away.`,
    });
    const fromCli = await rejection(openStoreAt(path, dir));
    expect(fromCli.message).toBe(
      `${path} is not a niceeval store (it is not a SQLite database); niceeval does not write to it. Pass --store <other path> to keep runs in another file, or move this one away.`,
    );
  });

  it("another application's SQLite database, read or written", async () => {
    const path = join(dir, "contacts.sqlite");
    const db = new Database(path);
    db.exec("CREATE TABLE contacts (name TEXT)");
    db.close();
    for (const readOnly of [false, true]) {
      const error = await rejection(openStore(path, { readOnly }));
      expect(error.message).toContain("Open another path (openStore, openSqliteStore)");
      expect(error.message).not.toContain("--store");
    }
  });

  it("a folder given as the store's path", async () => {
    const fromCode = await rejection(openStore(dir));
    expect(fromCode).toMatchObject({
      code: "STORE_UNREADABLE",
      message: `the store path ${dir} is a folder; give openStore the path of a file in it (for example ${dir}/niceeval.sqlite).`,
    });
    const fromCli = await rejection(openStoreAt(dir, dir));
    expect(fromCli.message).toBe(
      `the store path ${dir} is a folder; give --store the path of a file in it (for example ${dir}/niceeval.sqlite).`,
    );
  });

  it("a device given as the store's path (/dev/null meant as no store)", async () => {
    const fromCli = await rejection(openStoreAt("/dev/null", dir));
    expect(fromCli).toMatchObject({
      code: "STORE_UNREADABLE",
      message:
        "the store path /dev/null is not a file (a device, a pipe or a socket); pass --store <other path> to keep runs in another file, or run with --no-store to store nothing.",
    });
  });

  it("a store that does not exist, opened to read", async () => {
    const path = join(dir, "nope.sqlite");
    const fromCode = await rejection(openStore(path, { readOnly: true }));
    expect(fromCode).toMatchObject({
      code: "STORE_NOT_FOUND",
      message: `no store at ${path}: no run has been stored there yet. Open it to write (not readOnly) to create it.`,
    });
    const fromCli = await rejection(openStoreAt(path, dir, true));
    expect(fromCli.message).toBe(
      `no store at ${path}: no run has been stored there yet. \`niceeval run\` creates it; to read another store pass --store <path> or set NICEEVAL_STORE.`,
    );
  });

  it("a folder for the store that cannot be made: a file is in the way", async () => {
    await writeFile(join(dir, ".niceeval"), "");
    for (const path of [
      join(dir, ".niceeval", "niceeval.sqlite"),
      join(dir, ".niceeval", "a", "b.sqlite"),
    ]) {
      const error = await rejection(openStoreAt(path, dir));
      expect(error).toMatchObject({ code: "STORE_UNREADABLE" });
      expect(error.message).toMatch(
        new RegExp(
          `^cannot create the folder of the store ${path.replaceAll(".", "\\.")} \\(E(EXIST|NOTDIR)[^)]*\\): a file is where a folder of its path should be; move that file, or pass --store <a path in a folder you can write to>\\.$`,
        ),
      );
    }
  });

  it("an empty location, and a file URL whose # or ? would cut its path", async () => {
    const empty = await rejection(openStoreAt("", dir));
    expect(empty).toMatchObject({
      code: "STORE_LOCATION",
      message:
        "the store's location (--store or NICEEVAL_STORE) is empty; give a file path or a postgres:// URL",
    });
    for (const [url, part] of [
      [`file://${dir}/runs#1/store.sqlite`, "#1/store.sqlite"],
      [`file://${dir}/q?x=1/store.sqlite`, "?x=1/store.sqlite"],
    ]) {
      const error = await rejection(openStoreAt(url!, dir));
      expect(error).toMatchObject({
        code: "STORE_LOCATION",
        message: `store ${url} (--store or NICEEVAL_STORE): a file URL ends its path at # or ?, so it would name another file and drop "${part}"; write # as %23 and ? as %3F, or give the path itself`,
      });
    }
    const encoded = await openStoreAt(`file://${dir}/runs%231.sqlite`, dir);
    expect(encoded.location).toBe(`sqlite:${dir}/runs#1.sqlite`);
    await encoded.close();
  });

  it("a URL of another scheme, and a PostgreSQL URL that cannot be read", async () => {
    const scheme = await rejection(openStore("http://user:pw@x/y"));
    expect(scheme).toMatchObject({
      code: "STORE_LOCATION",
      message:
        "store http://user:***@x/y (given to openStore): niceeval keeps runs in PostgreSQL (postgres:// or postgresql://) or in a SQLite file; fix the URL's scheme, or give a file path",
    });
    const cli = await rejection(openStoreAt("http://user:pw@x/y", dir));
    expect(cli.message).toContain("store http://user:***@x/y (--store or NICEEVAL_STORE)");
    const port = await rejection(openStore("postgres://u:pw@db:notaport/evals"));
    expect(port).toMatchObject({ code: "STORE_BAD_URL" });
    expect(port.message).toContain(
      "fix the URL given to openStore (or openPostgresStore), or open the path of a SQLite file to keep runs there.",
    );
    expect(port.message).not.toContain("--store");
  });

  it("a run a store opened to read only does not hold", async () => {
    const path = join(dir, "runs.sqlite");
    await (await openStore(path)).close();
    const fromCode = await openStore(path, { readOnly: true });
    const fromCli = await openStoreAt(path, dir, true);
    try {
      expect(await rejection(fromCode.queryAttempts("nope"))).toMatchObject({
        code: "RUN_NOT_FOUND",
        message: `no run nope in ${path}; listRuns() lists the runs it holds, with their ids.`,
      });
      expect((await rejection(fromCli.queryAttempts("nope"))).message).toBe(
        `no run nope in ${path}; \`niceeval runs\` lists the runs it holds (with the same --store, if one was given), with their ids.`,
      );
    } finally {
      await fromCode.close();
      await fromCli.close();
    }
  });
});
