// Viewer benchmark, measured through Debian's Chromium (playwright-core): a stored 100,000-attempt
// run, its run page's first rows, a verdict filter, a text search, the rows in the DOM after a
// scroll, the server's RSS; then the static export of a 10,000-attempt run, its size and opening
// time from file://; the run page's charts on a first visit. Run after `npm run build`: node bench/viewer.mjs [--quick]
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { openSqliteStore } from "../dist/store/index.js";
import { exportHtml } from "../dist/viewer/export.js";
import { startViewer } from "../dist/viewer/server.js";
import { median } from "./stats.mjs";

const CHROMIUM = "/usr/bin/chromium";
const unavailable = { state: "unavailable", reason: "usage-unreported" };
const judge = {
  calls: 0,
  cachedCalls: 0,
  retries: 0,
  inputTokens: 0,
  outputTokens: 0,
  latencyMs: 0,
};

/** One attempt: an exact gate, a judged check that is unavailable; 1 in 10 fails. */
function attempt(i) {
  const passed = i % 10 !== 0;
  return {
    evalId: i % 2 ? "qa" : "summaries",
    caseId: `case-${i}`,
    trial: 0,
    index: i,
    verdict: passed ? "passed" : "failed",
    score: { state: "partial", earned: passed ? 1 : 0, max: 2, reasons: [] },
    judgments: [
      {
        label: "exact",
        source: "eval.exact",
        state: passed ? "matched" : "mismatched",
        gate: true,
        points: 1,
        earned: passed ? 1 : 0,
        reason: passed ? "equal" : "differs",
      },
      {
        label: "tone",
        source: "judge",
        state: "unavailable",
        gate: false,
        points: 1,
        earned: null,
        reason: "OPENAI_API_KEY is not set",
      },
    ],
    usage: {
      app: {
        inputTokens: unavailable,
        outputTokens: unavailable,
        totalTokens: unavailable,
        costUsd: unavailable,
      },
      judge,
    },
    elapsedMs: i % 97,
    input: { question: `question ${i}` },
    expected: `answer-${i}`,
    output: passed ? `answer-${i}` : `wrong-${i}`,
  };
}

async function fill(store, runId, n) {
  await store.beginRun({
    runId,
    name: runId,
    tags: {},
    niceevalVersion: "0.1.0",
    nodeVersion: process.version,
    command: [],
    files: [],
    evals: ["summaries", "qa"].map((evalId) => ({
      evalId,
      style: "suite",
      configHash: "c",
      judgeModels: [],
      trials: 1,
    })),
    trials: 1,
    concurrency: 8,
    startedAt: new Date().toISOString(),
  });
  for (let at = 0; at < n; at += 256) {
    const batch = [];
    for (let i = at; i < Math.min(n, at + 256); i++) batch.push(attempt(i));
    await store.appendAttempts(runId, batch);
  }
  await store.finishRun(runId, {
    status: "finished",
    endedAt: new Date().toISOString(),
    summaries: [],
  });
}

function ensureChromium() {
  if (!existsSync(CHROMIUM))
    execFileSync("apt-get", ["install", "-y", "chromium"], { stdio: "ignore" });
}

const ms = (start) => performance.now() - start;
const count = (page, text) =>
  page.waitForFunction((t) => document.querySelector("#count")?.textContent === t, text, {
    timeout: 60_000,
  });

export async function run({ quick = false } = {}) {
  ensureChromium();
  const { chromium } = await import("playwright-core");
  const dir = mkdtempSync(join(tmpdir(), "niceeval-bench-viewer-"));
  const repeats = quick ? 3 : 5;
  try {
    const store = await openSqliteStore(join(dir, "store.sqlite"));
    const n = 100_000;
    await fill(store, "big", n);
    await fill(store, "export-10k", 10_000);
    const rssBefore = process.memoryUsage().rss;
    const viewer = await startViewer({ store });
    const context = await chromium.launchPersistentContext(join(dir, "profile"), {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1280, height: 900 },
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    });
    const page = await context.newPage();
    await page.goto(viewer.url);
    const total = `${n.toLocaleString("en")} attempts`;
    const paints = [];
    const filters = [];
    const searches = [];
    let rows = 0;
    // The run page's charts: one streamed pass over every attempt on the server, then kept.
    let start = performance.now();
    await page.goto(`${viewer.origin}/#/run/big`);
    await page.locator("figure.chart canvas").first().waitFor({ timeout: 120_000 });
    const chartsMs = ms(start);
    for (let r = 0; r < repeats; r++) {
      await page.goto("about:blank");
      start = performance.now();
      await page.goto(`${viewer.origin}/#/run/big`);
      await page.locator(".vt-row[data-case]").first().waitFor();
      await count(page, total);
      paints.push(ms(start));
      start = performance.now();
      await page.selectOption("select[name=verdict]", "failed");
      await count(page, `${(n / 10).toLocaleString("en")} attempts`);
      await page.locator(".vt-row[data-verdict=failed]").first().waitFor();
      filters.push(ms(start));
      await page.selectOption("select[name=verdict]", "");
      await count(page, total);
      start = performance.now();
      await page.fill("input[type=search]", "wrong-4242");
      await count(page, "1 attempt");
      searches.push(ms(start));
      await page.fill("input[type=search]", "");
      await count(page, total);
      await page.locator(".vt").evaluate((el) => {
        el.scrollTop = el.scrollHeight / 2;
      });
      await page.waitForTimeout(300);
      rows = Math.max(rows, await page.locator(".vt-row").count());
    }
    const rss = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
    console.log(
      `viewer, ${n.toLocaleString("en")}-attempt run (Chromium ${context.browser()?.version() ?? ""}): first rows ${median(paints).toFixed(0)} ms, verdict filter ${median(filters).toFixed(0)} ms, text search ${median(searches).toFixed(0)} ms (incl. the 120 ms typing debounce), ${rows} rows in the DOM after a scroll, server RSS +${rss.toFixed(0)} MB (medians of ${repeats}); charts drawn in ${chartsMs.toFixed(0)} ms on the first visit (one streamed pass, then kept)`,
    );
    const file = join(dir, "export.html");
    start = performance.now();
    await exportHtml({ store, run: "export-10k", file });
    const exportMs = ms(start);
    const opens = [];
    for (let r = 0; r < repeats; r++) {
      await page.goto("about:blank");
      start = performance.now();
      await page.goto(`${pathToFileURL(file).href}#/run/export-10k`);
      await page.locator(".vt-row[data-case]").first().waitFor();
      opens.push(ms(start));
    }
    console.log(
      `viewer export, 10,000-attempt run: ${(statSync(file).size / 2 ** 20).toFixed(1)} MiB, written in ${exportMs.toFixed(0)} ms, opens from file:// to first rows in ${median(opens).toFixed(0)} ms (median of ${repeats})`,
    );
    await context.close();
    await viewer.close();
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  await run({ quick: process.argv.includes("--quick") });
