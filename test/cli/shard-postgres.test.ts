import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import type { StoredRun } from "../../src/store/types.js";
import { startPostgres, type TestPostgres } from "../support/postgres.js";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { evalFileHeader } from "./eval-source.js";

// Issue 12 point 1 on the PostgreSQL backend: the shard round-trips in the manifest, and merging
// (streams read while the merged run is written) gives the unsharded run.

const suite = `${evalFileHeader}
export const many = defineSuite<string, string>({
  id: "many",
  trials: 2,
  cases: Array.from({ length: 40 }, (_, i) => ({ id: "m" + i, input: "m" + i, expected: i % 5 ? "m" + i : "no" })),
  target: async (input) => input,
  scorers: [same],
});
`;

type Shown = { run: StoredRun; records: AttemptRecord[] };
const essence = ({ elapsedMs: _e, ...rest }: AttemptRecord) => rest;

describe("shards and merge on a PostgreSQL store", { timeout: 180_000 }, () => {
  let server: TestPostgres;
  let url: string;
  let project: FixtureProject;
  const cli = (args: string[]) => runCli(args, project.dir, { NICEEVAL_STORE: url });
  const show = async (run: string) =>
    JSON.parse((await cli(["show", run, "--json"])).stdout) as Shown;

  beforeAll(async () => {
    server = await startPostgres();
    url = await server.createDatabase("cli_shards");
    project = await makeProject({ "evals/many.eval.ts": suite });
  }, 120_000);
  afterAll(async () => {
    await project?.cleanup();
    await server?.stop();
  });

  it("stores the shard with the run and merges the shards into the unsharded run", async () => {
    expect((await cli(["run", "--name", "full", "--quiet"])).code).toBe(1);
    for (const i of [1, 2]) {
      const run = await cli(["run", "--shard", `${i}/2`, "--name", `half-${i}`, "--quiet"]);
      expect(run.stderr).toBe("");
      expect((await show(`half-${i}`)).run.shard).toEqual({ index: i, count: 2 });
    }
    const merged = await cli(["merge", "half-2", "half-1", "half-2", "--name", "merged"]);
    expect(merged.code).toBe(0);
    expect(merged.stdout).toMatch(
      /^merged 2 runs into [0-9a-f]{8} \(merged\): 80 attempts, finished\n$/,
    );
    const full = await show("full");
    const all = await show("merged");
    expect(all.records.map(essence)).toEqual(full.records.map(essence));
    expect(all.run.totals).toEqual(full.run.totals);
  });
});
