import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { type AttemptRecord, emptyJudgeUsage, type Judgment } from "../eval/record.js";
import { EvalAccumulator } from "../runner/stats.js";
import { consoleReporter } from "./console-reporter.js";
import { formatMeanScore, formatPassRate } from "./figures.js";
import { jsonReporter } from "./json-reporter.js";
import {
  flakySuite,
  judgment,
  mixedSuite,
  record,
  run,
  runSummary,
  tempDir,
  ungatedUsageEval,
} from "./test-support/runs.js";

const gate = (label: string, matched: boolean, reason: string, more: Partial<Judgment> = {}) =>
  judgment({
    label,
    state: matched ? "matched" : "mismatched",
    points: 1,
    earned: matched ? 1 : 0,
    value: matched ? 1 : 0,
    reason,
    ...more,
  });

const attempt = (caseId: string, judgments: Judgment[], more: Partial<AttemptRecord> = {}) => {
  const earned = judgments.filter((j) => j.state === "matched").length;
  return record({
    caseId,
    verdict: earned === judgments.length ? "passed" : "failed",
    score: { state: "complete", earned, max: judgments.length, reasons: [] },
    judgments,
    elapsedMs: 0.5,
    ...more,
  });
};

/** Cases alike and not: lines reused, a verdict that comes back, text that is not ASCII. */
const records = [
  attempt("case-1", [gate("exact", true, "equal"), gate("latency", true, "1ms within 10ms")]),
  attempt("case-2", [gate("exact", true, "equal"), gate("latency", true, "2ms within 10ms")], {
    elapsedMs: 12.4,
  }),
  attempt(
    "case-3",
    [gate("exact", false, "différent\nline two"), gate("latency", true, "2ms within 10ms")],
    { elapsedMs: 1500, output: { text: "x".repeat(100) }, expected: "answer" },
  ),
  attempt("cas-é-😀", [gate("exact", true, "equal"), gate("latency", true, "2ms within 10ms")], {
    elapsedMs: 0,
  }),
  record({
    caseId: "case-5",
    verdict: "errored",
    score: { state: "partial", earned: 1, max: 3, reasons: [] },
    error: { where: "target", message: "boom" },
    judgments: [
      judgment({
        label: "judge",
        state: "unavailable",
        points: 2,
        earned: null,
        value: null,
        reason: "no provider",
      }),
      gate("exact", true, "equal", {
        judge: { ...emptyJudgeUsage(), cachedCalls: 1 },
      }),
    ],
    elapsedMs: 0.5,
  }),
  attempt("case-6", [gate("exact", true, "equal"), gate("latency", true, "2ms within 10ms")]),
];

function report(color: boolean): string {
  const file = join(tempDir(), "report.txt");
  const fd = openSync(file, "w");
  try {
    const reporter = consoleReporter({ fd, color });
    reporter.onEvalStart?.({ evalId: "e", style: "suite", file: "e.eval.ts" });
    for (const r of records) reporter.onCaseFinished?.(r);
    reporter.onRunFinished?.(
      runSummary({
        elapsedMs: 5,
        ok: false,
        totals: { evals: 1, cases: 6, passed: 4, failed: 1, errored: 1, skipped: 0 },
      }),
    );
  } finally {
    closeSync(fd);
  }
  return readFileSync(file, "utf8");
}

