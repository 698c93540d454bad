import { describe, expect, it } from "vitest";
import type { RunManifest } from "../store/types.js";
import { shellWord } from "./command-words.js";
import { shardRunCommand } from "./shard-command.js";

const shard = (command: string[], extra: Partial<RunManifest> = {}): RunManifest => ({
  runId: "r1",
  tags: {},
  niceevalVersion: "0.1.0",
  nodeVersion: "v20.19.0",
  command: ["/usr/lib/node_modules/niceeval/dist/cli/bin.js", ...command],
  files: [
    { path: "evals/a.eval.ts", hash: "h1" },
    { path: "evals/b c.eval.ts", hash: "h2" },
  ],
  evals: [],
  trials: 1,
  concurrency: 8,
  startedAt: "2026-12-05T00:00:00.000Z",
  shard: { index: 1, count: 3 },
  ...extra,
});

describe("shardRunCommand", () => {
  it("repeats what merge checks equal from the shard's command line, and nothing else", () => {
    const run = shard(
      [
        "run",
        "evals",
        "--exclude",
        "evals/old",
        "--filter",
        "qa/*",
        "--trials",
        "3",
        "--shard",
        "1/3",
        "--name",
        "nightly-1",
        "--concurrency",
        "2",
        "--quiet",
      ],
      { filter: "qa/*", trials: 3 },
    );
    expect(shardRunCommand(run, { index: 3, count: 3 })).toBe(
      "niceeval run evals --exclude evals/old --filter 'qa/*' --trials 3 --shard 3/3",
    );
    expect(shardRunCommand(run, { index: 2, count: 3 }, "ci store.sqlite")).toBe(
      "niceeval run evals --exclude evals/old --filter 'qa/*' --trials 3 --shard 2/3 --store 'ci store.sqlite'",
    );
  });

  it("repeats a PostgreSQL store with its password masked, and writes a value starting with - after =", () => {
    const run = shard(["run", "--filter=-slow", "--shard", "1/2"], { filter: "-slow" });
    expect(shardRunCommand(run, { index: 2, count: 2 }, "postgres://u:pw@db/evals")).toBe(
      "niceeval run --filter=-slow --shard 2/2 --store 'postgres://u:***@db/evals'",
    );
  });

  it("names the eval files and the manifest's trials when the command line no longer parses", () => {
    const run = shard(["run", "--an-option-of-another-version", "--shard", "1/3"], {
      trials: 2,
    });
    expect(shardRunCommand(run, { index: 2, count: 3 })).toBe(
      "niceeval run evals/a.eval.ts 'evals/b c.eval.ts' --trials 2 --shard 2/3",
    );
  });
});

describe("shellWord", () => {
  it("quotes only what a shell would split or expand", () => {
    expect(shellWord("evals/a.eval.ts")).toBe("evals/a.eval.ts");
    expect(shellWord("--filter=qa")).toBe("--filter=qa");
    expect(shellWord("a b")).toBe("'a b'");
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
    expect(shellWord("$HOME")).toBe("'$HOME'");
    expect(shellWord("")).toBe("''");
  });
});
