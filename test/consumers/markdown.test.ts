// The Markdown summary and comparison read by a real CommonMark + GFM parser (micromark, as
// GitHub's step summary and pull-request comments read them): tables keep their columns, ids
// and reasons read back as the text they are, and nothing a case holds turns into HTML.
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareRuns } from "../../src/compare/compare-runs.js";
import { formatComparisonMarkdown } from "../../src/compare/format.js";
import { defineSuite } from "../../src/index.js";
import { markdownReporter } from "../../src/report/markdown-reporter.js";
import { run } from "../../src/report/test-support/runs.js";
import { createScorer } from "../../src/scorers/index.js";
import { decode, REPORT_TAGS, render, tables, tagsOf } from "./gfm.js";
import {
  BIDI,
  HOSTILE_BIDI_SHOWN,
  HOSTILE_EVAL_ID,
  HOSTILE_IDS,
  HOSTILE_RUNS,
  HOSTILE_SCORER,
  hostileStore,
  hostileSuite,
  THROWN_ID,
  UNICODE_ID_SHOWN,
} from "./hostile.js";

describe("the Markdown reports, read by micromark with GFM", () => {
  let markdown: string;
  let dir: string;
  beforeAll(async () => {
    const hostile = await hostileStore();
    const comparison = await compareRuns(
      hostile.store,
      HOSTILE_RUNS.base.runId,
      HOSTILE_RUNS.head.runId,
    );
    await hostile.cleanup();
    dir = await mkdtemp(join(tmpdir(), "niceeval-markdown-"));
    const file = join(dir, "summary.md");
    await run(
      [{ eval: hostileSuite(true), file: "evals/a | b.eval.ts" }],
      [markdownReporter(file, { comparison: () => formatComparisonMarkdown(comparison) })],
    );
    markdown = readFileSync(file, "utf8");
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("makes no HTML of a case's text", () => {
    const html = render(markdown);
    const made = tagsOf(html).filter((tag) => !REPORT_TAGS.has(tag));
    expect(made).toEqual([]);
    expect(html).toContain("&lt;script&gt;window.__hostile=1&lt;/script&gt;");
  });

  it("keeps every table's columns, and names each eval and case as it is", () => {
    const found = tables(render(markdown));
    expect(found.length).toBeGreaterThanOrEqual(3);
    for (const table of found) {
      const width = table[0]!.length;
      for (const row of table) expect(row).toHaveLength(width);
    }
    const [evals, failing] = found;
    expect(evals![1]![0]).toBe(HOSTILE_EVAL_ID);
    expect(failing![0]).toEqual(["eval", "case", "verdict", "why"]);
    const cases = failing!.slice(1).map((row) => row[1]);
    expect(cases).toContain(HOSTILE_IDS.punctuation);
    expect(cases).toContain(THROWN_ID);
    const thrown = failing!.find((row) => row[1] === THROWN_ID)!;
    expect(thrown[0]).toBe(HOSTILE_EVAL_ID);
    expect(thrown[2]).toBe("errored");
    expect(thrown[3]).toContain("first line | with a pipe");
    expect(thrown[3]).toContain("<script>window.__hostile=1</script> <!-- x ]]> &amp; 50%");
  });

  it("shows a case's bidirectional controls as symbols, which reorder nothing", () => {
    expect(markdown).not.toMatch(BIDI);
    const failing = tables(render(markdown))[1]!;
    expect(failing.map((row) => row[1])).toContain(UNICODE_ID_SHOWN);
    expect(decode(render(markdown))).toContain(HOSTILE_BIDI_SHOWN);
  });

  it("names a case whose id is only whitespace", () => {
    const failing = tables(render(markdown))[1]!;
    expect(failing.map((row) => row[1])).toContain(JSON.stringify(HOSTILE_IDS.blank));
  });

  it("lists the comparison's changed cases with their eval and case as they are", () => {
    const html = render(markdown);
    const items = [...html.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((m) => m[1]!);
    const named = items.map((item) => item.match(/^<strong>([\s\S]*?)<\/strong>/)?.[1]);
    expect(named.map((name) => name && decode(name))).toEqual(
      expect.arrayContaining([
        `${HOSTILE_EVAL_ID}/${HOSTILE_IDS.punctuation}`,
        `${HOSTILE_EVAL_ID}/${JSON.stringify(HOSTILE_IDS.blank)}`,
        `${HOSTILE_EVAL_ID}/${THROWN_ID}`,
        `${HOSTILE_EVAL_ID}/${UNICODE_ID_SHOWN}`,
      ]),
    );
    // Each changed case's judgments, their labels and reasons as text.
    const text = decode(html);
    expect(text).toContain(`gate ${HOSTILE_SCORER} (scorer): matched`);
    expect(text).toContain("threw: a | b `c` <script>window.__hostile=1</script> <!-- x ]]> &amp;");
  });
});

describe("the Markdown reports of an eval whose id starts and ends with whitespace", () => {
  const spaced = "  qa spaced ";
  let markdown: string;
  let comparison: string;
  let dir: string;
  beforeAll(async () => {
    const hostile = await hostileStore(spaced);
    comparison = formatComparisonMarkdown(
      await compareRuns(hostile.store, HOSTILE_RUNS.base.runId, HOSTILE_RUNS.head.runId),
    );
    await hostile.cleanup();
    dir = await mkdtemp(join(tmpdir(), "niceeval-markdown-"));
    const file = join(dir, "summary.md");
    await run([{ eval: hostileSuite(true, spaced) }], [markdownReporter(file)]);
    markdown = readFileSync(file, "utf8");
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("names it quoted in the summary's tables, as it names such a case", () => {
    const [evals, failing] = tables(render(markdown));
    expect(evals![1]![0]).toBe(JSON.stringify(spaced));
    for (const row of failing!.slice(1)) expect(row[0]).toBe(JSON.stringify(spaced));
  });

  it("names it quoted in the comparison's table", () => {
    const [table] = tables(render(comparison));
    expect(table![1]![0]).toBe(JSON.stringify(spaced));
  });
});

describe("the Markdown summary's flaky cases, read by micromark with GFM", () => {
  it("names each flaky case as it is, and its text makes no HTML", async () => {
    const dir = await mkdtemp(join(tmpdir(), "niceeval-markdown-flaky-"));
    try {
      const file = join(dir, "summary.md");
      const ids = [HOSTILE_IDS.punctuation, HOSTILE_IDS.unicode];
      const flaky = defineSuite<number, number>({
        id: HOSTILE_EVAL_ID,
        cases: ids.map((id, i) => ({ id, input: i })),
        // Fails its first trial, passes its second: every case is flaky.
        target: (i, { trial }) => (trial === 0 ? -1 : i),
        scorers: [
          createScorer<number, number>({
            name: "positive",
            score: ({ output }) => ({ score: output >= 0 ? 1 : 0 }),
          }),
        ],
      });
      await run([{ eval: flaky }], [markdownReporter(file)], { trials: 2 });
      const html = render(readFileSync(file, "utf8"));
      expect(tagsOf(html).filter((tag) => !REPORT_TAGS.has(tag))).toEqual([]);
      const items = [...html.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((m) => decode(m[1]!));
      expect(items).toEqual([
        `${HOSTILE_IDS.punctuation} flaky: 1/2 passed (✗✓)`,
        `${UNICODE_ID_SHOWN} flaky: 1/2 passed (✗✓)`,
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