describe("consoleReporter", () => {
  it("prints each case and judgment line in full, whether its parts were seen before or not", () => {
    expect(report(false)).toBe(
      [
        "",
        "e suite · e.eval.ts",
        "  ✓ case-1 passed · 2/2 complete · 0.5 ms",
        "      ✓ exact (gate · 1 pt) 1/1 — equal",
        "      ✓ latency (gate · 1 pt) 1/1 — 1ms within 10ms",
        "  ✓ case-2 passed · 2/2 complete · 12 ms",
        "      ✓ exact (gate · 1 pt) 1/1 — equal",
        "      ✓ latency (gate · 1 pt) 1/1 — 2ms within 10ms",
        "  ✗ case-3 failed · 1/2 complete · 1.5 s",
        "      ✗ exact (gate · 1 pt) 0/1 — différent ⏎ line two",
        "      ✓ latency (gate · 1 pt) 1/1 — 2ms within 10ms",
        // A failed case shows what it returned and what was expected, cut short.
        `      output:   {"text":"${"x".repeat(51)}…`,
        '      expected: "answer"',
        "  ✓ cas-é-😀 passed · 2/2 complete · 0 ms",
        "      ✓ exact (gate · 1 pt) 1/1 — equal",
        "      ✓ latency (gate · 1 pt) 1/1 — 2ms within 10ms",
        "  ! case-5 errored · ≥ 1/3 partial · 0.5 ms",
        "      ! target: boom",
        "      ? judge (gate · 2 pts) —/2 — no provider",
        "      ✓ exact (gate · 1 pt) 1/1 [cached] — equal",
        "      partial: 2 pts without evidence stay in max (judge)",
        "  ✓ case-6 passed · 2/2 complete · 0.5 ms",
        "      ✓ exact (gate · 1 pt) 1/1 — equal",
        "      ✓ latency (gate · 1 pt) 1/1 — 2ms within 10ms",
        "",
        "Summary",
        "  1 eval · 6 cases · 4 passed (66.7% of 6, 95% CI 30–90.3%) · 1 failed · 1 errored · 0 skipped",
        "  judge: no judge calls",
        "  time: 5 ms",
        "FAIL",
        "",
      ].join("\n"),
    );
  });

  it("counts the progress line's cases in words: 1 case, 2 cases", () => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    const dir = tempDir();
    const fd = openSync(join(dir, "out.txt"), "w");
    try {
      const reporter = consoleReporter({ fd, progress: true });
      reporter.onProgress?.(1);
      // At most one line per 100 ms: the next one shows once that time has passed.
      vi.useFakeTimers({ now: Date.now() + 1000, toFake: ["Date"] });
      reporter.onProgress?.(2);
    } finally {
      vi.useRealTimers();
      spy.mockRestore();
      closeSync(fd);
    }
    // Each line first returns the cursor and clears the line.
    const clear = "\r\u001b[2K";
    const lines = written.map((text) => (text.startsWith(clear) ? text.slice(clear.length) : text));
    expect(lines).toEqual(["running… 1 case done", "running… 2 cases done"]);
  });

  it("counts attempts on the progress line once an eval runs trials, as the summary does", () => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    const fd = openSync(join(tempDir(), "out.txt"), "w");
    try {
      const reporter = consoleReporter({ fd, progress: true });
      reporter.onRunStart?.({ runId: "r", evals: 1, files: 1, concurrency: 8, trials: 3 });
      reporter.onEvalStart?.({ evalId: "e", style: "suite", trials: 3 });
      reporter.onProgress?.(3);
    } finally {
      spy.mockRestore();
      closeSync(fd);
    }
    expect(written.at(-1)).toContain("running… 3 attempts done");
  });

  it("says on an attempt errored by a gate without evidence which gate it was", async () => {
    const file = join(tempDir(), "why.txt");
    const fd = openSync(file, "w");
    try {
      await run([{ eval: ungatedUsageEval() }], [consoleReporter({ fd, color: false })]);
    } finally {
      closeSync(fd);
    }
    const text = readFileSync(file, "utf8").replace(/\d+(\.\d+)? ms/g, "N ms");
    expect(text).toContain(
      [
        "  ! default errored · 10/10 complete · N ms",
        '      ! errored: gate "Usage limit" has no evidence',
        "      ✓ Quality (10 pts) 10/10 — ratio 1 × weight 10 = 10 points",
        "      ? Usage limit (gate) unavailable — usage-unreported: the adapter never reported totalTokens (ctx.reportUsage)",
      ].join("\n"),
    );
  });

  it("with --failures-only prints the failed and errored cases, not the passed or skipped ones", async () => {
    const file = join(tempDir(), "failures.txt");
    const fd = openSync(file, "w");
    const reporter = consoleReporter({ fd, color: false, verbose: false });
    reporter.onEvalStart?.({ evalId: "e", style: "score" });
    for (const r of records) reporter.onCaseFinished?.(r);
    reporter.onCaseFinished?.(
      record({ caseId: "case-7", verdict: "skipped", skipReason: "not today", judgments: [] }),
    );
    await reporter.onRunFinished?.(runSummary({ ok: false }));
    closeSync(fd);
    const text = readFileSync(file, "utf8");
    expect(text).toContain("case-3 failed");
    expect(text).toContain("case-5 errored");
    expect(text).not.toMatch(/case-[1267]\b|cas-é|not today/);
  });

  it("reports each run a reused reporter is given once, and each as its own", async () => {
    const file = join(tempDir(), "two-runs.txt");
    const fd = openSync(file, "w");
    const reporter = consoleReporter({ fd, color: false, verbose: false });
    try {
      // `run` finishes its reporters again after the engine did, as a user's code may.
      await run([{ eval: flakySuite("first", 4) }], [reporter], { trials: 2 });
      await run([{ eval: mixedSuite("second") }], [reporter]);
    } finally {
      closeSync(fd);
    }
    const text = readFileSync(file, "utf8");
    const runs = text.split(/^niceeval run /m).slice(1);
    expect(runs).toHaveLength(2);
    for (const one of runs) expect(one.match(/^Summary$/gm)).toHaveLength(1);
    expect(runs[0]).toMatch(/^ {2}1 eval · 8 attempts · /m);
    // The second run ran no trials: its summary counts cases, not the first run's attempts.
    expect(runs[1]).toMatch(/^ {2}1 eval · 4 cases · /m);
  });

  it("shows the bidirectional controls of a file and an eval id its summary names, reordering nothing", async () => {
    const file = join(tempDir(), "bidi.txt");
    const fd = openSync(file, "w");
    const reporter = consoleReporter({ fd, color: false });
    reporter.onRunStart?.({ runId: "r", evals: 1, files: 1, concurrency: 1 });
    await reporter.onRunFinished?.(
      runSummary({
        ok: false,
        loadErrors: [{ file: "evals/\u202etxt.exe.eval.ts", message: "boom" }],
        gates: ["--min-score: eval qa\u2066x\u2069 mean score 0.2 < 0.5"],
      }),
    );
    closeSync(fd);
    const text = readFileSync(file, "utf8");
    expect(text).not.toMatch(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
    expect(text).toContain("evals/⟨U+202E⟩txt.exe.eval.ts: boom");
    expect(text).toContain("eval qa⟨U+2066⟩x⟨U+2069⟩ mean score");
  });

  it("with trials, prints the intervals the JSON report gives, over cases", async () => {
    const dir = tempDir();
    const fd = openSync(join(dir, "console.txt"), "w");
    try {
      await run(
        [{ eval: flakySuite() }],
        [consoleReporter({ fd, verbose: false }), jsonReporter(join(dir, "run.json"))],
        { trials: 3 },
      );
    } finally {
      closeSync(fd);
    }
    const text = readFileSync(join(dir, "console.txt"), "utf8");
    const { summary } = JSON.parse(readFileSync(join(dir, "run.json"), "utf8"));
    const { figures, trials } = summary.evals[0];
    const meanScore = formatMeanScore(figures.meanScore);
    const passRate = formatPassRate(summary.totals.figures.passRate);
    expect(meanScore).toMatch(/95% CI .* \(n=120 over 40 cases\)$/);
    expect(passRate).toMatch(/^60% of 120, 95% CI .* over 40 cases$/);
    expect(text).toContain(
      `120 attempts: 72 passed, 48 failed, 0 errored, 0 skipped · mean score ${meanScore}`,
    );
    expect(text).toContain(`· 72 passed (${passRate}) ·`);
    // Those intervals are pass@1's and the per-case mean score's, which the JSON also holds.
    const low = (x: number) => x.toFixed(6);
    expect(low(figures.passRate.interval.low)).toBe(low(trials.byK[0].passAtK.interval.low));
    expect(low(figures.meanScore.interval.low)).toBe(low(trials.score.mean.interval.low));
  });

  it("says how many trials were skipped, so the trials line agrees with the header", async () => {
    const file = join(tempDir(), "trials.txt");
    const fd = openSync(file, "w");
    const reporter = consoleReporter({ fd, color: false });
    reporter.onEvalStart?.({ evalId: "tr", style: "score", trials: 3 });
    const fold = new EvalAccumulator("tr", "score", 3);
    for (const [trial, verdict, earned] of [
      [0, "passed", 0],
      [1, "passed", 10],
      [2, "skipped", 10],
    ] as const) {
      const made = record({
        evalId: "tr",
        caseId: "default",
        trial,
        verdict,
        score: {
          state: verdict === "skipped" ? "unavailable" : "complete",
          earned,
          max: 10,
          reasons: [],
        },
      });
      reporter.onCaseFinished?.(made);
      fold.add(made);
    }
    reporter.onEvalFinished?.(fold.finish(1));
    await reporter.onRunFinished?.(runSummary());
    closeSync(fd);
    const text = readFileSync(file, "utf8");
    expect(text).toContain("  - default [trial 3] skipped · unavailable (max 10) · 12 ms\n");
    expect(text).toContain(
      "  3 attempts: 2 passed, 0 failed, 0 errored, 1 skipped · mean score 0.5 ± 0.707 sd (n=2) · 1 ms\n",
    );
    expect(text).toContain("  trials: 1 case × 2 judged, 1 skipped · pass@1 100% ·");
  });

  it("gives an eval whose every trial was skipped a trials line without empty reducers", async () => {
    const file = join(tempDir(), "all-skipped.txt");
    const fd = openSync(file, "w");
    const reporter = consoleReporter({ fd, color: false });
    reporter.onEvalStart?.({ evalId: "later", style: "score", trials: 3 });
    const fold = new EvalAccumulator("later", "score", 3);
    for (const trial of [0, 1, 2]) {
      const made = record({
        evalId: "later",
        caseId: "default",
        trial,
        verdict: "skipped",
        score: { state: "unavailable", earned: 0, max: 0, reasons: [] },
      });
      reporter.onCaseFinished?.(made);
      fold.add(made);
    }
    reporter.onEvalFinished?.(fold.finish(1));
    await reporter.onRunFinished?.(runSummary());
    closeSync(fd);
    const text = readFileSync(file, "utf8");
    expect(text).toContain("  trials: 0 cases × 0 judged, 3 skipped · no flaky case\n");
  });

  it("says how many trials the stop cut off, and leaves them out of pass@k", async () => {
    const file = join(tempDir(), "cut.txt");
    const fd = openSync(file, "w");
    const reporter = consoleReporter({ fd, color: false });
    reporter.onEvalStart?.({ evalId: "tr", style: "suite", trials: 3 });
    const fold = new EvalAccumulator("tr", "suite", 3);
    for (const trial of [0, 1, 2]) {
      const made = record({ evalId: "tr", caseId: "default", trial });
      if (trial === 2) {
        made.verdict = "errored";
        made.score = { state: "unavailable", earned: 0, max: 1, reasons: [] };
        made.error = { message: "the run was stopped", where: "target", interrupted: true };
      }
      reporter.onCaseFinished?.(made);
      fold.add(made);
    }
    reporter.onEvalFinished?.(fold.finish(1));
    await reporter.onRunFinished?.(runSummary());
    closeSync(fd);
    const text = readFileSync(file, "utf8");
    // Not flaky, and pass@1 100%: the third trial was not judged.
    expect(text).toContain("  trials: 1 case × 2 judged, 1 cut off by the stop · pass@1 100% ·");
    expect(text).toContain("· no flaky case");
  });

  it("says what unavailable judgments did to their scores: partial, unavailable, or nothing", async () => {
    const said = async (scores: { partial: number; unavailable: number; complete: number }) => {
      const file = join(tempDir(), "unavailable.txt");
      const fd = openSync(file, "w");
      const reporter = consoleReporter({ fd, color: false });
      const attempts = scores.partial + scores.unavailable + scores.complete;
      const reasons = [{ reason: "usage-unreported", count: attempts, where: [] }];
      await reporter.onRunFinished?.(
        runSummary({ unavailable: { judgments: attempts, attempts, scores, reasons } }),
      );
      closeSync(fd);
      return readFileSync(file, "utf8")
        .split("\n")
        .find((line) => line.includes("unavailable in"));
    };
    expect(await said({ partial: 2, unavailable: 0, complete: 0 })).toBe(
      "  ! 2 judgments unavailable in 2 attempts: their scores are partial, not zero (--strict fails the run on this)",
    );
    // A check without a gate or weight carries no points: the score is complete, not partial.
    expect(await said({ partial: 0, unavailable: 0, complete: 1 })).toBe(
      "  ! 1 judgment unavailable in 1 attempt: they carried no points, so no score is lowered (--strict fails the run on this)",
    );
    expect(await said({ partial: 1, unavailable: 1, complete: 1 })).toBe(
      "  ! 3 judgments unavailable in 3 attempts: their scores: 1 partial, 1 unavailable, 1 complete (no points rode on them); none is a zero (--strict fails the run on this)",
    );
  });

  it("says where each unavailable reason hit: eval, case, trial and scorer or check, a few of them", async () => {
    const file = join(tempDir(), "where.txt");
    const fd = openSync(file, "w");
    const reporter = consoleReporter({ fd, color: false });
    const why = 'judge "openai/gpt-5" unavailable: the judge\'s answer was unusable twice';
    const reasons = [
      {
        reason: why,
        count: 5,
        where: [
          { evalId: "judged", caseId: "c1", judgment: "helpful", source: "eval.llm-judge" },
          { evalId: "judged", caseId: "c2", judgment: "expectations", source: "scorer" },
          {
            evalId: "reply-quality",
            caseId: "default",
            trial: 1,
            judgment: "Refund stated",
            source: "t.closeQA",
          },
        ],
      },
    ];
    const scores = { partial: 3, unavailable: 0, complete: 0 };
    await reporter.onRunFinished?.(
      runSummary({ unavailable: { judgments: 5, attempts: 3, scores, reasons } }),
    );
    closeSync(fd);
    expect(readFileSync(file, "utf8")).toContain(
      `    5 × ${why}\n        in eval judged, case c1, scorer "helpful"; eval judged, case c2, scorer "expectations"; eval reply-quality, case default [trial 2], t.closeQA "Refund stated" and 2 more\n`,
    );
  });

  it("says the points without evidence that stay in max, the verb agreeing with their number", () => {
    const lines = (points: number) => {
      const file = join(tempDir(), "missing.txt");
      const fd = openSync(file, "w");
      const reporter = consoleReporter({ fd, color: false });
      reporter.onEvalStart?.({ evalId: "e", style: "suite", file: "e.eval.ts" });
      reporter.onCaseFinished?.(
        record({
          caseId: "c",
          verdict: "errored",
          score: { state: "unavailable", earned: 0, max: points, reasons: [] },
          judgments: [
            judgment({ label: "judge", state: "errored", points, earned: null, reason: "down" }),
          ],
        }),
      );
      // Lines are buffered until the run ends.
      reporter.onRunFinished?.(runSummary({}));
      closeSync(fd);
      return readFileSync(file, "utf8").split("\n");
    };
    expect(lines(1)).toContain("      unavailable: 1 pt without evidence stays in max (judge)");
    expect(lines(2)).toContain("      unavailable: 2 pts without evidence stay in max (judge)");
  });

  it("ends a run a filter selected nothing of with NO CASE RAN, unless something else failed it", async () => {
    const last = async (over: Partial<Parameters<typeof runSummary>[0]>) => {
      const file = join(tempDir(), "no-case.txt");
      const fd = openSync(file, "w");
      await consoleReporter({ fd, color: false }).onRunFinished?.(
        runSummary({
          ok: false,
          gates: ['--filter "x" selected no case'],
          gateNames: ["--filter: selected no case"],
          ...over,
        }),
      );
      closeSync(fd);
      return readFileSync(file, "utf8").trimEnd().split("\n").at(-1);
    };
    expect(await last({})).toBe("NO CASE RAN");
    const broken = { file: "evals/broken.eval.js", message: "boom at load" };
    expect(await last({ loadErrors: [broken] })).toBe("FAIL");
  });

  it("keeps its colours around the parts it reuses", () => {
    const lines = report(true).split("\n");
    expect(lines[2]).toBe(
      "  \u001b[32m✓\u001b[39m case-1 \u001b[2mpassed\u001b[22m · 2/2 complete \u001b[2m· 0.5 ms\u001b[22m",
    );
    expect(lines[9]).toBe(
      "      \u001b[31m✗\u001b[39m exact \u001b[2m(gate · 1 pt)\u001b[22m 0/1 \u001b[2m—\u001b[22m différent ⏎ line two",
    );
    expect(lines[19]).toBe(
      "      \u001b[32m✓\u001b[39m exact \u001b[2m(gate · 1 pt)\u001b[22m 1/1\u001b[2m [cached]\u001b[22m \u001b[2m—\u001b[22m equal",
    );
    expect(lines[23]).toBe(
      "      \u001b[32m✓\u001b[39m latency \u001b[2m(gate · 1 pt)\u001b[22m 1/1 \u001b[2m—\u001b[22m 2ms within 10ms",
    );
  });
});
