// What the viewer's pages say, live and in the static export, in a real Chromium.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import { defineSuite } from "../../src/eval/suite.js";
import { createScorer } from "../../src/scorers/create-scorer.js";
import type { RunEnd } from "../../src/store/types.js";
import { thisWriter } from "../../src/store/writer.js";
import { exportHtml } from "../../src/viewer/export.js";
import { startViewer, type Viewer } from "../../src/viewer/server.js";
import { manifest } from "../store/fixtures.js";
import { cliPath, runCli } from "../support/project.js";
import { ensureViewerApp } from "./app.js";
import { launchChromium } from "./browser.js";
import { judgedEval, recordRun, storeWithRuns } from "./fixture.js";

let fixture: Awaited<ReturnType<typeof storeWithRuns>>;
let viewer: Viewer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let page: Page;
let dir: string;
const errors: string[] = [];

/** Whether the output is the expected value (===), named "same". */
const sameScorer = <O = string>() =>
  createScorer<string, O>({
    name: "same",
    score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
  });

/** A run whose target throws "boom" on one case and whose scorer throws "kaput" on another. */
const THROWS = "run-throws-0000000";
const throwing = defineSuite<string, string>({
  id: "throwing",
  cases: [
    { id: "fine", input: "a", expected: "a" },
    { id: "target-throws", input: "b", expected: "b" },
    { id: "scorer-throws", input: "c", expected: "c" },
  ],
  target: (input, ctx) => {
    if (ctx.caseId === "target-throws") throw new Error("the target went boom");
    return input;
  },
  scorers: [
    createScorer<string, string>({
      name: "same",
      score: ({ input, output, expected }) => {
        if (input === "c") throw new Error("the scorer went kaput");
        return { score: output === expected ? 1 : 0 };
      },
    }),
  ],
});

const echo = defineSuite<string, string>({
  id: "echo",
  cases: [{ id: "hi", input: "hi", expected: "hi" }],
  target: (input) => input,
  scorers: [sameScorer()],
});

/** Two trials of one case; in head (`flip: true`) its second trial answers wrong. */
const flipping = (flip: boolean) =>
  defineSuite<string, string>({
    id: "flipping",
    cases: [{ id: "c", input: "yes", expected: "yes" }],
    target: (input, ctx) => (flip && ctx.trial === 1 ? "no" : input),
    scorers: [sameScorer()],
  });

/** Three cases that all pass, and in head (`fall: true`) all fail. */
const falling = (fall: boolean) =>
  defineSuite<string, string>({
    id: "falling",
    cases: ["a", "b", "c"].map((id) => ({ id, input: id, expected: id })),
    target: (input) => (fall ? `not ${input}` : input),
    scorers: [sameScorer()],
  });

/** 60 cases whose first 55 targets throw: the scorer judges only the last 5. */
const LATE = "run-late-labels-0000";
const lateLabels = defineSuite<number, number>({
  id: "late-labels",
  cases: Array.from({ length: 60 }, (_, i) => ({ id: `c${i}`, input: i })),
  target: (i) => {
    if (i < 55) throw new Error("not yet");
    return i;
  },
  scorers: [createScorer<number>({ name: "only-late", score: () => ({ score: 1 }) })],
});

/** Two 5,000-line texts that differ only on line 4,500. */
const LONG = "run-long-text-000000";
const longText = (changed: boolean) =>
  Array.from({ length: 5000 }, (_, i) =>
    changed && i === 4500 ? "line 4500 changed" : `line ${i}`,
  ).join("\n");
const longTexts = defineSuite<string, string>({
  id: "long-text",
  cases: [{ id: "late", input: "x", expected: longText(false) }],
  target: () => longText(true),
  scorers: [sameScorer()],
});

/** 120 cases that all pass, and in head (`fall: true`) all fail: more than a comparison lists. */
const manyFalling = (fall: boolean) =>
  defineSuite<string, string>({
    id: "many",
    cases: Array.from({ length: 120 }, (_, i) => ({
      id: `m${i}`,
      input: `m${i}`,
      expected: `m${i}`,
    })),
    target: (input) => (fall ? `not ${input}` : input),
    scorers: [sameScorer()],
  });

/** An output of 250,000 characters on one line: drawn in part until asked. */
const BIG = "run-big-value-000000";
const bigValue = defineSuite<string, string>({
  id: "big-value",
  cases: [{ id: "big", input: "x", expected: "short" }],
  target: () => "y".repeat(250_000),
  scorers: [sameScorer()],
});

/** A case id of 308 characters without a space. */
const LONG_ID = `sha-${"0123456789abcdef".repeat(19)}`;
const longId = defineSuite<string, string>({
  id: "long-id",
  cases: [{ id: LONG_ID, input: "x", expected: "x" }],
  target: (input) => input,
  scorers: [sameScorer()],
});

/** Expected the string "42", answered the number 42: different values with the same text. */
const TYPED = "run-typed-0000000000";
const typed = defineSuite<string, unknown>({
  id: "typed",
  cases: [{ id: "string-vs-number", input: "x", expected: "42" }],
  target: () => 42,
  scorers: [sameScorer<unknown>()],
});

