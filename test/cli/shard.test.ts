import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import { shardOf } from "../../src/shard/shard.js";
import type { StoredRun } from "../../src/store/types.js";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { evalFileHeader } from "./eval-source.js";
import { cleanEnv, gitInit, json } from "./store-fixture.js";

// Issue 12 point 1 end to end: --shard, export --ndjson, import, merge, through the real CLI.

/** Two deterministic suites: failures, fractional scores, and one with three trials. */
const suiteEval = `${evalFileHeader}
const threshold = Number(process.env.THRESHOLD ?? 0.5);
const third = createScorer<string, string>({
  name: "third",
  score: ({ output }) => ({ score: (output.length % 3) / 2, metadata: { length: output.length } }),
});
export const letters = defineSuite<string, string>({
  id: "letters",
  cases: Array.from({ length: 30 }, (_, i) => {
    const id = "l" + String(i).padStart(2, "0");
    return { id, input: id, expected: i % 7 === 3 ? "no" : id };
  }),
  target: async (input) => input,
  scorers: [same, third],
  gates: ["same"],
  threshold,
});
export const trio = defineSuite<string, string>({
  id: "trio",
  trials: 3,
  cases: Array.from({ length: 8 }, (_, i) => ({ id: "t" + i, input: "x".repeat(i), expected: "xx" })),
  target: async (input, { trial }) => (trial === 1 ? input + "!" : input),
  scorers: [same, third],
});
`;

type Shown = { run: StoredRun; records: AttemptRecord[] };

/** What "equal case for case" compares: everything but timings. */
const essence = (r: AttemptRecord) => ({
  evalId: r.evalId,
  caseId: r.caseId,
  trial: r.trial,
  index: r.index,
  verdict: r.verdict,
  score: r.score,
  judgments: r.judgments,
  output: r.output,
  input: r.input,
  expected: r.expected,
});
const withoutTime = (run: StoredRun) =>
  (run.summaries ?? []).map(({ elapsedMs: _elapsed, ...rest }) => rest);

