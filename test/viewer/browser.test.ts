import { copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { thisWriter } from "../../src/store/writer.js";
import { exportHtml } from "../../src/viewer/export.js";
import { startViewer, type Viewer } from "../../src/viewer/server.js";
import { attempt, manifest } from "../store/fixtures.js";
import { repoRoot } from "../support/project.js";
import { ensureViewerApp } from "./app.js";
import { launchChromium } from "./browser.js";
import { HOSTILE, storeWithRuns } from "./fixture.js";

/** Screenshots of each page, kept as artifacts (tmp/ is ignored by git). */
const shots = join(repoRoot, "tmp", "viewer-screenshots");
/** NICEEVAL_README_SCREENSHOTS=1 also refreshes the README's run and case pictures. */
const readmeShots = process.env.NICEEVAL_README_SCREENSHOTS === "1";

let fixture: Awaited<ReturnType<typeof storeWithRuns>>;
let viewer: Viewer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let page: Page;
const requests: string[] = [];
const errors: string[] = [];

beforeAll(async () => {
  await ensureViewerApp();
  fixture = await storeWithRuns();
  viewer = await startViewer({ store: fixture.store });
  browser = await launchChromium();
  page = await browser.context.newPage();
  page.on("request", (request) => requests.push(request.url()));
  page.on("pageerror", (error) => errors.push(error.message));
  await mkdir(shots, { recursive: true });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await viewer?.close();
  await fixture?.cleanup();
});

/** The page's document, as seen from a function that runs in the page (no DOM lib here). */
type InPage = { document: { querySelector(s: string): { textContent: string | null } | null } };

/** Wait until the cases table counts n attempts (a function, not a string: the CSP forbids eval). */
const countIs = (p: Page, n: number) =>
  p.waitForFunction(
    (n) =>
      (globalThis as unknown as InPage).document.querySelector("#count")?.textContent ===
      `${n} attempts`,
    n,
  );

async function shot(name: string, readme = false): Promise<void> {
  const path = join(shots, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  if (readme && readmeShots)
    await copyFile(path, join(repoRoot, "docs", "images", `viewer-${name}.png`));
}

describe("the viewer in a real Chromium", () => {
  it("opens the runs page from the printed URL", async () => {
    await page.goto(viewer.url);
    await page.locator("tr.run-row").first().waitFor();
    expect(page.url()).toBe(`${viewer.origin}/`);
    const rows = await page.locator("tr.run-row").allInnerTexts();
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain("head");
    expect(rows[0]).toMatch(/71\.4% \[\d+\.\d%, \d+\.\d%\] n=14/);
    // uPlot draws the trend of the eval over the two runs, with its bands.
    const trend = page.locator(".charts figure", {
      hasText: "greetings: pass rate and mean score over 2 runs",
    });
    await trend.locator("canvas").waitFor();
    // Its judge never answered: both mean scores are lower bounds, marked apart from the line.
    expect(await trend.locator("p").textContent()).toMatch(
      /^mean score only a lower bound in 2 runs \(partial scores\), drawn apart from its line: \u2265 0\.\d{3} \(base\), \u2265 0\.\d{3} \(head\)$/,
    );
    await shot("runs");
  });

  it("clicks into a run and shows its evals and cases", async () => {
    await page.getByRole("link", { name: "head", exact: true }).click();
    await page.locator(".vt-row[data-case]").first().waitFor();
    expect(await page.locator("table.evals").textContent()).toContain("greetings");
    expect(await page.locator("#count").textContent()).toBe("14 attempts");
    const histogram = page.locator("figure", { hasText: "greetings: score distribution, n=" });
    await histogram.locator("canvas").waitFor();
    const scorers = page.locator("figure", { hasText: "greetings: pass rate per scorer" });
    await scorers.locator("canvas").waitFor();
    // The judge with no evidence is named as left out, not drawn as a zero bar.
    expect(await scorers.textContent()).toContain("tone-judge: 14 unavailable");
    await shot("run", true);
  });

  it("filters to failures through the URL, and a reload keeps the view", async () => {
    await page.goto(`${viewer.origin}/#/run/${fixture.headId}?verdict=failed`);
    await page.reload();
    await countIs(page, 4);
    const verdicts = await page
      .locator(".vt-row[data-verdict]")
      .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-verdict")));
    expect(verdicts).toEqual(["failed", "failed", "failed", "failed"]);
    expect(await page.locator("select[name=verdict]").inputValue()).toBe("failed");
  });

  it("searches with / and moves with j, Enter and Esc", async () => {
    await page.keyboard.press("/");
    await page.keyboard.type("goodbye");
    await countIs(page, 2);
    expect(page.url()).toContain("q=goodbye");
    await page.keyboard.press("Escape");
    await page.keyboard.press("j");
    await page.keyboard.press("Enter");
    await page.locator("h2").waitFor();
    expect(page.url()).toContain("/case/");
    expect(page.url()).toContain("trial=1");
    await page.keyboard.press("Escape");
    await page.waitForURL(/#\/run\//);
    expect(page.url()).toContain("q=goodbye");
  });

  it("opens a case: the unavailable judgment is shown as unavailable with its reason, never 0", async () => {
    await page.goto(`${viewer.origin}/#/case/${fixture.headId}/greetings/case-3`);
    const judge = page.locator("tr[data-state=unavailable]").first();
    await judge.waitFor();
    const text = await judge.textContent();
    expect(text).toContain("unavailable");
    expect(text).toContain("OPENAI_API_KEY is not set");
    expect(await judge.locator("td").nth(5).textContent()).toBe("unavailable");
    expect(await page.locator(".trials .trial").count()).toBe(2);
    // Trials are numbered from 1, as the console and show number them.
    expect(await page.locator(".trials .trial").allTextContents()).toEqual([
      expect.stringContaining("trial 1"),
      expect.stringContaining("trial 2"),
    ]);
    expect(await page.locator(".diff .d-add").textContent()).toBe("+ goodbye name-3");
    expect(await page.locator(".trace").textContent()).toContain("lookup");
    await shot("case", true);
  });

  it("renders hostile output as text: nothing runs, nothing is fetched", async () => {
    await page.goto(`${viewer.origin}/#/case/${fixture.headId}/greetings/hostile`);
    await page.locator("h2").waitFor();
    const output = await page.locator(".box", { hasText: "Output" }).first().textContent();
    expect(output).toContain("<script>window.__pwned=1</script>");
    expect(output).toContain("\u241b[31mred"); // ESC shown as ␛
    expect(output).toContain("\u27e8U+202E\u27e9");
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator("#app img, #app a[href^='javascript']").count()).toBe(0);
    expect(HOSTILE).toContain("onerror");
  });

  it("compares two runs and finds the regression with its diff", async () => {
    await page.goto(`${viewer.origin}/#/compare?base=base&head=head`);
    const change = page.locator("li.reg[data-case=case-3]");
    await change.waitFor();
    expect(await page.locator("p.regression, p.ok").textContent()).toBeTruthy();
    await change.locator("summary").first().click();
    await change.locator(".diff .d-add").waitFor();
    expect(await change.locator(".diff").textContent()).toContain("+ goodbye name-3");
    await shot("compare");
  });

  it("sent no request anywhere but the viewer, and threw no error", () => {
    expect(requests.length).toBeGreaterThan(5);
    expect(requests.filter((url) => !url.startsWith(`${viewer.origin}/`))).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("opens the static export from file:// with no request", async () => {
    const dir = await mkdtemp(join(tmpdir(), "niceeval-export-"));
    try {
      const file = join(dir, "report.html");
      await exportHtml({ store: fixture.store, run: "head", baseline: "base", file });
      const exported = await browser.context.newPage();
      const seen: string[] = [];
      exported.on("request", (request) => seen.push(request.url()));
      exported.on("pageerror", (error) => errors.push(error.message));
      const url = pathToFileURL(file).href;
      // Made with a baseline, it opens on the comparison; `#/` is its runs list.
      await exported.goto(`${url}#/`);
      await exported.locator("tr.run-row").first().waitFor();
      expect(await exported.locator("tr.run-row").first().textContent()).toContain("head");
      await exported.getByRole("link", { name: "head", exact: true }).click();
      await countIs(exported, 14);
      await exported
        .locator("figure", { hasText: "score distribution" })
        .locator("canvas")
        .waitFor();
      await exported.goto(`${url}#/case/${fixture.headId}/greetings/case-3`);
      await exported.locator("tr[data-state=unavailable]").first().waitFor();
      await exported.goto(`${url}#/compare?base=base&head=head`);
      await exported.locator("li.reg[data-case=case-3] summary").click();
      await exported.locator("li.reg .diff").waitFor();
      await exported.screenshot({ path: join(shots, "export-compare.png"), fullPage: true });
      expect(seen.filter((u) => !u.startsWith(url))).toEqual([]);
      expect(errors).toEqual([]);
      await exported.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("shows a run in progress live, and a truncated value as truncated with its size", async () => {
    const dir = await mkdtemp(join(tmpdir(), "niceeval-live-"));
    const store = await openSqliteStore(join(dir, "live.sqlite"), { valueCapBytes: 1024 });
    const live = await startViewer({ store });
    try {
      // Written by this process, as a CLI run records its writer: a live run, not a dead one.
      await store.beginRun({
        ...manifest("run-live-0001", { name: "live" }),
        writer: thisWriter(),
      });
      const big = { ...attempt("alpha", 0), output: "x".repeat(5000) };
      await store.appendAttempts("run-live-0001", [big, attempt("alpha", 1), attempt("alpha", 2)]);
      const p = await browser.context.newPage();
      await p.goto(`${live.url}#/run/live`);
      await countIs(p, 3);
      expect(await p.locator(".meta .badge").first().textContent()).toBe("running");
      await store.appendAttempts("run-live-0001", [attempt("alpha", 3), attempt("alpha", 4)]);
      await countIs(p, 5);
      await p.goto(`${live.origin}/#/case/run-live-0001/alpha/case-0`);
      const output = p.locator(".box", { hasText: "Output" }).first();
      await output.locator(".b-truncated").waitFor();
      expect(await output.textContent()).toContain("5,002 bytes in full");
      // An output of the user's own with a ~truncated key, its head longer than its bytes allow:
      // shown as the value it is, in the table and on the case page.
      const own = { "~truncated": true, bytes: 10, head: "hello world, this is my own object" };
      await store.appendAttempts("run-live-0001", [{ ...attempt("alpha", 5), output: own }]);
      await p.goto(`${live.origin}/#/run/run-live-0001?q=hello`);
      const row = p.locator(".vt-row[data-case=case-5]");
      await row.waitFor();
      expect(await row.locator(".out").textContent()).toBe(JSON.stringify(own));
      await p.goto(`${live.origin}/#/case/run-live-0001/alpha/case-5`);
      const ownOutput = p.locator(".box", { hasText: "Output" }).first();
      await ownOutput.locator("pre").first().waitFor();
      expect(await ownOutput.locator(".b-truncated").count()).toBe(0);
      expect(await ownOutput.locator("pre").first().textContent()).toContain(
        '"head": "hello world, this is my own object"',
      );
      await p.close();
    } finally {
      await live.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("two viewers on one host", () => {
  it("keep their own sessions in one browser (cookies ignore ports)", async () => {
    const second = await storeWithRuns();
    const other = await startViewer({ store: second.store });
    const a = await browser.context.newPage();
    const b = await browser.context.newPage();
    try {
      await a.goto(viewer.url);
      await a.locator("tr.run-row").first().waitFor();
      await b.goto(other.url);
      await b.locator("tr.run-row").first().waitFor();
      // The first viewer's page goes on working after the second one's was opened.
      await a.goto(`${viewer.origin}/#/run/${fixture.headId}`);
      await a.reload();
      await countIs(a, 14);
      expect((await a.request.get(`${viewer.origin}/api/runs`)).status()).toBe(200);
      expect((await b.request.get(`${other.origin}/api/runs`)).status()).toBe(200);
    } finally {
      await a.close();
      await b.close();
      await other.close();
      await second.cleanup();
    }
  });
});
