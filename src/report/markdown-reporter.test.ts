import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { EvalSummary } from "../runner/events.js";
import { cell } from "./markdown-cell.js";
import { markdownReporter } from "./markdown-reporter.js";
import {
  brokenAndLeftOut,
  crashingSuite,
  flakySuite,
  mixedSuite,
  record,
  run,
  runSummary,
  tempDir,
} from "./test-support/runs.js";

describe("markdownReporter", () => {
  it("summarises each eval with its pass rate, mean score, their n and intervals, and lists failures", async () => {
    const file = join(tempDir(), "summary.md");
    await run(
      [{ eval: mixedSuite() }],
      [markdownReporter(file, { comparison: () => "### Compared with main\n\nno change" })],
    );
    const md = readFileSync(file, "utf8");
    expect(md).toContain("## niceeval ❌ failed");
    expect(md).toContain("1 eval · 4 cases · 2 passed · 1 failed · 1 errored · 0 skipped");
    expect(md).toContain(
      "| eval | cases | passed | failed | errored | skipped | pass rate (95% CI) | mean score (95% CI) |",
    );
    // 2/4 passed: Wilson 15.0–85.0%; scores 1, 0, 1 (the errored case has none): mean 0.667, n=3.
    expect(md).toMatch(
      /\| qa \| 4 \| 2 \| 1 \| 1 \| 0 \| 50% \(n=4, 15–85%\) \| 0\.667 \(n=3, 0–1\) \|/,
    );
    expect(md).toContain("### Failing cases (2)");
    expect(md).toContain(
      '| qa | wrong \\<\\&\\>" | failed | exact \\<answer\\> (gate · 1 pt): mismatched',
    );
    expect(md).toContain("| qa | boom | errored | target of case");
    expect(md.trimEnd().endsWith("### Compared with main\n\nno change")).toBe(true);
  });

  it("tells the files that failed to load from the evals left out of files that loaded", async () => {
    const file = join(tempDir(), "summary.md");
    await run([{ eval: mixedSuite(), file: "evals/qa.eval.ts" }], [markdownReporter(file)], {
      loadErrors: brokenAndLeftOut,
    });
    const md = readFileSync(file, "utf8");
    expect(md).toContain("**1 file failed to load:**\n\n- evals/broken.eval.ts: SyntaxError\n");
    expect(md).toContain(
      '**1 eval left out:**\n\n- evals/qa.eval.ts: export "second" was left out: it has the eval id "qa" of export "first" of this file\n',
    );
  });

  it("counts attempts, not cases, when a case ran several trials, as the console does", async () => {
    const file = join(tempDir(), "trials.md");
    await run([{ eval: mixedSuite() }], [markdownReporter(file)], { trials: 3 });
    const md = readFileSync(file, "utf8");
    expect(md).toContain("1 eval · 12 attempts · 6 passed");
    expect(md).toContain("| eval | attempts | passed |");
  });

  it("says an interval of trials counts cases, not the attempts n counts, as the console does", async () => {
    const file = join(tempDir(), "trials.md");
    await run([{ eval: mixedSuite() }], [markdownReporter(file)], { trials: 3 });
    const md = readFileSync(file, "utf8");
    // 12 attempts of 4 cases (the errored case's 3 have no score: 9 of 3 cases).
    expect(md).toMatch(/pass rate 50% \(n=12, [\d.]+–[\d.]+% over 4 cases\) ·/);
    expect(md).toMatch(
      /\| qa \| 12 \| 6 \| 3 \| 3 \| 0 \| 50% \(n=12, [\d.]+–[\d.]+% over 4 cases\) \| 0\.667 \(n=9, [\d.]+–[\d.]+ over 3 cases\) \|/,
    );
  });

  it("gives each eval's trial reducers and flaky cases with their trial verdicts, as the console does", async () => {
    const file = join(tempDir(), "flaky.md");
    await run([{ eval: flakySuite("flaky", 4) }], [markdownReporter(file)], { trials: 3 });
    const md = readFileSync(file, "utf8");
    // Trials passed per case: c0 none (i % 5 == 0), c1 all, c2 ✓✓✗ and c3 ✓✗✓ ((i + t) % 4 == 0).
    // pass@1 = (0 + 1 + 2/3 + 2/3) / 4 = 58.3%; pass@3 = 1 − C(3 − c, 3)/C(3, 3): 0, 1, 1, 1 = 75%;
    // pass^3 = C(c, 3)/C(3, 3): 0, 1, 0, 0 = 25%; at-least-3 the same. k = 2: pass@2 = 1 − C(3 − c,
    // 2)/C(3, 2): 0, 1, 1, 1 = 75%; pass^2 = C(c, 2)/C(3, 2): 0, 1, 1/3, 1/3 = 41.7%; at-least-2 75%.
    // (An @ is escaped, so that GitHub does not read a mention.)
    expect(md).toContain("### Trials");
    expect(md).toContain(
      "**flaky**: 4 cases × 3 · pass\\@1 58.3% · pass\\@2 75% · pass\\@3 75% · pass^2 41.7% · pass^3 25% · at-least-2 75% · at-least-3 25% · ",
    );
    expect(md).toMatch(/ · 2 flaky cases\n/);
    expect(md).toContain("- c2 flaky: 2/3 passed (✓✓✗)");
    expect(md).toContain("- c3 flaky: 2/3 passed (✓✗✓)");
  });

  it("shows a mean over partial scores as a lower bound", () => {
    const file = join(tempDir(), "summary.md");
    const reporter = markdownReporter(file);
    const summary: EvalSummary = {
      evalId: "support",
      style: "score",
      cases: 10,
      passed: 9,
      failed: 1,
      errored: 0,
      skipped: 0,
      meanScore: 0.71,
      sdScore: 0.1,
      scoredCases: 10,
      partialCases: 3,
      judge: runSummary().judge,
      elapsedMs: 3,
    };
    reporter.onEvalStart?.({ evalId: "support", style: "score" });
    reporter.onEvalFinished?.(summary);
    reporter.onRunFinished?.(runSummary({ evals: [summary] }));
    const md = readFileSync(file, "utf8");
    // No interval: it would describe the missing points counted as 0.
    expect(md).toMatch(/\| ≥ 0\.71 \(n=10, 3 partial\) \|/);
    expect(md).toContain("≥: a lower bound");
  });

  it("lists the first 50 failing cases and counts the rest", async () => {
    const file = join(tempDir(), "summary.md");
    const suite = crashingSuite("many", 73, "down");
    await run([{ eval: suite }], [markdownReporter(file)]);
    const md = readFileSync(file, "utf8");
    expect(md).toContain("### Failing cases (first 50 of 73)");
    expect(md.match(/^\| many \| c\d+ \| errored \|/gm)).toHaveLength(50);
    expect(md).toContain("…and 23 more");
  });

  it("keeps table cells on one line with markdown and HTML escaped", () => {
    expect(cell("a|b\n<script>*x*</script>")).toBe("a\\|b \\<script\\>\\*x\\*\\</script\\>");
  });

  it("writes once however often the run is finished", () => {
    const file = join(tempDir(), "summary.md");
    const reporter = markdownReporter(file);
    reporter.onCaseFinished?.(record({ verdict: "failed" }));
    reporter.onRunFinished?.(runSummary({ ok: false }));
    const first = readFileSync(file, "utf8");
    reporter.onRunFinished?.(runSummary({ ok: true }));
    expect(readFileSync(file, "utf8")).toBe(first);
  });
});