beforeAll(async () => {
  await ensureViewerApp();
  fixture = await storeWithRuns();
  await recordRun(fixture.store, {
    runId: THROWS,
    name: "throws",
    startedAt: "2025-01-03T00:00:00.000Z",
    evals: [throwing],
    trials: 1,
  });
  // Two runs of two evals each, for the runs page's eval filter.
  for (const i of [1, 2])
    await recordRun(fixture.store, {
      runId: `run-mixed-${i}-000000`,
      name: `mixed-${i}`,
      startedAt: `2025-01-0${3 + i}T00:00:00.000Z`,
      evals: [throwing, echo],
      trials: 1,
    });
  for (const [i, flip] of [false, true].entries())
    await recordRun(fixture.store, {
      runId: `run-flip-${i}-0000000`,
      name: `flip-${i}`,
      startedAt: `2024-12-0${1 + i}T00:00:00.000Z`,
      evals: [flipping(flip)],
      trials: 2,
    });
  for (const [i, fall] of [false, true].entries())
    await recordRun(fixture.store, {
      runId: `run-fall-${i}-0000000`,
      name: `fall-${i}`,
      startedAt: `2024-10-0${1 + i}T00:00:00.000Z`,
      evals: [falling(fall)],
      trials: 1,
    });
  await recordRun(fixture.store, {
    runId: LATE,
    name: "late-labels",
    startedAt: "2024-11-01T00:00:00.000Z",
    evals: [lateLabels],
    trials: 1,
  });
  // The judge answered in the first run (mean 1); in the second it could not be reached (≥ 0.500).
  for (const [i, reachable] of [true, false].entries())
    await recordRun(fixture.store, {
      runId: `run-judged-${i}-000000`,
      name: `judged-${i}`,
      startedAt: `2024-09-0${1 + i}T00:00:00.000Z`,
      evals: [judgedEval(reachable)],
      trials: 1,
    });
  for (const [i, fall] of [false, true].entries())
    await recordRun(fixture.store, {
      runId: `run-many-${i}-0000000`,
      name: `many-${i}`,
      startedAt: `2024-07-0${1 + i}T00:00:00.000Z`,
      evals: [manyFalling(fall)],
      trials: 1,
    });
  // Runs of one case each, for the case page.
  for (const [runId, name, evals, day] of [
    [LONG, "long-text", longTexts, 1],
    [TYPED, "typed", typed, 2],
    ["run-long-id-00000000", "long-id", longId, 3],
    [BIG, "big-value", bigValue, 4],
  ] as const)
    await recordRun(fixture.store, {
      runId,
      name,
      startedAt: `2024-08-0${day}T00:00:00.000Z`,
      evals: [evals],
      trials: 1,
    });
  viewer = await startViewer({ store: fixture.store });
  browser = await launchChromium();
  page = await browser.context.newPage();
  watch(page);
  await page.goto(viewer.url);
  dir = await mkdtemp(join(tmpdir(), "niceeval-pages-"));
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await viewer?.close();
  await fixture?.cleanup();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Collect a page's uncaught errors and console errors (a failed API call logs one). */
function watch(p: Page): void {
  p.on("pageerror", (error) => errors.push(error.message));
  p.on("console", (message) => {
    if (message.type() === "error") errors.push(`${p.url()}: ${message.text()}`);
  });
}

/** The cases shown in the run page's table once it has loaded. */
async function shownCases(p: Page): Promise<string[]> {
  await p.locator(".vt-row[data-case], .vt .empty").first().waitFor();
  return p
    .locator(".vt-row[data-case]")
    .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-case")));
}

/** Export `run` (with `baseline`) to a file and open it in a new page; the page's file URL. */
async function openExport(run: string, baseline?: string): Promise<{ p: Page; url: string }> {
  const file = join(dir, `${run}-${baseline ?? "alone"}.html`);
  await exportHtml({ store: fixture.store, run, ...(baseline ? { baseline } : {}), file });
  const p = await browser.context.newPage();
  watch(p);
  return { p, url: pathToFileURL(file).href };
}

describe("searching a run", () => {
  it("finds the error a target threw, as it finds a scorer's", async () => {
    await page.goto(`${viewer.origin}/#/run/throws?q=kaput`);
    expect(await shownCases(page)).toEqual(["scorer-throws"]);
    expect(await page.locator(".vt-row .why").first().textContent()).toContain("kaput");
    await page.goto(`${viewer.origin}/#/run/throws?q=boom`);
    await page.reload();
    expect(await shownCases(page)).toEqual(["target-throws"]);
    expect(await page.locator(".vt-row .why").first().textContent()).toContain("boom");
  });

  it("finds it in the static export too", async () => {
    const { p, url } = await openExport("throws");
    await p.goto(`${url}#/run/${THROWS}?q=boom`);
    expect(await shownCases(p)).toEqual(["target-throws"]);
    await p.close();
  });
});

describe("the scorer and judgment filters together", () => {
  // In head, exact mismatched on case-3 and hostile; tone-judge is unavailable everywhere.
  const expectFiltered = async (p: Page, url: string) => {
    await p.goto(`${url}?label=exact&state=mismatched`);
    await p.reload();
    expect(await shownCases(p)).toEqual(["case-3", "case-3", "hostile", "hostile"]);
    await p.goto(`${url}?label=tone-judge&state=mismatched`);
    await p.reload();
    expect(await shownCases(p)).toEqual([]);
    await p.goto(`${url}?label=tone-judge&state=unavailable`);
    await p.reload();
    expect(await shownCases(p)).toHaveLength(14);
  };

  it("keep the attempts where that scorer's judgment is in that state", async () => {
    await expectFiltered(page, `${viewer.origin}/#/run/head`);
  });

  it("do so in the static export too", async () => {
    const { p, url } = await openExport("head");
    await expectFiltered(p, `${url}#/run/${fixture.headId}`);
    await p.close();
  });
});

describe("filters in a link that are none of their list's choices", () => {
  const expectAny = async (p: Page, url: string) => {
    await p.goto(`${url}?verdict=faild&state=mismatch&sort=scroe&order=sideways&trial=9`);
    await p.reload();
    // Shown as "any" (and the default order), and not sent: the server refuses them.
    expect(await shownCases(p)).toHaveLength(14);
    for (const [name, shown] of [
      ["verdict", "any"],
      ["state", "any"],
      ["sort", "case"],
      ["order", "asc"],
    ])
      expect(await p.locator(`select[name="${name}"] option:checked`).textContent()).toBe(shown);
    expect(await p.locator(".error").count()).toBe(0);
  };

  it("show as any and list every attempt", async () => {
    await expectAny(page, `${viewer.origin}/#/run/head`);
  });

  it("do so in the static export too", async () => {
    const { p, url } = await openExport("head");
    await expectAny(p, `${url}#/run/${fixture.headId}`);
    await p.close();
  });
});

describe("the scorer filter", () => {
  it("lists every scorer of the run, also one that judged only attempts past the first ones", async () => {
    await page.goto(`${viewer.origin}/#/run/${LATE}`);
    await page
      .locator('select[name="label"] option[value="only-late"]')
      .waitFor({ state: "attached" });
    await page.selectOption('select[name="label"]', "only-late");
    // The table fills again once the filter's page has come.
    await expect
      .poll(() => shownCases(page), { timeout: 10_000 })
      .toEqual(["c55", "c56", "c57", "c58", "c59"]);
  });
});

/** Click a case page's second trial card; the URL names it, and a reload shows it again. */
async function pickSecondTrial(p: Page, url: string): Promise<void> {
  await p.goto(url);
  await p.locator(".trials .trial").nth(1).click();
  await p.locator(".trials .trial.sel", { hasText: "trial 2" }).waitFor();
  expect(new URL(p.url()).hash).toMatch(/\?trial=1$/);
  await p.reload();
  await p.locator(".trials .trial.sel").waitFor();
  expect(await p.locator(".trials .trial.sel").textContent()).toContain("trial 2");
}

describe("a case page", () => {
  it("puts the trial clicked in the URL (?trial=), so a reload or a link shows it", async () => {
    await pickSecondTrial(page, `${viewer.origin}/#/case/${fixture.headId}/greetings/case-3`);
  });

  it("does so in the static export too", async () => {
    const { p, url } = await openExport("head");
    await pickSecondTrial(p, `${url}#/case/${fixture.headId}/greetings/case-3`);
    await p.close();
  });

  it("says so when ?trial= names no trial of the case, and which trials exist", async () => {
    for (const trial of ["99", "-1", "abc"]) {
      await page.goto(`${viewer.origin}/#/case/${fixture.headId}/greetings/case-3?trial=${trial}`);
      await page.reload();
      const notice = page.locator(".notice");
      await notice.waitFor();
      expect(await notice.textContent()).toBe(
        `?trial=${trial} names no trial of this case; its trials are ?trial=0 (trial 1) and ?trial=1 (trial 2). Showing trial 1.`,
      );
      expect(await page.locator(".trials .trial.sel").textContent()).toContain("trial 1");
    }
    await page.goto(`${viewer.origin}/#/case/${fixture.headId}/greetings/case-3?trial=1`);
    await page.reload();
    await page.locator(".trials .trial.sel", { hasText: "trial 2" }).waitFor();
    expect(await page.locator(".notice").count()).toBe(0);
  });
});

/** The text of a case page's diff section. */
async function diffText(p: Page): Promise<string> {
  const box = p.locator("section.box", { has: p.locator("h3", { hasText: /^Diff/ }) });
  await box.waitFor();
  return (await box.textContent()) ?? "";
}

describe("a case page's diff", () => {
  it("finds a change past line 1,500 instead of saying the values are equal", async () => {
    await page.goto(`${viewer.origin}/#/case/${LONG}/long-text/late`);
    await page.reload();
    const diff = await diffText(page);
    expect(diff).not.toContain("equals");
    expect(await page.locator(".diff .d-del").allTextContents()).toEqual(["- line 4500"]);
    expect(await page.locator(".diff .d-add").allTextContents()).toEqual(["+ line 4500 changed"]);
    expect(diff).toContain("\u2026 4,497 lines equal before");
  });
});

describe("a case page of a large value", () => {
  it("draws its first 100,000 characters, the rest when asked, and cuts the diff's lines", async () => {
    await page.goto(`${viewer.origin}/#/case/${BIG}/big-value/big`);
    await page.reload();
    const output = page.locator("section.box", {
      has: page.locator("h3", { hasText: /^Output$/ }),
    });
    await output.locator("pre").waitFor();
    expect((await output.locator("pre").textContent())!.length).toBe(100_000);
    expect(await output.textContent()).toContain(
      "the first 100,000 of 250,000 characters show all",
    );
    const diffLine = (await page.locator(".diff .d-add").textContent())!;
    expect(diffLine).toMatch(/ \u2026 \(240,000 more characters\)$/);
    await output.locator("button", { hasText: "show all" }).click();
    expect((await output.locator("pre").textContent())!.length).toBe(250_000);
    expect(await output.locator("button").count()).toBe(0);
  });
});

describe("a case page of a long id without spaces", () => {
  it("wraps the id in its breadcrumb and heading instead of widening the page", async () => {
    await page.goto(`${viewer.origin}/#/case/long-id/long-id/${LONG_ID}`);
    await page.reload();
    await page.locator(".trials .trial.sel").waitFor();
    expect(await page.locator("h2").textContent()).toContain(LONG_ID);
    const widths = await page.evaluate(() => {
      const d = (
        globalThis as unknown as {
          document: { documentElement: { scrollWidth: number; clientWidth: number } };
        }
      ).document;
      return [d.documentElement.scrollWidth, d.documentElement.clientWidth];
    });
    expect(widths[0]).toBeLessThanOrEqual(widths[1]!);
  });
});

describe("a case page's values", () => {
  it('show the string "42" and the number 42 apart, and the diff says they differ', async () => {
    await page.goto(`${viewer.origin}/#/case/${TYPED}/typed/string-vs-number`);
    await page.reload();
    const panel = (title: string) =>
      page
        .locator("section.box", { has: page.locator("h3", { hasText: new RegExp(`^${title}$`) }) })
        .locator("pre");
    expect(await panel("Expected").textContent()).toBe('"42"');
    expect(await panel("Output").textContent()).toBe("42");
    const diff = await diffText(page);
    expect(diff).not.toContain("equals");
    expect(diff).toContain('same text, different types: string "42" vs number 42');
  });
});

describe("a static export with a baseline", () => {
  it("opens on the comparison it was made for", async () => {
    const { p, url } = await openExport("head", "base");
    await p.goto(url);
    await p.locator("li.reg[data-case=case-3]").waitFor();
    expect(new URL(p.url()).hash).toBe(`#/compare?base=${fixture.baseId}&head=${fixture.headId}`);
    await p.close();
  });

  it("says the baseline run's table holds only the cases that changed, and a case left out was not exported", async () => {
    const { p, url } = await openExport("head", "base");
    await p.goto(`${url}#/run/${fixture.baseId}`);
    expect(await shownCases(p)).toEqual(["case-3", "case-3"]);
    const notice = p.locator(".notice");
    await notice.waitFor();
    expect(await notice.textContent()).toBe(
      "Only the cases that changed against head were exported for this baseline run: the table lists 2 of its 14 attempts; the figures above count them all. See the comparison.",
    );
    await p.goto(`${url}#/case/${fixture.baseId}/greetings/case-0`);
    const error = p.locator("[role=alert]");
    await error.waitFor();
    expect(await error.textContent()).toBe(
      'case "case-0" of eval "greetings" was not exported: this export holds only the cases that changed for its baseline run base',
    );
    // The head run is exported whole: no such notice.
    await p.goto(`${url}#/run/${fixture.headId}`);
    expect(await shownCases(p)).toHaveLength(14);
    expect(await p.locator(".notice").count()).toBe(0);
    await p.close();
  });
});

describe("a static export's compare page", () => {
  it("shows its comparison only for a link naming its runs, or none; else says which it holds, with a link", async () => {
    const { p, url } = await openExport("fall-1", "fall-0");
    const transitions = p.locator(".stats p").first();
    for (const asked of [
      "base=run-fall-0-0000000&head=run-fall-1-0000000",
      "base=fall-0&head=run-fall-1",
      "",
    ]) {
      await p.goto(`${url}#/compare${asked ? `?${asked}` : ""}`);
      await p.reload();
      expect(await transitions.textContent(), asked).toMatch(
        /^3 paired cases \u00b7 3 pass\u2192fail/,
      );
      expect(await p.locator(".meta").textContent()).toBe("base fall-0 \u2192 head fall-1");
    }
    // Base and head swapped: its own comparison under their names would read as an improvement.
    await p.goto(`${url}#/compare?base=run-fall-1-0000000&head=fall-0`);
    await p.reload();
    const said = p.locator(".notice");
    expect(await said.textContent()).toBe(
      "This export holds one comparison, base fall-0 \u2192 head fall-1 (niceeval export --baseline made it), not base run-fall-1-0000000 \u2192 head fall-0 as this link asks. Open the comparison it holds.",
    );
    expect(await p.locator(".stats").count()).toBe(0);
    await said.getByRole("link", { name: "Open the comparison it holds" }).click();
    await transitions.waitFor();
    expect(new URL(p.url()).hash).toBe("#/compare?base=run-fall-0-0000000&head=run-fall-1-0000000");
    await p.close();
  });
});

describe("a comparison with more changes than it lists", () => {
  it("counts the changes not listed, as niceeval compare does", async () => {
    await page.goto(`${viewer.origin}/#/compare?base=many-0&head=many-1`);
    await page.reload();
    const unlisted = page.locator(".changes .unlisted");
    await unlisted.waitFor();
    expect(await unlisted.textContent()).toBe(
      "\u2026 20 more changed cases not listed (100 of 120)",
    );
  });

  it("is exported with the base attempts of every changed case, listed or not", async () => {
    const { p, url } = await openExport("many-1", "many-0");
    await p.goto(`${url}#/compare?base=run-many-0-0000000&head=run-many-1-0000000`);
    await p.locator(".changes .unlisted").waitFor();
    expect(await p.locator(".changes li[data-case]").count()).toBe(100);
    // m110 changed but is not listed: its base case is in the export all the same.
    await p.goto(`${url}#/case/run-many-0-0000000/many/m110`);
    await p.locator(".trials .trial.sel").waitFor();
    expect(await p.locator("[role=alert]").count()).toBe(0);
    await p.goto(`${url}#/run/run-many-0-0000000`);
    const notice = p.locator(".notice");
    await notice.waitFor();
    expect(await notice.textContent()).toContain("the table lists 120 of its 120 attempts");
    await p.close();
  });
});

describe("the compare page", () => {
  it("takes branch:NAME as niceeval compare does, and writes a p-value at its floor as p < 0.0001", async () => {
    await page.goto(`${viewer.origin}/#/compare?base=branch:main&head=many-1`);
    await page.reload();
    await page.locator(".changes").first().waitFor();
    expect(await page.locator(".meta").textContent()).toBe("base many-0 \u2192 head many-1");
    const stats = (await page.locator(".stats").first().textContent()) ?? "";
    expect(stats).toContain("McNemar p < 0.0001");
    expect(stats).toContain("sign-flip p < 0.0001");
    expect(stats).not.toContain("0.000100");
  });
});

describe("a comparison of a run the store does not hold", () => {
  it("shows the runs it lists one a line, and the branch:NAME hint on a line of its own", async () => {
    // Not watched: the API's 404 is what this page shows.
    const p = await browser.context.newPage();
    await p.goto(`${viewer.origin}/#/compare?base=nope&head=latest`);
    const alert = p.locator(".error[role=alert]");
    await alert.waitFor();
    // biome-ignore lint/performance/useDomNodeTextContent: the lines as the page shows them
    const lines = (await alert.innerText()).split("\n");
    expect(lines[0]).toMatch(/^no run "nope" in .* Most recent runs:$/);
    expect(lines.at(-2)).toMatch(/^ {2}[\w-]{8} {2}\S+ {2}\S+ {2}\w+$/);
    expect(lines.at(-1)).toMatch(/^the comparison also takes branch:NAME: /);
    await p.close();
  });
});

describe("the link niceeval compare prints", () => {
  it("is a niceeval view that opens on the comparison of the two runs", async () => {
    const compared = await runCli(["compare", "base", "head", "--store", fixture.path], dir);
    const advised = /\nview it: `niceeval (view [^`]+)`\n$/.exec(compared.stdout)?.[1];
    expect(advised).toBe(`view --base run-base --head run-head --store ${fixture.path}`);
    // The JSON is the comparison alone.
    const json = await runCli(["compare", "base", "head", "--json", "--store", fixture.path], dir);
    expect(json.stdout).not.toContain("niceeval view");
    const child = spawn(process.execPath, [cliPath, ...advised!.split(" "), "--port", "0"], {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          out += chunk;
          const found = /http:\/\/\S+/.exec(out);
          if (found) resolve(found[0]);
        });
        child.once("exit", (code) => reject(new Error(`view exited with ${code}`)));
      });
      expect(url).toMatch(/\/\?token=[\w-]+#\/compare\?base=run-base&head=run-head$/);
      const p = await browser.context.newPage();
      watch(p);
      await p.goto(url);
      await p.locator(".changes").first().waitFor();
      expect(await p.locator(".meta").textContent()).toBe("base base \u2192 head head");
      expect(new URL(p.url()).searchParams.get("token")).toBeNull();
      await p.close();
    } finally {
      child.kill("SIGINT");
    }
  });
});

describe("a link with a malformed % escape", () => {
  it("says the link cannot be read, and links to the runs, instead of doing nothing", async () => {
    await page.goto(`${viewer.origin}/#/run/%E0%A4%A`);
    await page.reload();
    const alert = page.locator("[role=alert]");
    await alert.waitFor();
    expect(await alert.textContent()).toBe(
      'This link cannot be read: "%E0%A4%A" in its address is not a valid % escape (a link cut short or edited by hand?). Go to the runs.',
    );
    await alert.getByRole("link", { name: "Go to the runs" }).click();
    await page.locator("tr.run-row").first().waitFor();
  });
});

