import { existsSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { evalFileHeader } from "./eval-source.js";
import { cleanEnv } from "./store-fixture.js";

// The store file deleted, or replaced by another file, while a run writes to it (a cleanup job,
// a copy restored over it): SQLite keeps writing to the file it opened, which no path names any
// more, and leaves its journal beside the path. The run must not lose what it wrote, nor damage
// the file now at the path.

/**
 * 3,000 cases (past the 1,024 a run appends in place, so the append thread writes too); case
 * c0500's target deletes the store ($MOVE=delete) or renames $REPLACEMENT over it ($MOVE=replace).
 */
const movingEval = `${evalFileHeader}
import { renameSync, rmSync } from "node:fs";
const count = Number(process.env.CASES ?? 3000);
export const moving = defineSuite<string, string>({
  id: "moving",
  cases: Array.from({ length: count }, (_, i) => {
    const id = "c" + String(i).padStart(4, "0");
    return { id, input: id, expected: id };
  }),
  target: async (input) => {
    if (input === "c0500" && process.env.MOVE === "delete") rmSync(process.env.STORE_FILE);
    if (input === "c0500" && process.env.MOVE === "replace")
      renameSync(process.env.REPLACEMENT, process.env.STORE_FILE);
    return input;
  },
  scorers: [same],
});
`;

describe("a store file deleted or replaced while a run writes (real CLI)", {
  timeout: 120_000,
}, () => {
  let project: FixtureProject;
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(args, project.dir, { ...cleanEnv, ...env });

  beforeAll(async () => {
    project = await makeProject({ "evals/moving.eval.ts": movingEval });
  });
  afterAll(() => project.cleanup());

  it("deleted: the run exits 2 naming a rescued copy that holds it, and resumes there", async () => {
    const store = join(project.dir, "deleted.sqlite");
    const run = await cli(["run", "--store", store, "--name", "gone", "--quiet"], {
      MOVE: "delete",
      STORE_FILE: store,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`the store file ${store} was deleted or replaced`);
    const rescued = run.stderr.match(/saved to (\S+\.sqlite)/)?.[1];
    expect(rescued).toBeDefined();
    expect(existsSync(store)).toBe(false);
    const listed = await cli(["runs", "--store", rescued!, "--json"]);
    expect(listed.code).toBe(0);
    const [stored] = JSON.parse(listed.stdout) as { runId: string; name: string }[];
    expect(stored!.name).toBe("gone");
    // The rescued copy holds what was written, and the run goes on there.
    const resumed = await cli(["run", "--resume", "gone", "--store", rescued!, "--quiet"]);
    expect(resumed.stderr).toContain(`resuming run ${stored!.runId.slice(0, 8)}`);
    expect(resumed.code).toBe(0);
    const db = new Database(rescued!, { readonly: true });
    const rows = db.prepare("SELECT count(DISTINCT case_id) AS n FROM attempts").get() as {
      n: number;
    };
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    db.close();
    expect(rows.n).toBe(3000);
  });

  it("replaced: the file put at the path stays whole and holds only its own runs", async () => {
    const store = join(project.dir, "replaced.sqlite");
    const replacement = join(project.dir, "other.sqlite");
    const kept = await cli(["run", "--store", replacement, "--name", "kept", "--quiet"], {
      CASES: "5",
    });
    expect(kept.code).toBe(0);
    const run = await cli(["run", "--store", store, "--name", "writer", "--quiet"], {
      MOVE: "replace",
      STORE_FILE: store,
      REPLACEMENT: replacement,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`the store file ${store} was deleted or replaced`);
    const db = new Database(store, { readonly: true });
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    db.close();
    const listed = await cli(["runs", "--store", store, "--json"]);
    expect(listed.code).toBe(0);
    const runs = JSON.parse(listed.stdout) as { name: string; cases: number }[];
    expect(runs.map((r) => [r.name, r.cases])).toEqual([["kept", 5]]);
    // What the run wrote before the swap is in the rescued copy, not lost.
    const rescued = run.stderr.match(/saved to (\S+\.sqlite)/)?.[1];
    const inCopy = await cli(["runs", "--store", rescued!, "--json"]);
    expect((JSON.parse(inCopy.stdout) as { name: string }[]).map((r) => r.name)).toEqual([
      "writer",
    ]);
  });
});
