import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { cliPath, runCli } from "../support/project.js";
import { launchChromium } from "../viewer/browser.js";
import {
  fromConsole,
  fromJsonReport,
  fromJunit,
  fromMarkdown,
  fromNdjson,
  fromRunDetail,
  fromRunPage,
  fromRunRow,
  type Reading,
  type RunPageText,
  type RunRowJson,
  type SummaryJson,
} from "./surface-figures.js";

// The surfaces of a run, each read as its user reads it: report files, the commands' output, the
// viewer's API from a real `niceeval view`, its pages and the HTML export in headless Chromium.

/** Open a Run page in headless Chromium and read its eval table and summary line. */
export async function readRunPage(url: string): Promise<RunPageText> {
  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    await page.goto(url);
    await page.waitForSelector("table.evals tbody tr", { state: "attached", timeout: 20_000 });
    const rows = await page.$$eval("table.evals tbody tr", (trs) =>
      trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => (td.textContent ?? "").trim())),
    );
    const meta = (await page.textContent("p.meta")) ?? "";
    return { rows, meta };
  } finally {
    await browser.close();
  }
}

/** The text of a page of the web app once it shows `ready` (a page's own words). */
export async function readPageText(url: string, ready: string): Promise<string> {
  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    await page.goto(url);
    await page.getByText(ready).first().waitFor({ state: "attached", timeout: 20_000 });
    // biome-ignore lint/performance/useDomNodeTextContent: the text as shown, a block a line
    return await page.innerText("body");
  } finally {
    await browser.close();
  }
}

/** `niceeval view` as a child process: its URL (with the token) once it printed it. */
export async function startView(
  cwd: string,
  args: readonly string[] = [],
): Promise<{ url: URL; child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [cliPath, "view", "--port", "0", ...args], {
    cwd,
    env: { ...process.env, CI: "true", NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const url = await new Promise<URL>((resolve, reject) => {
    const look = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /http:\/\/127\.0\.0\.1:\d+\/\?token=\S+/.exec(out);
      if (m) resolve(new URL(m[0]));
    };
    child.stdout!.on("data", look);
    child.stderr!.on("data", look);
    child.once("exit", (code) => reject(new Error(`niceeval view exited ${code}:\n${out}`)));
  });
  return {
    url,
    child,
    // SIGTERM, then SIGKILL if it has not ended 5 s later: no viewer outlives its test.
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const kill = setTimeout(() => child.kill("SIGKILL"), 5_000);
        child.once("exit", () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill("SIGTERM");
      }),
  };
}

/** GET a viewer API path with the session token. */
export async function viewerJson<T>(url: URL, path: string): Promise<T> {
  const target = new URL(path, url);
  target.searchParams.set("token", url.searchParams.get("token")!);
  const response = await fetch(target);
  if (!response.ok)
    throw new Error(`${target.pathname}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** Every stored surface of `run` in `dir`: show, show --json figures, runs --json, export, view. */
export async function storedSurfaces(
  dir: string,
  run: string,
  options: { browser?: boolean } = {},
): Promise<Record<string, Reading>> {
  const shown = await runCli(["show", run], dir);
  const runs = JSON.parse(
    (await runCli(["runs", "--json", "--limit", "1000"], dir)).stdout,
  ) as (RunRowJson & {
    runId: string;
    name: string | null;
  })[];
  const showJson = JSON.parse((await runCli(["show", run, "--json"], dir)).stdout) as {
    run: { runId: string };
  };
  const runId = showJson.run.runId;
  const row = runs.find((r) => r.runId === runId);
  if (!row) throw new Error(`runs --json does not list ${runId}`);
  const readings: Record<string, Reading> = {
    show: fromConsole(shown.stdout),
    runs: fromRunRow(row),
  };
  const view = await startView(dir);
  try {
    const listed = await viewerJson<{ runs: (RunRowJson & { runId: string })[] }>(
      view.url,
      "/api/runs",
    );
    readings["view /api/runs"] = fromRunRow(listed.runs.find((r) => r.runId === runId)!);
    readings["view /api/runs/:run"] = fromRunDetail(
      await viewerJson(view.url, `/api/runs/${encodeURIComponent(runId)}`),
    );
    if (options.browser) {
      const page = new URL(view.url);
      page.hash = `#/run/${encodeURIComponent(runId)}`;
      readings["view page"] = fromRunPage(await readRunPage(page.href));
    }
  } finally {
    await view.stop();
  }
  if (options.browser) {
    const file = join(dir, `export-${runId.slice(0, 8)}.html`);
    const exported = await runCli(["export", runId, "--html", file], dir);
    if (exported.code !== 0) throw new Error(`export failed: ${exported.stderr}`);
    readings["export --html"] = fromRunPage(
      await readRunPage(`file://${file}#/run/${encodeURIComponent(runId)}`),
    );
  }
  return readings;
}

/** The live surfaces of a run written with every reporter to files in `dir`. */
export async function liveSurfaces(
  dir: string,
  files: { json: string; junit: string; markdown: string },
  console: string,
  ndjson: string,
): Promise<Record<string, Reading>> {
  const json = JSON.parse(await readFile(join(dir, files.json), "utf8")) as {
    summary: SummaryJson;
  };
  return {
    json: fromJsonReport(json.summary),
    ndjson: fromNdjson(ndjson),
    junit: fromJunit(await readFile(join(dir, files.junit), "utf8")),
    markdown: fromMarkdown(await readFile(join(dir, files.markdown), "utf8")),
    console: fromConsole(console),
  };
}