describe("a case link without its case", () => {
  const expectNoCase = async (p: Page, url: string, run: string, evalId: string) => {
    await p.goto(`${url}#/case/${run}/${evalId}`);
    await p.reload();
    const alert = p.locator("[role=alert]");
    await alert.waitFor();
    expect(await alert.textContent()).toBe(
      `This link names no case: a case's address is #/case/<run>/<eval>/<case>, and this one names run "${run}" and eval "${evalId}", no case (a link cut short?). Go to run ${run}.`,
    );
    await alert.getByRole("link", { name: `Go to run ${run}` }).click();
    await p.locator(".vt-row[data-case]").first().waitFor();
  };

  it("says so and links to the run, asking the server nothing", async () => {
    // The page is watched: a request the server answers 404 would be an error.
    await expectNoCase(page, viewer.origin, "latest", "t");
    await expectNoCase(page, viewer.origin, "head", "nope");
  });

  it("says so in the static export too", async () => {
    const { p, url } = await openExport("head");
    await expectNoCase(p, url, "head", "greetings");
    await p.close();
  });
});

describe("the runs page's filters", () => {
  it("say when no run matches, and how to clear them", async () => {
    await page.goto(`${viewer.origin}/#/?branch=nope`);
    await page.reload();
    const empty = page.locator("table.runs tbody td");
    await empty.filter({ hasText: "No run" }).waitFor();
    expect(await empty.textContent()).toBe(
      "No run matches these filters (branch nope). Clear the filters to see every run.",
    );
    await page.getByRole("link", { name: "Clear the filters" }).click();
    await page.locator("tr.run-row").first().waitFor();
    expect(new URL(page.url()).hash).toBe("#/");
  });

  it("say when the list stops at its limit, and link to a longer one", async () => {
    await page.goto(`${viewer.origin}/#/?limit=2`);
    await page.reload();
    const notice = page.locator(".notice", { hasText: "Only the newest" });
    await notice.waitFor();
    expect(await page.locator("tr.run-row").count()).toBe(2);
    expect(await notice.textContent()).toBe(
      "Only the newest 2 runs are listed; older runs are not. List 4, or narrow them by eval, branch or tag (niceeval runs --limit lists them in the terminal).",
    );
    await notice.getByRole("link", { name: "List 4" }).click();
    await page.locator("tr.run-row").nth(3).waitFor();
    expect(new URL(page.url()).hash).toBe("#/?limit=4");
    await page.goto(`${viewer.origin}/#/`);
    await page.reload();
    await page.locator("tr.run-row").first().waitFor();
    expect(await page.locator(".notice").count()).toBe(0);
  });

  it("name the form key=value when a tag filter has no =", async () => {
    await page.goto(`${viewer.origin}/#/?tag=nightly`);
    await page.reload();
    const notice = page.locator(".notice");
    await notice.waitFor();
    expect(await notice.textContent()).toBe(
      'The tag filter "nightly" is ignored: write it as key=value, for example model=gpt-4.1.',
    );
    // Not sent (the server refuses it): every run is listed, as the notice says.
    await page.locator("tr.run-row").first().waitFor();
    expect(await page.locator("td .error, .error").count()).toBe(0);
  });

  it("limit the history charts to the eval filtered on", async () => {
    const captions = async () => {
      await page.locator("tr.run-row").first().waitFor();
      await page.locator(".charts figure canvas").first().waitFor();
      return page.locator(".charts figcaption").allTextContents();
    };
    await page.goto(`${viewer.origin}/#/`);
    await page.reload();
    expect((await captions()).map((c) => c.split(":")[0]).sort()).toEqual([
      "echo",
      "falling",
      "flipping",
      "greetings",
      "judged",
      "many",
      "throwing",
    ]);
    await page.goto(`${viewer.origin}/#/?evalId=echo`);
    await page.reload();
    expect((await captions()).map((c) => c.split(":")[0])).toEqual(["echo"]);
  });
});

