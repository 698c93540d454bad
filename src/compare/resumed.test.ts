import { describe, expect, it } from "vitest";
import { compareRuns } from "./compare-runs.js";
import { formatComparison, formatComparisonMarkdown } from "./format.js";
import { changedEvals, resumedMark } from "./resumed.js";
import { evalManifest, storeWith } from "./test-support/memory-store.js";

// A run resumed with --force after an eval changed keeps the configuration hash it started with,
// so nothing but its `resumedWithChanges` says it mixes two versions of that eval: compare said
// nothing of it.

const evals = [
  evalManifest("alpha", { file: "evals/alpha.eval.ts" }),
  evalManifest("beta", { file: "evals/beta.eval.ts" }),
  evalManifest("gamma", { file: "evals/gamma.eval.ts" }),
];
const changes = ["file evals/beta.eval.ts (eval beta)", "eval beta's configuration"];
const specs = ["alpha", "beta", "gamma"].map((evalId) => ({ evalId, caseId: "c" }));

describe("a run resumed with --force after its evals changed", () => {
  it("is a warning of the comparison, naming the run, the evals, what changed and what to do", async () => {
    const store = await storeWith(
      { base: specs, head: specs },
      { base: evals, head: evals },
      {},
      { head: { name: "ch1", resumedWithChanges: changes } },
    );
    const c = await compareRuns(store, "base", "head");
    expect(c.warnings).toEqual([
      {
        kind: "resumed-with-changes",
        evals: ["beta"],
        base: "none",
        head: "file evals/beta.eval.ts (eval beta); eval beta's configuration",
        message:
          'the head run head ("ch1") was resumed with --force after its evals changed (file evals/beta.eval.ts (eval beta); eval beta\'s configuration), so eval "beta" holds attempts of both versions: a difference from the other run, or the lack of one, may come from that change; run the evals again as they are now (a new niceeval run, not --resume --force) and compare that run, to compare like with like',
      },
    ]);
    expect(formatComparison(c)).toContain(`warning: ${c.warnings[0]!.message}`);
    expect(formatComparisonMarkdown(c)).toContain('> ⚠️ the head run head ("ch1") was resumed');
  });

  it("is warned of on the base side too, and once when base and head are that run", async () => {
    const store = await storeWith(
      { base: specs, head: specs },
      { base: evals, head: evals },
      {},
      { base: { resumedWithChanges: ["eval gamma's configuration (judge models a → b)"] } },
    );
    const c = await compareRuns(store, "base", "head");
    expect(c.warnings.map((w) => [w.kind, w.evals, w.base, w.head])).toEqual([
      [
        "resumed-with-changes",
        ["gamma"],
        "eval gamma's configuration (judge models a → b)",
        "none",
      ],
    ]);
    expect(c.warnings[0]!.message).toMatch(/^the base run base was resumed with --force/);
    const same = await compareRuns(store, "base", "base");
    const resumed = same.warnings.filter((w) => w.kind === "resumed-with-changes");
    expect(resumed.map((w) => w.message.slice(0, 34))).toEqual([
      "the base and head run base was res",
    ]);
  });

  it("names the evals from the run's own ids and files, never guessing one", () => {
    const run = {
      evals: [
        ...evals,
        evalManifest("beta-2", { file: "evals/more.eval.ts" }),
        evalManifest("delta", { file: "evals/delta.eval.ts" }),
      ],
      resumedWithChanges: [
        "file evals/more.eval.ts (eval beta-2)",
        "eval delta is new (evals/delta.eval.ts)",
        "eval alpha is no longer found",
      ],
    };
    // "beta" is not "beta-2"; the file names the eval it holds.
    expect(changedEvals(run)).toEqual(["alpha", "beta-2", "delta"]);
    expect(resumedMark(run)).toEqual(["resumed with changes (3 evals: alpha, beta-2, delta)"]);
    expect(resumedMark({ evals, resumedWithChanges: ["something else"] })).toEqual([
      "resumed with changes",
    ]);
    expect(resumedMark({ evals })).toEqual([]);
  });
});