describe("shards and merge through the real CLI", { timeout: 180_000 }, () => {
  let project: FixtureProject;
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(args, project.dir, { ...cleanEnv, ...env });
  const show = async (run: string, store: string) => {
    const shown = await cli(["show", run, "--json", "--store", store]);
    expect(shown.stderr).toBe("");
    return json<Shown>(shown.stdout);
  };

  /** The merged run equals the unsharded one case for case, in order (eval, case index, trial). */
  const expectTheFullRun = async (run: string, store: string) => {
    const full = await show("full", "a.sqlite");
    const all = await show(run, store);
    expect(all.records.map(essence)).toEqual(full.records.map(essence));
    expect(withoutTime(all.run)).toEqual(withoutTime(full.run));
    expect(all.run.totals).toEqual(full.run.totals);
    expect(all.run.status).toBe("finished");
    expect(all.run.shard).toBeUndefined();
    expect(all.run.evals).toEqual(full.run.evals);
    expect(all.run.files).toEqual(full.run.files);
    // Merged from imported shards or from files, the run was made in this store.
    expect(all.run.imported).toBeUndefined();
  };

  beforeAll(async () => {
    project = await makeProject({ "evals/suite.eval.ts": suiteEval });
    gitInit(project.dir);
    const full = await cli(["run", "--name", "full", "--store", "a.sqlite", "--quiet"]);
    expect(full.code).toBe(1); // letters has failing cases
    for (const i of [1, 2, 3]) {
      const shard = await cli([
        "run",
        "--shard",
        `${i}/3`,
        "--name",
        `shard-${i}`,
        "--store",
        "a.sqlite",
        "--quiet",
      ]);
      expect(shard.stderr).toBe("");
    }
  }, 120_000);
  afterAll(() => project.cleanup());

  it.each(["0/2", "3/2", "a/b", "1/0"])("--shard %s is a usage error (exit 2)", async (bad) => {
    const result = await cli(["run", "--shard", bad, "--store", "bad.sqlite"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `--shard must be i/n with 1 ≤ i ≤ n (e.g. --shard 1/4), got "${bad}"`,
    );
    expect(existsSync(join(project.dir, "bad.sqlite"))).toBe(false);
  });

  it("says an eval the shard left no case of has none, and the summary counts it apart, live and in show", async () => {
    // A shard with cases of letters and none of trio (8 cases of 3 trials).
    const trio = Array.from({ length: 8 }, (_, i) => `t${i}`);
    const count = 8;
    const index = [...Array(count).keys()]
      .map((i) => i + 1)
      .find((i) => trio.every((id) => shardOf("trio", id, count) !== i))!;
    expect(index).toBeDefined();
    const shard = `${index}/${count}`;
    const live = await cli(["run", "--shard", shard, "--name", "part", "--store", "e.sqlite"]);
    const shown = await cli(["show", "part", "--store", "e.sqlite"]);
    for (const out of [live.stdout, shown.stdout]) {
      expect(out).toContain(`niceeval run · 2 evals from 1 file, cases of shard ${shard} ·`);
      expect(out).toMatch(
        new RegExp(`trio suite · evals/suite.eval.ts · 3 trials\n  no case in shard ${shard}\n`),
      );
      expect(out).not.toContain("× 0");
      expect(out).toContain(`  1 eval (1 more with no case in shard ${shard}) · `);
    }
  });

  it("splits the cases by a hash of (eval, case), every trial with its case, and records the shard", async () => {
    const full = await show("full", "a.sqlite");
    const seen = new Map<string, number>();
    for (const i of [1, 2, 3]) {
      const { run, records } = await show(`shard-${i}`, "a.sqlite");
      expect(run.shard).toEqual({ index: i, count: 3 });
      expect(records.length).toBeGreaterThan(0);
      for (const r of records) {
        expect(shardOf(r.evalId, r.caseId, 3)).toBe(i);
        const key = `${r.evalId}/${r.caseId}/${r.trial}`;
        expect(seen.has(key)).toBe(false);
        seen.set(key, i);
      }
    }
    // Together the shards hold every attempt of the unsharded run, once.
    expect([...seen.keys()].sort()).toEqual(
      full.records.map((r) => `${r.evalId}/${r.caseId}/${r.trial}`).sort(),
    );
    expect(full.run.shard).toBeUndefined();
    // runs marks the shards, in text and JSON, so one is not taken for a whole run.
    const rows = json<{ name: string; shard: string | null }[]>(
      (await cli(["runs", "--json", "--store", "a.sqlite"])).stdout,
    );
    expect(rows.map((r) => [r.name, r.shard]).sort()).toEqual([
      ["full", null],
      ["shard-1", "1/3"],
      ["shard-2", "2/3"],
      ["shard-3", "3/3"],
    ]);
    const text = (await cli(["runs", "--store", "a.sqlite"])).stdout;
    expect(text).toMatch(/shard-2 \[shard 2\/3\] /);
  });

  it("runs shows whole names, so shards named alike stay apart, and cuts only a very long one, with …", async () => {
    const long = `nightly-${"x".repeat(50)}-tail-2026-12-05`;
    for (const [name, shard] of [
      ["evals-9876543210-1", "1/2"],
      ["evals-9876543210-2", "2/2"],
      [long, undefined],
    ] as const) {
      const args = ["run", "--name", name, "--store", "names.sqlite", "--quiet"];
      await cli(shard ? [...args, "--shard", shard] : args);
    }
    const [header, ...rows] = (await cli(["runs", "--store", "names.sqlite"])).stdout
      .trimEnd()
      .split("\n");
    const row = (text: string) => rows.find((l) => l.includes(text))!;
    expect(row("-1 [shard")).toContain(" evals-9876543210-1 [shard 1/2] ");
    expect(row("-2 [shard")).toContain(" evals-9876543210-2 [shard 2/2] ");
    // Cut in its middle, keeping its start and, longer, its end: the cell is 48 characters.
    const cut = / (nightly-x+…x+-tail-2026-12-05) +main /.exec(row("nightly"))?.[1];
    expect(cut).toHaveLength(48);
    // The columns after the name line up under their headers.
    for (const line of rows) expect(line.indexOf(" main ")).toBe(header!.indexOf(" branch "));
  });

  it("exports each shard, imports them into a fresh store (twice: no duplicates), and merges them into the unsharded run", async () => {
    for (const i of [1, 2, 3]) {
      const exported = await cli([
        "export",
        `shard-${i}`,
        "--ndjson",
        `shard-${i}.ndjson`,
        "--store",
        "a.sqlite",
      ]);
      expect(exported.stderr).toBe("");
      expect(exported.code).toBe(0);
      expect(exported.stdout).toMatch(new RegExp(`shard ${i}/3\\), \\d+ attempts, finished`));
    }
    const lines = (await readFile(join(project.dir, "shard-1.ndjson"), "utf8")).trim().split("\n");
    const first = JSON.parse(lines[0]!);
    expect(first).toMatchObject({ type: "run", format: "niceeval/run/v1" });
    expect(first.manifest.shard).toEqual({ index: 1, count: 3 });
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({
      type: "run.end",
      status: "finished",
      attempts: lines.length - 2,
    });
    expect(JSON.parse(lines[1]!).type).toBe("record");

    const files = ["shard-1.ndjson", "shard-2.ndjson", "shard-3.ndjson"];
    const imported = await cli(["import", ...files, "--store", "b.sqlite"]);
    expect(imported.stderr).toBe("");
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(
      /imported shard-1\.ndjson: run [0-9a-f]{8} \(shard-1, shard 1\/3\)/,
    );
    const again = await cli(["import", "shard-2.ndjson", "--store", "b.sqlite"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(
      "already in the store: an attempt it held is not added twice, and one that differs replaces it",
    );
    for (const i of [1, 2, 3]) {
      const original = await show(`shard-${i}`, "a.sqlite");
      const copy = await show(`shard-${i}`, "b.sqlite");
      expect(copy.run.runId).toBe(original.run.runId);
      expect(copy.run.totals).toEqual(original.run.totals);
      expect(copy.records).toEqual(original.records);
      expect(copy.run.summaries).toEqual(original.run.summaries);
    }

    const merged = await cli([
      "merge",
      "shard-1",
      "shard-2",
      "shard-3",
      "--name",
      "merged",
      "--store",
      "b.sqlite",
    ]);
    expect(merged.stderr).toBe("");
    expect(merged.code).toBe(0);
    expect(merged.stdout).toMatch(
      /^merged 3 runs into [0-9a-f]{8} \(merged\): 54 attempts, finished\n$/,
    );

    await expectTheFullRun("merged", "b.sqlite");

    // The console report of the merge is the unsharded run's (timings aside), under a line
    // naming each run.
    const report = (run: string, store: string) =>
      cli(["show", run, "--store", store]).then((r) => r.stdout.replace(/[\d.]+ m?s\b/g, "<t>"));
    const [fullHeading, ...fullReport] = (await report("full", "a.sqlite")).split("\n");
    const [mergedHeading, ...mergedReport] = (await report("merged", "b.sqlite")).split("\n");
    expect(fullReport.join("\n")).toContain("letters");
    expect(mergedReport).toEqual(fullReport);
    expect(fullHeading).toMatch(/^niceeval show: run [0-9a-f]{8} \(full\) · started /);
    expect(mergedHeading).toMatch(/^niceeval show: run [0-9a-f]{8} \(merged\) · started /);
  });

  it("show names the run it prints: after import and merge, latest is the shard that started last", async () => {
    // The merged run starts with its first shard, so the shard that started last is newer.
    const latest = await cli(["show", "latest", "--store", "b.sqlite"]);
    expect(latest.stdout.split("\n")[0]).toMatch(
      /^niceeval show: run [0-9a-f]{8} \(shard-3\) \[shard 3\/3\] · started [\d-]+ [\d:]+ UTC · branch main$/,
    );
    // It names the merged run that holds the shard.
    const whole = json<{ runId: string; name: string | null }[]>(
      (await cli(["runs", "--json", "--store", "b.sqlite"])).stdout,
    ).find((r) => r.name === "merged")!;
    const shard = /^niceeval show: run ([0-9a-f]{8})/.exec(latest.stdout)![1];
    expect(latest.stderr).toBe(
      `niceeval: latest is run ${shard} (shard-3), shard 3/3 of a sharded run, not the whole run: runs are ordered by when they started, and a merged run starts with its first shard. The whole run is run ${whole.runId.slice(0, 8)} (merged), merged from it: name it by its name or id\n`,
    );
    // compare says it too, for either run.
    const compared = await cli(["compare", "merged", "latest", "--store", "b.sqlite"]);
    expect(compared.stderr).toMatch(
      /^niceeval: latest is run [0-9a-f]{8} \(shard-3\), shard 3\/3 /,
    );
    const merged = await cli(["show", "merged", "--store", "b.sqlite"]);
    expect(merged.stderr).toBe("");
    expect(merged.stdout.split("\n")[0]).toMatch(/^niceeval show: run [0-9a-f]{8} \(merged\) · /);
  });

  it("import - reads an export from standard input, as export --ndjson - writes it", async () => {
    const exported = await cli(["export", "shard-1", "--ndjson", "-", "--store", "a.sqlite"]);
    expect(exported.code).toBe(0);
    const imported = await runCli(
      ["import", "-", "--store", "stdin.sqlite"],
      project.dir,
      cleanEnv,
      exported.stdout,
    );
    expect(imported.stderr).toBe("");
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(
      /^imported standard input: run [0-9a-f]{8} \(shard-1, shard 1\/3\), \d+ attempts, finished\n$/,
    );
    expect((await show("shard-1", "stdin.sqlite")).records).toEqual(
      (await show("shard-1", "a.sqlite")).records,
    );
    // A broken line read from standard input stores nothing, and names where it came from.
    const lines = exported.stdout.split("\n");
    lines.splice(3, 0, "garbage{{{");
    const broken = await runCli(
      ["import", "-", "--store", "stdin-broken.sqlite"],
      project.dir,
      cleanEnv,
      lines.join("\n"),
    );
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain(
      "cannot read the run export standard input: line 4 is not JSON",
    );
    const none = await cli(["runs", "--json", "--store", "stdin-broken.sqlite"]);
    expect(json<unknown[]>(none.stdout)).toEqual([]);
    const twice = await cli(["import", "-", "-", "--store", "stdin.sqlite"]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain("give - only once");
  });

  it("merges the export files directly into a fresh store, equal to the unsharded run", async () => {
    // After the export test: shard-*.ndjson are there.
    const merged = await cli([
      "merge",
      "shard-3.ndjson",
      "shard-1.ndjson",
      "shard-2.ndjson",
      "--name",
      "from-files",
      "--store",
      "d.sqlite",
    ]);
    expect(merged.stderr).toBe("");
    expect(merged.code).toBe(0);
    expect(merged.stdout).toMatch(
      /^merged 3 runs into [0-9a-f]{8} \(from-files\): 54 attempts, finished\n$/,
    );
    await expectTheFullRun("from-files", "d.sqlite");
    // Only the merged run is stored: the shards were read from their files.
    const runs = json<unknown[]>((await cli(["runs", "--json", "--store", "d.sqlite"])).stdout);
    expect(runs).toHaveLength(1);
  });

  it("says when an export was cut short: import marks the run interrupted, merge reports it (exit 1)", async () => {
    const text = await readFile(join(project.dir, "shard-1.ndjson"), "utf8");
    const lines = text.trim().split("\n");
    await writeFile(join(project.dir, "cut.ndjson"), `${lines.slice(0, -3).join("\n")}\n`);
    const imported = await cli(["import", "cut.ndjson", "--store", "e.sqlite"]);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain(
      `cut.ndjson ends before its run.end line (cut short?): its ${lines.length - 4} attempts were imported and the run is marked interrupted; export it again`,
    );
    // The store knows the run was imported from a cut export: export it again, not --resume.
    const id = (await show("shard-1", "e.sqlite")).run.runId.slice(0, 8);
    const advice = `it was imported from an export that ended before its end line (cut short): export it again where it ran (\`niceeval export ${id} --ndjson <file>\`) and import that`;
    const shown = await cli(["show", "shard-1", "--store", "e.sqlite"]);
    expect(shown.stdout).toContain(
      `this run did not finish (interrupted): the report holds the attempts it stored; ${advice}`,
    );
    expect(shown.stdout).not.toContain("--resume");
    // The export does not say when its run ended: neither does the store (not the import's time).
    expect((await show("shard-1", "e.sqlite")).run.endedAt).toBeUndefined();
    expect(shown.stdout).toContain("  time: unknown\n");
    const compared = await cli(["compare", "shard-1", "shard-1", "--store", "e.sqlite"]);
    expect(compared.stdout).toContain(
      `not as changes of the dataset; ${advice}, then compare again`,
    );
    expect(compared.stdout).not.toContain("--resume");
    const merged = await cli([
      "merge",
      "cut.ndjson",
      "shard-2.ndjson",
      "shard-3.ndjson",
      "--store",
      "f.sqlite",
    ]);
    expect(merged.code).toBe(1);
    expect(merged.stderr).toMatch(
      /cut\.ndjson ends before its run\.end line \(cut short\?\): run [0-9a-f]{8} \(shard 1\/3\) may lack some of its cases/,
    );
    // One input's end is unknown, so the merged run's is too (not the merge's time).
    const mergedId = /into ([0-9a-f]{8})/.exec(merged.stdout)?.[1];
    expect(mergedId).toBeDefined();
    expect((await show(mergedId!, "f.sqlite")).run.endedAt).toBeUndefined();
    await writeFile(
      join(project.dir, "wrong-count.ndjson"),
      `${[...lines.slice(0, -2), lines.at(-1)].join("\n")}\n`,
    );
    const counted = await cli(["import", "wrong-count.ndjson", "--store", "g.sqlite"]);
    expect(counted.code).toBe(2);
    expect(counted.stderr).toMatch(
      new RegExp(
        `wrong-count\\.ndjson: line ${lines.length - 1} says the run has ${lines.length - 2} attempts, but ${lines.length - 3} came before it`,
      ),
    );
  });

  it("merging a run with itself, the same shard twice, or merging twice never duplicates cases", async () => {
    const full = await show("full", "a.sqlite");
    const rerun = await cli([
      "run",
      "--shard",
      "2/3",
      "--name",
      "shard-2-again",
      "--store",
      "a.sqlite",
      "--quiet",
    ]);
    expect(rerun.stderr).toBe("");
    const shard2 = (await show("shard-2", "a.sqlite")).records.length;

    const twice = await cli([
      "merge",
      "shard-1",
      "shard-1",
      "shard-2",
      "shard-2-again",
      "shard-3",
      "--json",
      "--store",
      "a.sqlite",
    ]);
    expect(twice.code).toBe(0);
    const result = json<{
      runId: string;
      attempts: number;
      duplicates: number;
      repeatedShards: string[];
    }>(twice.stdout);
    expect(result).toMatchObject({
      attempts: full.records.length,
      duplicates: shard2,
      repeatedShards: ["2/3"],
    });
    expect(twice.stderr).toContain(" was named more than once; it is merged once");
    expect(twice.stderr).toContain(
      `${shard2} duplicated attempts (the same eval, case and trial in more than one run; shard 2/3 given more than once): kept once, from the first run named`,
    );
    const merged = await show(result.runId, "a.sqlite");
    expect(merged.records.map(essence)).toEqual(full.records.map(essence));

    // A merge of whole runs (the merged one and the unsharded one) is still the run, once.
    const again = await cli(["merge", result.runId, "full", "--json", "--store", "a.sqlite"]);
    expect(again.code).toBe(0);
    const second = json<{ runId: string; attempts: number }>(again.stdout);
    expect(second.attempts).toBe(full.records.length);
    expect((await show(second.runId, "a.sqlite")).records.map(essence)).toEqual(
      full.records.map(essence),
    );

    const self = await cli(["merge", "full", "full", "--json", "--store", "a.sqlite"]);
    expect(json<{ attempts: number }>(self.stdout).attempts).toBe(full.records.length);
  });

  it("reports a missing shard (exit 1), naming which, and stores the merge as interrupted", async () => {
    const partial = await cli([
      "merge",
      "shard-1",
      "shard-3",
      "--name",
      "partial",
      "--store",
      "a.sqlite",
    ]);
    expect(partial.code).toBe(1);
    expect(partial.stderr).toContain(
      "missing shard 2/3: the merged run lacks its cases; run `niceeval run --shard 2/3 --store a.sqlite` (or import its export, and name that run or export below), then merge this merge's inputs with it into a new run, not this merged run, which is no shard: `niceeval merge shard-1 shard-3 <the run id of shard 2/3> --store a.sqlite` (with a --name other than partial, which names this merged run)",
    );
    const { run, records } = await show("partial", "a.sqlite");
    expect(run.status).toBe("interrupted");
    const one = (await show("shard-1", "a.sqlite")).records.length;
    const three = (await show("shard-3", "a.sqlite")).records.length;
    expect(records).toHaveLength(one + three);
    // Several missing: each is named, in the advice too.
    const alone = await cli(["merge", "shard-1", "--name", "alone", "--store", "a.sqlite"]);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain(
      "missing shards 2/3, 3/3: the merged run lacks their cases; run `niceeval run --shard 2/3 --store a.sqlite` and `niceeval run --shard 3/3 --store a.sqlite` (or import their exports, and name those runs or exports below), then merge this merge's inputs with them into a new run, not this merged run, which is no shard: `niceeval merge shard-1 <the run id of shard 2/3> <the run id of shard 3/3> --store a.sqlite`",
    );
    expect(alone.stderr).not.toContain("is already used");
    // A name another run has (a CI job run again) is said, as `run --name` says it.
    const again = await cli(["merge", "shard-1", "--name", "alone", "--store", "a.sqlite"]);
    expect(again.stderr).toContain(
      'niceeval: warning: the run name "alone" is already used in sqlite:',
    );
    expect(again.stderr).toContain('"alone" will name 2 runs, so referring to it is ambiguous');
  });

  it("gives the missing shard's command with the shards' paths, --filter and --trials: run as given, the merge takes it", async () => {
    const shard = (i: number) =>
      cli([
        "run",
        "evals",
        "--filter",
        "l0",
        "--trials",
        "2",
        "--shard",
        `${i}/3`,
        "--name",
        `opts-${i}`,
        "--store",
        "opts.sqlite",
        "--quiet",
      ]);
    for (const i of [1, 2]) await shard(i);
    const partial = await cli(["merge", "opts-1", "opts-2", "--store", "opts.sqlite"]);
    expect(partial.code).toBe(1);
    const command = /run `(niceeval run [^`]+)`/.exec(partial.stderr)?.[1];
    expect(command).toBe(
      "niceeval run evals --filter l0 --trials 2 --shard 3/3 --store opts.sqlite --name opts-3",
    );
    // Run word for word: merged with the other two, the run is whole.
    const third = await cli([...command!.split(" ").slice(1), "--quiet"]);
    expect([0, 1]).toContain(third.code);
    const ids = json<{ runId: string; shard: string | null }[]>(
      (await cli(["runs", "--json", "--store", "opts.sqlite"])).stdout,
    )
      .filter((r) => r.shard !== null)
      .map((r) => r.runId);
    expect(ids).toHaveLength(3);
    const whole = await cli(["merge", ...ids, "--store", "opts.sqlite"]);
    expect(whole.stderr).toBe("");
    expect(whole.code).toBe(0);
    expect(whole.stdout).toMatch(/: \d+ attempts, finished\n$/);
  });

  it("show latest on a shard never merged says so, and how to merge it; once merged, names the merged run", async () => {
    const store = ["--store", "lone.sqlite"];
    await cli(["run", "--name", "whole", ...store, "--quiet"]);
    await cli(["run", "--shard", "1/2", "--name", "lone-1", ...store, "--quiet"]);
    const runs = async () =>
      json<{ runId: string; name: string | null }[]>(
        (await cli(["runs", "--json", ...store])).stdout,
      );
    const id = async (name: string) =>
      (await runs()).find((r) => r.name === name)!.runId.slice(0, 8);
    const one = await id("lone-1");
    const alone = await cli(["show", "latest", ...store]);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toBe(
      `niceeval: latest is run ${one} (lone-1), shard 1/2 of a sharded run, not the whole run, and no run in the store was merged from it (its shards were never merged), so latest means this shard alone. For the whole run, merge its shards: run the missing shard 2/2 (\`niceeval run --shard 2/2 --store lone.sqlite\`) or import its export, then \`niceeval merge ${one} <its run id> --store lone.sqlite\`; to mean this shard, name it by its id (${one})\n`,
    );
    const compared = await cli(["compare", "whole", "latest", ...store]);
    expect(compared.stderr).toContain(`so latest means this shard alone. For the whole run`);

    // With the other shard stored, the merge names both.
    await cli(["run", "--shard", "2/2", "--name", "lone-2", ...store, "--quiet"]);
    const two = await id("lone-2");
    const both = await cli(["show", "latest~1", ...store]);
    const merge = `niceeval merge ${one} ${two} --store lone.sqlite`;
    expect(both.stderr).toContain(`For the whole run, merge its shards: \`${merge}\`; to mean`);
    expect((await cli([...merge.split(" ").slice(1), "--name", "lone"])).code).toBe(0);
    const merged = await id("lone");
    const named = await cli(["show", "latest", ...store]);
    expect(named.stderr).toContain(
      `, not the whole run: runs are ordered by when they started, and a merged run starts with its first shard. The whole run is run ${merged} (lone), merged from it: name it by its name or id\n`,
    );
  });

  it("refuses (exit 2) to merge a whole run with shards, by run or by file, naming which is whole and which are shards", async () => {
    const runs = json<{ runId: string; name: string | null }[]>(
      (await cli(["runs", "--json", "--store", "a.sqlite"])).stdout,
    );
    const id = (name: string) => runs.find((r) => r.name === name)!.runId.slice(0, 8);
    const stored = await cli([
      "merge",
      "full",
      "shard-1",
      "--name",
      "m-full",
      "--store",
      "a.sqlite",
    ]);
    expect(stored.code).toBe(2);
    expect(stored.stdout).toBe("");
    expect(stored.stderr).toBe(
      `niceeval: cannot merge whole runs with shards: run ${id("full")} (full) is a whole run, run ${id("shard-1")} (shard 1/3) is a shard. A whole run is not a shard of another run (it holds every case); merge the 3 shards of one \`niceeval run --shard i/3\`, or whole runs only.\n`,
    );
    const after = await cli(["runs", "--json", "--store", "a.sqlite"]);
    expect(json<{ name: string | null }[]>(after.stdout).some((r) => r.name === "m-full")).toBe(
      false,
    );

    await cli(["export", "full", "--ndjson", "full.ndjson", "--store", "a.sqlite"]);
    const files = await cli([
      "merge",
      "full.ndjson",
      "shard-2.ndjson",
      "shard-3.ndjson",
      "--store",
      "whole-and-shards.sqlite",
    ]);
    expect(files.code).toBe(2);
    expect(files.stderr).toContain(
      `cannot merge whole runs with shards: run ${id("full")} (full) is a whole run, runs ${id("shard-2")} (shard 2/3), ${id("shard-3")} (shard 3/3) are shards.`,
    );
    // Refused before the store is opened: none is made where there was none.
    expect(existsSync(join(project.dir, "whole-and-shards.sqlite"))).toBe(false);
  });

  it("refuses (exit 2) to merge runs whose eval configuration or files differ, naming the eval and both hashes", async () => {
    const other = await cli(
      ["run", "--shard", "2/3", "--name", "shard-2-strict", "--store", "a.sqlite", "--quiet"],
      { THRESHOLD: "0.9" },
    );
    expect(other.stderr).toBe("");
    const runs = json<{ runId: string; name: string | null }[]>(
      (await cli(["runs", "--json", "--store", "a.sqlite"])).stdout,
    );
    const id = (name: string) => runs.find((r) => r.name === name)!.runId.slice(0, 8);
    const { run: a } = await show("shard-1", "a.sqlite");
    const { run: b } = await show("shard-2-strict", "a.sqlite");
    const hash = (run: StoredRun) => run.evals.find((e) => e.evalId === "letters")!.configHash;
    expect(hash(a)).not.toBe(hash(b));

    const refused = await cli([
      "merge",
      "shard-1",
      "shard-2-strict",
      "shard-3",
      "--store",
      "a.sqlite",
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toBe(
      `niceeval: cannot merge run ${id("shard-1")} (shard 1/3) with run ${id("shard-2-strict")} (shard 2/3): eval "letters" is configured differently (configuration hash ${hash(a)} in ${id("shard-1")}, ${hash(b)} in ${id("shard-2-strict")}). Merge only runs of the same eval files and configuration (the shards of one \`niceeval run --shard i/n\` on one checkout).\n`,
    );

    // Another eval file: named with both hashes.
    const edited = await makeProject({ "evals/suite.eval.ts": `${suiteEval}\n// edited\n` });
    try {
      gitInit(edited.dir);
      const store = join(project.dir, "a.sqlite");
      const run = await runCli(
        ["run", "--shard", "3/3", "--name", "shard-3-edited", "--store", store, "--quiet"],
        edited.dir,
        cleanEnv,
      );
      expect(run.stderr).toBe("");
      const files = await cli(["merge", "shard-1", "shard-3-edited", "--store", "a.sqlite"]);
      expect(files.code).toBe(2);
      expect(files.stderr).toMatch(
        /cannot merge run [0-9a-f]{8} \(shard 1\/3\) with run [0-9a-f]{8} \(shard 3\/3\): eval file evals\/suite\.eval\.ts differs \(hash [0-9a-f]{16} in [0-9a-f]{8}, [0-9a-f]{16} in [0-9a-f]{8}\)/,
      );
    } finally {
      await edited.cleanup();
    }
    // Shards of different counts overlap: refused too.
    await cli(["run", "--shard", "1/2", "--name", "half-1", "--store", "a.sqlite", "--quiet"]);
    const counts = await cli(["merge", "shard-1", "half-1", "--store", "a.sqlite"]);
    expect(counts.code).toBe(2);
    expect(counts.stderr).toContain("they are shards of different counts");
  });

  it("refuses a file that is not a run export, naming the file and the line", async () => {
    const notExport = await cli(["import", "evals/suite.eval.ts", "--store", "c.sqlite"]);
    expect(notExport.code).toBe(2);
    expect(notExport.stderr).toMatch(
      /cannot read the run export .*suite\.eval\.ts: line 1 is not JSON/,
    );
    const missing = await cli(["import", "nope.ndjson", "--store", "c.sqlite"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("cannot read");
    expect(missing.stderr).toContain("ENOENT");
    const noRun = await cli(["merge", "nothing-here", "--store", "a.sqlite"]);
    expect(noRun.code).toBe(2);
    expect(noRun.stderr).toContain('no run "nothing-here"');
    const noFile = await cli(["merge", "gone/shard-9.ndjson", "--store", "a.sqlite"]);
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toMatch(/merge: .*gone\/shard-9\.ndjson is not a file \(not found\)/);
    // A merge refused for its files creates no store where none was.
    const into = ["--store", "never/made.sqlite"];
    const broken = await cli(["merge", "evals/suite.eval.ts", "shard-1", ...into]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/cannot read the run export .*suite\.eval\.ts/);
    expect((await cli(["merge", "shard-1", "gone/shard-9.ndjson", ...into])).code).toBe(2);
    expect(existsSync(join(project.dir, "never"))).toBe(false);
  });

  it("keeps a run the store holds finished when an export of it cut short is imported", async () => {
    await cli(["export", "shard-2", "--ndjson", "again.ndjson", "--store", "a.sqlite"]);
    const lines = (await readFile(join(project.dir, "again.ndjson"), "utf8")).trim().split("\n");
    await writeFile(join(project.dir, "cut.ndjson"), `${lines.slice(0, 4).join("\n")}\n`);
    expect((await cli(["import", "again.ndjson", "--store", "cut.sqlite"])).code).toBe(0);
    const cut = await cli(["import", "cut.ndjson", "--store", "cut.sqlite"]);
    expect(cut.code).toBe(1);
    expect(cut.stderr).toContain("the stored run stays finished, with its");
    expect(cut.stderr).toContain("(it ends before its run.end line: cut short?)");
    const [run] = json<StoredRun[]>(
      (await cli(["runs", "--json", "--store", "cut.sqlite"])).stdout,
    );
    expect(run?.status).toBe("finished");
  });

  it("stores no run from an export broken halfway, by import or by merge", async () => {
    await cli(["export", "shard-2", "--ndjson", "whole.ndjson", "--store", "a.sqlite"]);
    const lines = (await readFile(join(project.dir, "whole.ndjson"), "utf8")).split("\n");
    lines.splice(5, 0, "garbage{{{");
    await writeFile(join(project.dir, "broken.ndjson"), lines.join("\n"));
    for (const command of [
      ["import", "broken.ndjson", "--store", "broken-import.sqlite"],
      ["merge", "whole.ndjson", "broken.ndjson", "--name", "m", "--store", "broken-merge.sqlite"],
    ]) {
      const failed = await cli(command);
      expect(failed.code).toBe(2);
      expect(failed.stderr).toMatch(
        /cannot read the run export .*broken\.ndjson: line 6 is not JSON/,
      );
      const runs = await cli(["runs", "--json", "--store", command.at(-1)!]);
      expect(json<unknown[]>(runs.stdout)).toEqual([]);
    }
  });

  it("refuses a manifest line or an end line a store would refuse, naming the line, before storing anything", async () => {
    const lines = (await readFile(join(project.dir, "whole.ndjson"), "utf8")).split("\n");
    const head = JSON.parse(lines[0]!) as { manifest: Record<string, unknown> };
    const endAt = lines.findIndex((l) => l.startsWith('{"type":"run.end"'));
    expect(endAt).toBeGreaterThan(1);
    const noCommand = [...lines];
    noCommand[0] = JSON.stringify({ ...head, manifest: { ...head.manifest, command: undefined } });
    const badEnd = [...lines];
    badEnd[endAt] = JSON.stringify({ ...JSON.parse(lines[endAt]!), status: "done" });
    for (const [edited, message] of [
      [noCommand, "line 1 has manifest.command must be an array of strings"],
      [
        badEnd,
        `line ${endAt + 1} has status "done"; a run ends running, finished, interrupted or crashed`,
      ],
    ] as const) {
      await writeFile(join(project.dir, "refused.ndjson"), edited.join("\n"));
      const failed = await cli(["import", "refused.ndjson", "--store", "refused.sqlite"]);
      expect(failed.code, message).toBe(2);
      expect(failed.stderr).toContain(`refused.ndjson: ${message}`);
      expect(failed.stderr).toContain("Nothing of this file is stored");
      const runs = await cli(["runs", "--json", "--store", "refused.sqlite"]);
      expect(json<unknown[]>(runs.stdout)).toEqual([]);
    }
  });

  it("takes an export cut in the middle of a line as cut short there", async () => {
    const text = await readFile(join(project.dir, "whole.ndjson"), "utf8");
    const lines = text.split("\n").filter(Boolean);
    // Two records whole, the third cut halfway, no run.end.
    const cut = `${lines.slice(0, 3).join("\n")}\n${lines[3]!.slice(0, lines[3]!.length >> 1)}`;
    await writeFile(join(project.dir, "midline.ndjson"), cut);
    const imported = await cli(["import", "midline.ndjson", "--store", "midline.sqlite"]);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain(
      "ends before its run.end line (cut short?): its 2 attempts were imported and the run is marked interrupted",
    );
    const runs = json<{ status: string; attempts: number }[]>(
      (await cli(["runs", "--json", "--store", "midline.sqlite"])).stdout,
    );
    expect(runs.map((r) => [r.status, r.attempts])).toEqual([["interrupted", 2]]);
    // One attempt whole is said in the singular.
    const one = `${lines.slice(0, 2).join("\n")}\n${lines[2]!.slice(0, lines[2]!.length >> 1)}`;
    await writeFile(join(project.dir, "midline-one.ndjson"), one);
    const single = await cli(["import", "midline-one.ndjson", "--store", "midline-one.sqlite"]);
    expect(single.stderr).toContain(
      "ends before its run.end line (cut short?): its 1 attempt was imported and the run is marked interrupted",
    );
    // After the run.end line, a line that does not parse is still refused.
    await writeFile(join(project.dir, "tail.ndjson"), `${text}{"type":"rec`);
    const tail = await cli(["import", "tail.ndjson", "--store", "tail.sqlite"]);
    expect(tail.code).toBe(2);
    expect(tail.stderr).toMatch(/tail\.ndjson: line \d+ comes after the run\.end line/);
  });

  it("refuses a record that is JSON but not an attempt record, naming the line and the field", async () => {
    const lines = (await readFile(join(project.dir, "whole.ndjson"), "utf8")).split("\n");
    for (const [change, message] of [
      [(r: Record<string, unknown>) => ({ ...r, judgments: null }), "has no judgments list"],
      [(r: Record<string, unknown>) => ({ ...r, score: "bogus" }), "has no valid score"],
      [(r: Record<string, unknown>) => ({ ...r, verdict: "great" }), 'has verdict "great"'],
      [
        (r: Record<string, unknown>) => ({ ...r, judgments: [{ label: "x" }] }),
        "has an invalid judgment at index 0",
      ],
      [
        (r: Record<string, unknown>) => ({ ...r, trial: -5 }),
        "has trial -5; a trial is a whole number from 0",
      ],
      [(r: Record<string, unknown>) => ({ ...r, trial: "x" }), 'has trial "x"'],
      [(r: Record<string, unknown>) => ({ ...r, caseId: "" }), "has an empty caseId"],
      [
        (r: Record<string, unknown>) => ({ ...r, error: { where: "x" } }),
        'has error {"where":"x"}; an attempt\'s error is an object with a message (a string)',
      ],
      [
        (r: Record<string, unknown>) => ({
          ...r,
          judgments: [{ ...(r.judgments as Record<string, unknown>[])[0], gate: undefined }],
        }),
        "has an invalid judgment at index 0 (it needs label, source, state, gate, points and earned)",
      ],
      [
        (r: Record<string, unknown>) => ({ ...r, evalId: "ghost" }),
        'is an attempt of eval "ghost", which the manifest line does not list',
      ],
    ] as const) {
      const line = JSON.parse(lines[1]!) as { record: Record<string, unknown> };
      const edited = [...lines];
      edited[1] = JSON.stringify({ ...line, record: change(line.record) });
      await writeFile(join(project.dir, "edited.ndjson"), edited.join("\n"));
      const failed = await cli(["import", "edited.ndjson", "--store", "edited.sqlite"]);
      expect(failed.code, message).toBe(2);
      expect(failed.stderr).toContain(`edited.ndjson: line 2 ${message}`);
      const runs = await cli(["runs", "--json", "--store", "edited.sqlite"]);
      expect(json<unknown[]>(runs.stdout)).toEqual([]);
    }
  });

  it("refuses a record whose numbers the engine could not have written, naming the line, the field and what to do", async () => {
    const lines = (await readFile(join(project.dir, "whole.ndjson"), "utf8")).split("\n");
    // letters runs 1 trial, trio 3; each has two scorers of 1 point.
    const trio = lines.findIndex((l) => l.startsWith('{"type":"record","record":{"evalId":"trio"'));
    expect(trio).toBeGreaterThan(1);
    type Edit = (r: Record<string, unknown>) => Record<string, unknown>;
    const score = (r: Record<string, unknown>) => r.score as Record<string, unknown>;
    const judgment = (r: Record<string, unknown>, over: Record<string, unknown>) => [
      { ...(r.judgments as Record<string, unknown>[])[0], ...over },
    ];
    const cases: [Edit, string, number][] = [
      [
        (r) => ({ ...r, score: { ...score(r), earned: 50 } }),
        "has score.earned 50; a score earns a finite number from 0 to its max (score.max 2)",
        1,
      ],
      [(r) => ({ ...r, score: { ...score(r), earned: -3 } }), "has score.earned -3", 1],
      [(r) => ({ ...r, score: { ...score(r), earned: null } }), "has score.earned null", 1],
      [
        (r) => ({ ...r, score: { ...score(r), earned: 0, max: -1 } }),
        "has score.max -1; a score's max is a finite number from 0",
        1,
      ],
      [
        (r) => ({ ...r, trial: 1 }),
        'has trial 1, but the manifest line gives eval "letters" 1 trial per case (a record\'s trial is 0)',
        1,
      ],
      [
        (r) => ({ ...r, trial: 7 }),
        'has trial 7, but the manifest line gives eval "trio" 3 trials per case (a record\'s trial is 0 to 2)',
        trio,
      ],
      [
        (r) => ({ ...r, elapsedMs: -5 }),
        "has elapsedMs -5; an attempt's time is a finite number of milliseconds from 0",
        1,
      ],
      [
        (r) => ({ ...r, judgments: judgment(r, { earned: 2 }) }),
        "has judgments[0].earned 2; a judgment earns null (no evidence) or a finite number from 0 to its points (1)",
        1,
      ],
      [
        (r) => ({ ...r, judgments: judgment(r, { points: -1 }) }),
        "has judgments[0].points -1; a judgment's points are a finite number from 0",
        1,
      ],
      [
        (r) => ({
          ...r,
          usage: { ...(r.usage as object), judge: { calls: -1, latencyMs: 0 } },
        }),
        "has usage.judge.calls -1; judge usage is counted in finite numbers from 0",
        1,
      ],
    ];
    for (const [change, message, at] of cases) {
      const line = JSON.parse(lines[at]!) as { record: Record<string, unknown> };
      const edited = [...lines];
      edited[at] = JSON.stringify({ ...line, record: change(line.record) });
      await writeFile(join(project.dir, "numbers.ndjson"), edited.join("\n"));
      for (const command of [
        ["import", "numbers.ndjson", "--store", "numbers.sqlite"],
        ["merge", "numbers.ndjson", "--name", "m", "--store", "numbers.sqlite"],
      ]) {
        const failed = await cli(command);
        expect(failed.code, message).toBe(2);
        expect(failed.stderr).toContain(`numbers.ndjson: line ${at + 1} ${message}`);
        expect(failed.stderr).toContain(
          "Nothing of this file is stored: export the run again with `niceeval export <run> --ndjson <file>` rather than editing its lines",
        );
      }
      const runs = await cli(["runs", "--json", "--store", "numbers.sqlite"]);
      expect(json<unknown[]>(runs.stdout)).toEqual([]);
    }
  });
});