describe("comparing", () => {
  it("labels the compare button with the runs ticked, and says why it is disabled", async () => {
    await page.goto(`${viewer.origin}/#/`);
    await page.reload();
    await page.locator("tr.run-row").first().waitFor();
    const button = page.getByRole("button", { name: /^Compare/ });
    const hint = page.locator("#compare-hint");
    const expectState = async (label: string, enabled: boolean, why: string) => {
      expect(await button.textContent()).toBe(label);
      expect(await button.isEnabled()).toBe(enabled);
      expect(await hint.textContent()).toBe(why);
    };
    await expectState("Compare 0 selected", false, "Tick two runs to compare them.");
    const boxes = page.locator("tr.run-row input[type=checkbox]");
    await boxes.nth(0).check();
    await expectState("Compare 1 selected", false, "Tick one more run to compare.");
    await boxes.nth(1).check();
    await expectState("Compare 2 selected", true, "");
    await boxes.nth(2).check();
    await expectState("Compare 3 selected", false, "Compare takes two runs; 3 are ticked.");
  });

  it("compares a ticked run a filter hides, and says it is not listed", async () => {
    await page.goto(`${viewer.origin}/#/`);
    await page.reload();
    await page.locator("tr.run-row", { hasText: "throws" }).locator("input[type=checkbox]").check();
    await page.fill("input[name=evalId]", "echo");
    await page.press("input[name=evalId]", "Enter");
    await page.locator("tr.run-row", { hasText: "throws" }).waitFor({ state: "detached" });
    const hint = page.locator("#compare-hint");
    expect(await hint.textContent()).toBe(
      "Tick one more run to compare. It is not listed under these filters.",
    );
    await page
      .locator("tr.run-row", { hasText: "mixed-2" })
      .locator("input[type=checkbox]")
      .check();
    const button = page.getByRole("button", { name: /^Compare/ });
    expect(await button.textContent()).toBe("Compare 2 selected");
    expect(await hint.textContent()).toBe("1 of them is not listed under these filters.");
    await button.click();
    await page.locator("p.meta", { hasText: "throws" }).waitFor();
    expect(new URL(page.url()).hash).toBe(`#/compare?base=${THROWS}&head=run-mixed-2-000000`);
  });

  it("shows the outputs of the trials whose judgments changed, named by trial", async () => {
    await page.goto(`${viewer.origin}/#/compare?base=flip-0&head=flip-1`);
    const change = page.locator("li.reg[data-case=c]");
    await change.locator("summary").click();
    const sides = change.locator(".sides section.box h3");
    await sides.nth(2).waitFor();
    // The trial that changed, on both sides: the second passed in the base and not in the head.
    expect(await sides.allTextContents()).toEqual([
      "base trial 2 output",
      "head trial 2 output",
      "Diff: base trial 2 \u2192 head trial 2",
    ]);
    expect(await change.locator(".sides .diff").textContent()).toBe("- yes+ no");
    expect(await change.getByRole("link", { name: "head case" }).getAttribute("href")).toBe(
      "#/case/run-flip-1-0000000/flipping/c?trial=1",
    );
  });

  it("gives no interval where the exact test cannot reach alpha, live and in the static export", async () => {
    // Three cases that all passed and all fail now showed [-100.0%, -100.0%] beside p = 0.250.
    const expectNoInterval = async (p: Page, url: string) => {
      await p.goto(`${url}#/compare?base=fall-0&head=fall-1`);
      const lines = p.locator(".stats").first().locator("p");
      await lines.filter({ hasText: "mean score" }).waitFor();
      const why = "no interval: 3 paired cases cannot show a regression at alpha = 0.05 (6 needed)";
      expect((await lines.allTextContents()).slice(1, 3)).toEqual([
        `pass rate 100.0% [43.9%, 100.0%] \u2192 0.0% [0.0%, 56.1%], difference -100.0% (n=3), McNemar p = 0.25 (3 worse, 0 better); ${why}`,
        `mean score 1.000 \u2192 0.000, difference -1.000 (n=3), sign-flip p = 0.25; ${why}`,
      ]);
    };
    await expectNoInterval(page, `${viewer.origin}/`);
    const { p, url } = await openExport("fall-1", "fall-0");
    await expectNoInterval(p, url);
    await p.close();
  });

  it("names the evals only one run holds and counts new failures, as niceeval compare does, live and exported", async () => {
    const expectNamed = async (p: Page, url: string) => {
      // mixed-1 holds throwing and echo, throws only throwing.
      await p.goto(`${url}#/compare?base=throws&head=mixed-1`);
      await p.locator(".evals-only").waitFor();
      expect(await p.locator(".evals-only li").allTextContents()).toEqual([
        "evals only in head: echo",
      ]);
      // Three cases that passed and fail now: three new failures, overall and in their eval.
      await p.goto(`${url}#/compare?base=fall-0&head=fall-1`);
      const transitions = p.locator(".stats p:first-of-type");
      await transitions.first().waitFor();
      expect(await transitions.first().textContent()).toMatch(/ \u00b7 3 new failures$/);
      expect(await p.locator(".evals-only").count()).toBe(0);
    };
    await expectNamed(page, `${viewer.origin}/`);
    await page.goto(`${viewer.origin}/#/compare?base=mixed-1&head=throws`);
    await page.locator(".evals-only").waitFor();
    expect(await page.locator(".evals-only").textContent()).toBe("evals only in base: echo");
    const mixed = await openExport("mixed-1", "throws");
    await mixed.p.goto(`${mixed.url}#/compare?base=${THROWS}&head=run-mixed-1-000000`);
    await mixed.p.locator(".evals-only").waitFor();
    expect(await mixed.p.locator(".evals-only").textContent()).toBe("evals only in head: echo");
    await mixed.p.close();
    const fall = await openExport("fall-1", "fall-0");
    await fall.p.goto(`${fall.url}#/compare?base=run-fall-0-0000000&head=run-fall-1-0000000`);
    await fall.p.locator(".stats").first().waitFor();
    expect(await fall.p.locator(".stats p").first().textContent()).toMatch(/3 new failures$/);
    await fall.p.close();
  });

  it("links each changed case to its base and head case pages", async () => {
    await page.goto(`${viewer.origin}/#/compare?base=base&head=head`);
    const change = page.locator("li.reg[data-case=case-3]");
    await change.waitFor();
    expect(await change.getByRole("link", { name: "base case" }).getAttribute("href")).toBe(
      `#/case/${fixture.baseId}/greetings/case-3?trial=0`,
    );
    await change.getByRole("link", { name: "head case" }).click();
    await page.locator(".trials .trial").first().waitFor();
    expect(new URL(page.url()).hash).toBe(`#/case/${fixture.headId}/greetings/case-3?trial=0`);
  });

  it("gives a run named by its name or latest~N its id, so its links stay its own", async () => {
    await page.goto(`${viewer.origin}/#/run/head?evalId=greetings`);
    // The page's CSP allows no string evaluated as code: the URL is read from here.
    const wanted = `#/run/${fixture.headId}?evalId=greetings`;
    const deadline = Date.now() + 10_000;
    while (new URL(page.url()).hash !== wanted && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(new URL(page.url()).hash).toBe(wanted);
    // The page built anew for the id: its case links name the id, and none the name.
    await page.locator(`.vt-row a[href^="#/case/${fixture.headId}/"]`).first().waitFor();
    expect(await page.locator('.vt-row a[href^="#/case/head/"]').count()).toBe(0);
  });
});

describe("counts", () => {
  it("name one thing in the singular", async () => {
    await page.goto(`${viewer.origin}/#/run/throws?q=boom`);
    await page.reload();
    await page.locator("#count", { hasText: /^1 / }).waitFor();
    expect(await page.locator("#count").textContent()).toBe("1 attempt");
    await page.goto(`${viewer.origin}/#/compare?base=mixed-1&head=mixed-2`);
    const echo = page.locator("section.box", { has: page.locator("h3", { hasText: /^echo$/ }) });
    await echo.waitFor();
    expect(await echo.locator("p").first().textContent()).toMatch(/^1 paired case · /);
  });
});

describe("mean scores", () => {
  it("read as lower bounds (≥) where some scores are partial, as the CLI prints them", async () => {
    // Every attempt of head has the judge without evidence: its scores are partial.
    await page.goto(`${viewer.origin}/#/run/head`);
    await page.reload();
    await page.locator("table.evals tbody tr").first().waitFor();
    expect(await page.locator(".meta").first().textContent()).toMatch(/mean score \u2265 0\.\d{3}/);
    const cells = await page
      .locator("table.evals tbody tr")
      .first()
      .locator("td")
      .allTextContents();
    // A lower bound has no interval (its partial scores count missing points as 0).
    expect(cells[7]).toMatch(/^\u2265 0\.\d{3} n=14 \(7 cases\), 14 partial$/);
    // The pass rate beside it says what its interval counts too, as the Runs list does.
    expect(cells[6]).toMatch(/^[\d.]+% \[[\d.]+%, [\d.]+%\] n=14 \(7 cases\)$/);
    await page.goto(`${viewer.origin}/#/`);
    const head = page.locator("tr.run-row", { hasText: "head" });
    await head.waitFor();
    expect(await head.locator("td").nth(8).textContent()).toMatch(
      /^\u2265 0\.\d{3} n=14 \(7 cases\)$/,
    );
    // Their scores are complete: no mark.
    const mixed = page.locator("tr.run-row", { hasText: "mixed-2" });
    expect(await mixed.locator("td").nth(8).textContent()).toMatch(/^\d\.\d{3} n=\d+$/);
  });
});

describe("a partial score", () => {
  it("reads as a lower bound, ≥ 0.500, on the case page and in the table, as mean scores do", async () => {
    // head's tone-judge has no evidence: case-0 earned exact's point, the judge's kept in max.
    await page.goto(`${viewer.origin}/#/case/${fixture.headId}/greetings/case-0`);
    await page.reload();
    await page.locator(".trials .trial").first().waitFor();
    expect(await page.locator(".trials .trial .num").first().textContent()).toBe("\u2265 0.500");
    expect(await page.locator("p", { hasText: /^score / }).textContent()).toBe(
      "score \u2265 0.500 \u00b7 earned 1 of 2 (partial)",
    );
    await page.goto(`${viewer.origin}/#/run/head`);
    await page.reload();
    await shownCases(page);
    expect(await page.locator(".vt-row[data-case=case-0] .num").nth(1).textContent()).toBe(
      "\u2265 0.500",
    );
  });
});

/** A run `name` of the head run's first `n` attempts, ended as `end` says (left running without). */
async function storePart(runId: string, name: string, n: number, end?: RunEnd): Promise<void> {
  await fixture.store.beginRun({
    ...manifest(runId, {
      evals: ["greetings"],
      name,
      startedAt: end?.endedAt ?? new Date().toISOString(),
    }),
    // Written by this process, which lives on: a run left running is running, not crashed.
    writer: thisWriter(),
  });
  const records: AttemptRecord[] = [];
  for await (const record of fixture.store.streamAttempts(fixture.headId)) records.push(record);
  await fixture.store.appendAttempts(runId, records.slice(0, n));
  if (end) await fixture.store.finishRun(runId, end);
}

describe("a run that did not finish", () => {
  it("says it stopped, how many attempts are stored, and the resume command `show` prints", async () => {
    const cutId = "run-cut-00000000";
    await storePart(cutId, "cut", 5, {
      status: "crashed",
      endedAt: "2025-01-07T00:01:00.000Z",
      summaries: [],
    });
    await page.goto(`${viewer.origin}/#/run/cut`);
    await page.reload();
    const notice = page.locator(".notice");
    await notice.waitFor();
    expect(await notice.textContent()).toBe(
      "This run stopped before it finished (crashed): 5 attempts are stored. niceeval run --resume run-cut- runs the rest.",
    );
    // The viewer was started without --store: its command names none, as the default store's.
    const named = await startViewer({ store: fixture.store, storeFlag: fixture.path });
    try {
      await page.goto(`${named.url}#/run/cut`);
      await page.locator(".notice").waitFor();
      const command = await page.locator(".notice code").textContent();
      expect(command).toBe(`niceeval run --resume run-cut- --store ${fixture.path}`);
      const show = await runCli(["show", cutId, "--store", fixture.path], dir);
      expect(show.stdout).toContain(`\`${command}\` runs the rest`);
    } finally {
      await named.close();
    }
  });

  it("says what finishes an imported run where it ran, not a resume here", async () => {
    const runId = "run-imp-00000000";
    await fixture.store.beginRun({
      ...manifest(runId, { evals: ["greetings"], name: "imported-cut" }),
      imported: { at: "2025-01-07T00:02:00.000Z" },
    });
    await fixture.store.finishRun(runId, {
      status: "interrupted",
      endedAt: "2025-01-07T00:01:00.000Z",
      summaries: [],
    });
    await page.goto(`${viewer.origin}/#/run/imported-cut`);
    await page.reload();
    const notice = page.locator(".notice");
    await notice.waitFor();
    const text = await notice.textContent();
    expect(text).toContain("But it was imported, and did not finish where it ran: finish it there");
    expect(text).not.toContain("`");
    expect(await notice.locator("code").count()).toBe(0);
  });
});

describe("coming back from a case", () => {
  it("finds the cases table where it was left: scrolled, with the same row selected", async () => {
    const runId = "run-long-00000000";
    await fixture.store.beginRun(manifest(runId, { evals: ["greetings"], name: "long" }));
    let first: AttemptRecord | undefined;
    for await (const record of fixture.store.streamAttempts(fixture.headId)) {
      first = record;
      break;
    }
    const caseIds = Array.from({ length: 300 }, (_, i) => `case-${String(i).padStart(3, "0")}`);
    await fixture.store.appendAttempts(
      runId,
      caseIds.map((caseId) => ({ ...first!, caseId, trial: 0 })),
    );
    await fixture.store.finishRun(runId, {
      status: "finished",
      endedAt: new Date().toISOString(),
      summaries: [],
    });
    await page.goto(`${viewer.origin}/#/run/long`);
    await page.reload();
    await shownCases(page);
    const table = page.locator(".vt");
    await table.evaluate((el) => {
      el.scrollTop = 4000;
    });
    const row = page.locator(".vt-row[data-case=case-150]");
    await row.click();
    await page.keyboard.press("Enter");
    await page.locator("h2", { hasText: "case-150" }).first().waitFor();
    await page.goBack();
    await page.locator(".vt-row.sel[data-case=case-150]").waitFor();
    expect(await table.evaluate((el) => el.scrollTop)).toBe(4000);
  });
});

describe("a run exported while it was still running", () => {
  it("is said to be a snapshot, by the export command and on the page", async () => {
    await storePart("run-live-00000000", "live", 3);
    const file = join(dir, "live.html");
    const exported = await runCli(["export", "live", "--html", file, "--store", fixture.path], dir);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toContain(
      "niceeval: warning: run run-live is still running: the export holds the 3 attempts stored so far; export it again once the run has finished",
    );
    const p = await browser.context.newPage();
    watch(p);
    await p.goto(`${pathToFileURL(file).href}#/run/live`);
    const notice = p.locator(".notice");
    await notice.waitFor();
    expect(await notice.textContent()).toBe(
      "This run was still running when it was exported: this page holds the 3 attempts stored by then, not the whole run.",
    );
    await p.close();
  });
});

describe("a run that failed outside its cases", () => {
  it("lists the files that failed to load, the evals left out and the errors that belonged to no case", async () => {
    await storePart("run-outside-000000", "outside", 2, {
      status: "finished",
      endedAt: "2025-01-08T00:01:00.000Z",
      summaries: [],
      loadErrors: [
        { file: "evals/broken.eval.ts", message: "SyntaxError: <b>nope</b>" },
        {
          file: "evals/qa.eval.ts",
          message: 'exports "b" and "c" were left out: they have the eval id "qa" of export "a"',
          leftOut: ["b", "c"],
        },
      ],
      runErrors: ["uncaught exception outside any case: refresher crashed"],
    });
    await page.goto(`${viewer.origin}/#/run/outside`);
    await page.reload();
    const notice = page.locator(".notice", { hasText: "failed to load" });
    await notice.waitFor();
    expect(await notice.locator("li").allTextContents()).toEqual([
      "evals/broken.eval.ts: SyntaxError: <b>nope</b>",
      'evals/qa.eval.ts: exports "b" and "c" were left out: they have the eval id "qa" of export "a"',
      "uncaught exception outside any case: refresher crashed",
    ]);
    expect(await notice.textContent()).toContain("1 file failed to load (the run fails):");
    expect(await notice.textContent()).toContain("2 evals left out (the run fails):");
    expect(await notice.textContent()).toContain(
      "1 error in user code belonged to no case (the run fails):",
    );
  });

  it("says so on the runs page too, as niceeval runs does, beside the run's status", async () => {
    await page.goto(`${viewer.origin}/#/`);
    await page.reload();
    const row = page.locator("tr.run-row", { hasText: "outside" });
    await row.waitFor();
    expect(await row.locator("td").nth(5).textContent()).toBe(
      "finished1 file failed to load · 2 evals left out · 1 error outside any case",
    );
    expect(await row.locator(".err").textContent()).toBe(
      "1 file failed to load · 2 evals left out · 1 error outside any case",
    );
  });
});

describe("sample sizes", () => {
  it("name the cases an interval counts, with trials, as the CLI does (n=14 (7 cases))", async () => {
    // head ran 7 cases twice: its intervals count 7 cases.
    await page.goto(`${viewer.origin}/#/`);
    await page.reload();
    const head = page.locator("tr.run-row", { hasText: "head" });
    await head.waitFor();
    expect(await head.locator("td").nth(7).textContent()).toMatch(/\] n=14 \(7 cases\)$/);
    // Without trials, the attempts are the cases.
    const mixed = page.locator("tr.run-row", { hasText: "mixed-2" });
    expect(await mixed.locator("td").nth(7).textContent()).toMatch(/\] n=4$/);
    await page.goto(`${viewer.origin}/#/run/head`);
    await page.reload();
    await page.locator("table.evals tbody tr").first().waitFor();
    expect(await page.locator(".meta").first().textContent()).toMatch(
      /pass rate [\d.]+% \[[^\]]+\] n=14 \(7 cases\) · mean/,
    );
    const cells = await page
      .locator("table.evals tbody tr")
      .first()
      .locator("td")
      .allTextContents();
    expect(cells[7]).toMatch(/ n=14 \(7 cases\), 14 partial$/);
  });
});

