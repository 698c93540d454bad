// The static HTML export and the live viewer, opened in a real Chromium with hostile runs: every
// page loads, shows what the runs hold as text, and runs nothing of it (no script, no element
// made from a case's markup, no policy violation, no page error).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/types.js";
import { exportHtml } from "../../src/viewer/export.js";
import { encodeSegment } from "../../src/viewer/segment.js";
import { startViewer, type Viewer } from "../../src/viewer/server.js";
import { ensureViewerApp } from "../viewer/app.js";
import { launchChromium } from "../viewer/browser.js";
import { HOSTILE_EVAL_ID, HOSTILE_IDS, HOSTILE_RUNS, hostileStore, THROWN_ID } from "./hostile.js";

/** What the page saw: errors, policy violations, alerts (hooked before any script of the page). */
interface Seen {
  errors: string[];
}

type InPage = {
  document: {
    querySelectorAll(s: string): { length: number };
    querySelector(s: string): { textContent: string | null } | null;
  };
  __violations: string[];
  __alerts: unknown[];
  __hostile?: unknown;
};

const HOOKS = () => {
  const w = globalThis as unknown as InPage & {
    alert: (m: unknown) => void;
    document: { addEventListener(t: string, f: (e: { violatedDirective: string }) => void): void };
  };
  w.__violations = [];
  w.__alerts = [];
  w.alert = (m) => w.__alerts.push(m);
  w.document.addEventListener("securitypolicyviolation", (e) =>
    w.__violations.push(e.violatedDirective),
  );
};

/** Open `url`, wait for `text` to show, and return what ran that should not have. */
async function visit(page: Page, url: string, text: string): Promise<Record<string, unknown>> {
  // A fresh load, so the text waited for is the new page's, not what the last one showed.
  await page.goto("about:blank");
  await page.goto(url);
  await page
    .waitForFunction(
      (t) =>
        (
          (globalThis as unknown as InPage).document.querySelector("#app")?.textContent ?? ""
        ).includes(t),
      text,
      { timeout: 20_000 },
    )
    .catch(async (error: Error) => {
      const shown = await page.evaluate(
        () => (globalThis as unknown as InPage).document.querySelector("#app")?.textContent ?? "",
      );
      throw new Error(
        `${url} did not show ${JSON.stringify(text)}: ${error.message}; it shows: ${shown.slice(0, 600)}`,
      );
    });
  return misdeeds(page);
}

/** What ran on the page that should not have, and the elements made of a case's markup. */
function misdeeds(page: Page): Promise<Record<string, unknown>> {
  return page.evaluate(() => {
    const w = globalThis as unknown as InPage;
    return {
      violations: w.__violations,
      alerts: w.__alerts,
      hostile: w.__hostile ?? null,
      made: w.document.querySelectorAll("#app script, #app img, #app i, #app u, #app iframe")
        .length,
    };
  });
}

const INERT = { violations: [], alerts: [], hostile: null, made: 0 };

const enc = encodeSegment;
const caseHash = (runId: string, caseId: string) =>
  `#/case/${enc(runId)}/${enc(HOSTILE_EVAL_ID)}/${enc(caseId)}`;

let store: Store;
let cleanup: () => Promise<void>;
let browser: Awaited<ReturnType<typeof launchChromium>>;

beforeAll(async () => {
  await ensureViewerApp();
  ({ store, cleanup } = await hostileStore());
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await cleanup?.();
});

/** Every page of the hostile runs at `base` (a file:// page or the viewer's origin). */
async function everyPage(page: Page, base: string, seen: Seen): Promise<void> {
  const head = HOSTILE_RUNS.head.runId;
  expect(await visit(page, `${base}#/`, HOSTILE_RUNS.head.name)).toEqual(INERT);
  expect(await visit(page, `${base}#/run/${enc(head)}`, HOSTILE_IDS.punctuation)).toEqual(INERT);
  const runText = await page.evaluate(
    () => (globalThis as unknown as InPage).document.querySelector("#app")?.textContent ?? "",
  );
  expect(runText).toContain(HOSTILE_EVAL_ID);
  // The blank case's link reads as its quoted id (the page collapses the spaces it shows).
  expect(await page.locator("#app a").allTextContents()).toContain(
    JSON.stringify(HOSTILE_IDS.blank),
  );
  // Each case by its id as stored (where a lone surrogate is one no longer).
  const ids: string[] = [];
  for await (const record of store.streamAttempts(head)) ids.push(record.caseId);
  expect(ids).toHaveLength(Object.keys(HOSTILE_IDS).length + 1);
  for (const caseId of ids) {
    const url = `${base}${caseHash(head, caseId)}`;
    expect(await visit(page, url, "<script>window.__hostile=1</script>")).toEqual(INERT);
    // Each judgment's detail (the scorer's metadata, its stack), opened, is text too.
    const opened = await page.evaluate(() => {
      const all = (
        globalThis as unknown as {
          document: { querySelectorAll(s: string): Iterable<{ open: boolean }> };
        }
      ).document.querySelectorAll("#app details");
      let n = 0;
      for (const d of all) {
        d.open = true;
        n++;
      }
      return n;
    });
    // The case whose target threw was never judged: no judgment, no detail.
    if (caseId === THROWN_ID) continue;
    expect(opened).toBeGreaterThan(0);
    await page.waitForFunction(() =>
      (
        (globalThis as unknown as InPage).document.querySelector("#app")?.textContent ?? ""
      ).includes("note"),
    );
    expect(await misdeeds(page)).toEqual(INERT);
  }
  const compare = `${base}#/compare?base=${encodeURIComponent(HOSTILE_RUNS.base.runId)}&head=${encodeURIComponent(head)}`;
  expect(await visit(page, compare, HOSTILE_IDS.punctuation)).toEqual(INERT);
  expect(seen.errors).toEqual([]);
}

async function newPage(seen: Seen): Promise<Page> {
  const page = await browser.context.newPage();
  await page.addInitScript(HOOKS);
  page.on("pageerror", (error) => seen.errors.push(error.message));
  return page;
}

describe("hostile runs in a real Chromium", () => {
  it("the static export loads from file:// and shows them as text", async () => {
    const dir = await mkdtemp(join(tmpdir(), "niceeval-hostile-export-"));
    const seen: Seen = { errors: [] };
    const page = await newPage(seen);
    try {
      const file = join(dir, "report.html");
      await exportHtml({
        store,
        run: HOSTILE_RUNS.head.runId,
        baseline: HOSTILE_RUNS.base.runId,
        file,
      });
      await everyPage(page, pathToFileURL(file).href, seen);
    } finally {
      await page.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("the live viewer shows them as text", async () => {
    const viewer: Viewer = await startViewer({ store });
    const seen: Seen = { errors: [] };
    const page = await newPage(seen);
    try {
      // The first load exchanges the token for the session cookie.
      await page.goto(viewer.url);
      await everyPage(page, `${viewer.origin}/`, seen);
    } finally {
      await page.close();
      await viewer.close();
    }
  }, 120_000);
});