describe("history charts", () => {
  it("name their lines in a legend", async () => {
    await page.goto(`${viewer.origin}/#/?evalId=echo`);
    await page.reload();
    const trend = page.locator(".charts figure", { hasText: "echo: pass rate and mean score" });
    await trend.locator("canvas").waitFor();
    expect(await trend.locator(".legend li").allTextContents()).toEqual([
      "pass rate",
      "mean score",
      "95% bands",
    ]);
    // Every mean score is complete: nothing is said of lower bounds.
    expect(await trend.locator("p").count()).toBe(0);
  });

  it("draw a mean score that is only a lower bound apart from the line, named ≥ in the legend and under the chart", async () => {
    await page.goto(`${viewer.origin}/#/?evalId=judged`);
    await page.reload();
    const trend = page.locator(".charts figure", {
      hasText: "judged: pass rate and mean score over 2 runs",
    });
    await trend.locator("canvas").waitFor();
    expect(await trend.locator(".legend li").allTextContents()).toEqual([
      "pass rate",
      "mean score",
      "\u2265 lower bound of the mean score",
      "95% bands",
    ]);
    expect(await trend.locator("p").textContent()).toBe(
      "mean score only a lower bound in 1 run (partial scores), drawn apart from its line: \u2265 0.500 (judged-1)",
    );
    // As the runs table reads the same mean.
    const row = page.locator("tr.run-row", { hasText: "judged-1" });
    expect(await row.locator("td").nth(8).textContent()).toMatch(/^\u2265 0\.500 n=3$/);
  });
});

describe("an eval filter the run does not have", () => {
  it("says so above the empty table, naming the run's evals", async () => {
    await page.goto(`${viewer.origin}/#/run/${fixture.headId}?evalId=nope`);
    await page.reload();
    const notice = page.locator(".notice", { hasText: "no eval" });
    await notice.waitFor();
    expect(await notice.textContent()).toBe(
      'This run has no eval "nope" (its evals: greetings), so no attempt matches the eval filter. Choose another in the eval list.',
    );
  });
});

describe("the runs list", () => {
  it("marks a filtered run and shows its tags, as niceeval runs does", async () => {
    const runId = "run-tagged-00000000";
    await fixture.store.beginRun({
      ...manifest(runId, { evals: ["greetings"], name: "tagged", tags: { env: "ci" } }),
      filter: "greetings/case-1",
    });
    await fixture.store.finishRun(runId, {
      status: "finished",
      endedAt: new Date().toISOString(),
      summaries: [],
    });
    await page.goto(`${viewer.origin}/#/`);
    await page.reload();
    const row = page.locator("tr.run-row", { hasText: "tagged" });
    await row.waitFor();
    const name = row.locator("td").nth(1);
    expect(await name.textContent()).toBe(`tagged ${runId.slice(0, 8)} [filtered]env=ci`);
    expect(await name.locator("[title]").getAttribute("title")).toBe("--filter greetings/case-1");
    const listed = await runCli(["runs", "--store", fixture.path], dir);
    expect(listed.stdout).toMatch(/tagged \[filtered\]/);
  });
});

describe("the pages threw no error", () => {
  it("in any test above", () => {
    expect(errors).toEqual([]);
  });
});
