import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { hostname, networkInterfaces } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCliArgs } from "../../src/cli/args.js";
import { main } from "../../src/cli/main.js";
import type { AttemptRecord } from "../../src/eval/record.js";
import { defineSuite } from "../../src/eval/suite.js";
import { evalFigures } from "../../src/report/figures.js";
import { createScorer } from "../../src/scorers/index.js";
import { wilsonInterval } from "../../src/stats/interval.js";
import { thisWriter } from "../../src/store/writer.js";
import type { RowPage, RunDetail, RunRow } from "../../src/viewer/api.js";
import type { RunCharts } from "../../src/viewer/charts.js";
import { viewCommand } from "../../src/viewer/command.js";
import { sessionCookie, startViewer, type Viewer } from "../../src/viewer/server.js";
import { attempt, manifest } from "../store/fixtures.js";
import { ensureViewerApp } from "./app.js";
import { judgedEval, recordRun, storeWithRuns } from "./fixture.js";

let fixture: Awaited<ReturnType<typeof storeWithRuns>>;
let viewer: Viewer;
let cookie: string;

const api = async <T>(path: string, headers: Record<string, string> = { cookie }) => {
  const res = await fetch(`${viewer.origin}${path}`, { headers, redirect: "manual" });
  return { status: res.status, body: (await res.json()) as T, res };
};

beforeAll(async () => {
  await ensureViewerApp();
  fixture = await storeWithRuns();
  viewer = await startViewer({ store: fixture.store });
  const res = await fetch(viewer.url, { redirect: "manual" });
  expect(res.status).toBe(302);
  expect(res.headers.get("location")).toBe("/");
  const setCookie = res.headers.get("set-cookie") ?? "";
  expect(setCookie).toMatch(/HttpOnly/);
  expect(setCookie).toMatch(/SameSite=Strict/);
  cookie = setCookie.split(";")[0]!;
});

afterAll(async () => {
  await viewer?.close();
  await fixture?.cleanup();
});

describe("the viewer's session", () => {
  it("binds to loopback and prints a URL with a token", () => {
    expect(viewer.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{32}$/);
  });

  it("answers 401 without the token or its cookie, and with a wrong one", async () => {
    for (const path of ["/", "/assets/app.js", "/api/runs", `/api/runs/${fixture.headId}`]) {
      expect((await fetch(`${viewer.origin}${path}`)).status).toBe(401);
    }
    expect((await fetch(`${viewer.origin}/api/runs?token=nope`)).status).toBe(401);
    const wrong = await fetch(`${viewer.origin}/api/runs`, {
      headers: { cookie: `${sessionCookie(viewer.token)}=forged` },
    });
    expect(wrong.status).toBe(401);
  });

  it("accepts the token on an API call and the cookie afterwards", async () => {
    const withToken = await fetch(`${viewer.origin}/api/runs?token=${viewer.token}`);
    expect(withToken.status).toBe(200);
    expect(withToken.headers.get("set-cookie")).toContain(`${sessionCookie(viewer.token)}=`);
    expect((await api("/api/runs")).status).toBe(200);
  });

  it("serves the page Vite built, with a strict Content-Security-Policy and no inline script", async () => {
    const res = await fetch(`${viewer.origin}/`, { headers: { cookie } });
    const html = await res.text();
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    const src = html.match(
      /<script type="module" crossorigin src="(\/assets\/app-[\w-]+\.js)">/,
    )?.[1];
    expect(src).toBeTruthy();
    expect(html).not.toMatch(/<script>(?!<)/);
    expect(html).not.toMatch(/(src|href)="https?:/);
    const js = await fetch(`${viewer.origin}${src}`, { headers: { cookie } });
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toContain("text/javascript");
    expect(await js.text()).toContain("niceeval-data");
    const css = html.match(/href="(\/assets\/app-[\w-]+\.css)"/)?.[1];
    expect((await fetch(`${viewer.origin}${css}`, { headers: { cookie } })).status).toBe(200);
    expect(
      (await fetch(`${viewer.origin}/assets/nothing.js`, { headers: { cookie } })).status,
    ).toBe(404);
  });

  it("is read-only: GET and HEAD answer, anything else is 405", async () => {
    const head = await fetch(`${viewer.origin}/api/runs`, { method: "HEAD", headers: { cookie } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    for (const method of ["POST", "PUT", "DELETE"]) {
      const res = await fetch(`${viewer.origin}/api/runs`, { method, headers: { cookie } });
      expect(res.status).toBe(405);
      expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    }
  });
});

describe("the viewer's API over a store of real runs", () => {
  it("lists runs newest first with pass rates and their intervals", async () => {
    const { body } = await api<{ runs: RunRow[] }>("/api/runs");
    expect(body.runs.map((r) => r.name)).toEqual(["head", "base"]);
    const [head] = body.runs;
    expect(head!.attempts).toBe(14);
    expect(head!.passRate).toBeCloseTo(10 / 14);
    expect(head!.passRateInterval!.low).toBeLessThan(head!.passRate!);
    expect((await api<{ runs: RunRow[] }>("/api/runs?branch=nope")).body.runs).toEqual([]);
  });

  it("says per eval of a listed run whether its mean score is only a lower bound (partial scores)", async () => {
    // The judge answered in the first run; in the second it could not be reached.
    for (const [i, reachable] of [true, false].entries())
      await recordRun(fixture.store, {
        runId: `run-judged-${i}-000000`,
        name: `judged-${i}`,
        startedAt: `2024-09-0${1 + i}T00:00:00.000Z`,
        evals: [judgedEval(reachable)],
        trials: 1,
      });
    const { body } = await api<{ runs: RunRow[] }>("/api/runs?evalId=judged");
    expect(body.runs.map((r) => r.name)).toEqual(["judged-1", "judged-0"]);
    const [unreached, reached] = body.runs.map((r) => r.perEval[0]);
    expect(reached).toMatchObject({
      evalId: "judged",
      passRate: 1,
      meanScore: 1,
      partialCases: 0,
      meanScoreLowerBound: false,
    });
    // Half the points of each case are the judge's, kept in max: the mean 0.5 is a lower bound.
    expect(unreached).toMatchObject({
      evalId: "judged",
      passRate: 1,
      meanScore: 0.5,
      partialCases: 3,
      meanScoreLowerBound: true,
    });
    // The same notion the runs table reads for its "≥".
    expect(body.runs[0]!.partialAttempts).toBe(3);
    // The greetings runs' judge never answered: every mean of theirs is a lower bound.
    const greetings = (await api<{ runs: RunRow[] }>("/api/runs?evalId=greetings")).body.runs;
    expect(greetings.map((r) => r.perEval[0]!.meanScoreLowerBound)).toEqual([true, true]);
  });

  it("lists runs filtered on an eval with that eval's own figures, as niceeval runs --eval does", async () => {
    // A run of two evals: judged (3 cases, all pass) and one whose 4 cases all fail.
    const failing = defineSuite<string, string>({
      id: "all-fail",
      cases: ["w", "x", "y", "z"].map((id) => ({ id, input: id, expected: "never" })),
      target: (input) => input,
      scorers: [createScorer({ name: "same", score: () => ({ score: 0 }) })],
    });
    await recordRun(fixture.store, {
      runId: "run-two-evals-000000",
      name: "two-evals",
      startedAt: "2024-10-01T00:00:00.000Z",
      evals: [judgedEval(true), failing],
      trials: 1,
    });
    const whole = (await api<{ runs: RunRow[] }>("/api/runs")).body.runs.find(
      (r) => r.name === "two-evals",
    )!;
    expect(whole).toMatchObject({ cases: 7, attempts: 7, passed: 3, failed: 4 });
    const [judged] = (await api<{ runs: RunRow[] }>("/api/runs?evalId=judged")).body.runs;
    expect(judged).toMatchObject({
      name: "two-evals",
      cases: 3,
      attempts: 3,
      passed: 3,
      failed: 0,
      passRate: 1,
      passRateInterval: wilsonInterval(3, 3),
      meanScore: 1,
    });
    const [failed] = (await api<{ runs: RunRow[] }>("/api/runs?evalId=all-fail")).body.runs;
    expect(failed).toMatchObject({ cases: 4, passed: 0, failed: 4, passRate: 0, meanScore: 0 });
  });

  it("gives a run's per-eval figures and the labels for the scorer filter", async () => {
    const { body } = await api<RunDetail>("/api/runs/head");
    expect(body.run.runId).toBe(fixture.headId);
    expect(body.labels).toEqual(["exact", "tone-judge"]);
    expect(body.evals[0]).toMatchObject({ evalId: "greetings", attempts: 14, passed: 10 });
    // The reports' figures, intervals and all: with trials, over the cases, pass@1's for the
    // pass rate, and the same on the runs list.
    const view = body.evals[0]!;
    const figures = evalFigures(view.summary!);
    expect(view.passRateInterval).toEqual(figures.passRate.interval);
    expect(view.meanScoreInterval).toEqual(figures.meanScore.interval);
    expect(figures.passRate.cases).toBe(7);
    expect(view.passRateInterval!.low).toBeCloseTo(
      view.summary!.trials!.byK[0]!.passAtK.interval!.low,
      12,
    );
    expect(body.run.passRateInterval).toEqual(figures.passRate.interval);
    expect(body.run.perEval[0]!.passRateInterval).toEqual(figures.passRate.interval);
    expect(body.run.perEval[0]!.meanScoreInterval).toEqual(figures.meanScore.interval);
  });

  it("gives a run that stopped without summaries (crashed) its per-eval figures, folded from its attempts", async () => {
    const head = (await api<RunDetail>("/api/runs/head")).body.evals[0]!;
    const cutId = "run-cut-00000000";
    // Its eval ran as many trials as the head run's, which its figures are compared with.
    const cutManifest = manifest(cutId, {
      evals: ["greetings"],
      name: "cut",
      startedAt: "2025-01-03T00:00:00.000Z",
    });
    cutManifest.evals[0]!.trials = (await fixture.store.getRun(fixture.headId))!.evals[0]!.trials;
    await fixture.store.beginRun(cutManifest);
    const records: AttemptRecord[] = [];
    for await (const record of fixture.store.streamAttempts(fixture.headId)) records.push(record);
    await fixture.store.appendAttempts(cutId, records);
    await fixture.store.finishRun(cutId, {
      status: "crashed",
      endedAt: "2025-01-03T00:01:00.000Z",
      summaries: [],
    });
    const cut = (await api<RunDetail>(`/api/runs/${cutId}`)).body.evals[0]!;
    expect(head.meanScore).not.toBeNull();
    expect(cut).toMatchObject({
      evalId: "greetings",
      attempts: head.attempts,
      passed: head.passed,
      meanScore: head.meanScore,
      scoredCases: head.scoredCases,
      partialCases: head.partialCases,
    });
    expect(cut.meanScoreInterval).toEqual(head.meanScoreInterval);
  });

  it("gives a run in progress its per-eval figures, mean score included, folded from its attempts", async () => {
    const liveId = "run-live-00000000";
    await fixture.store.beginRun({
      ...manifest(liveId, { evals: ["greetings"], startedAt: "2025-01-04T00:00:00.000Z" }),
      writer: thisWriter(),
    });
    const records: AttemptRecord[] = [];
    for await (const record of fixture.store.streamAttempts(fixture.headId)) records.push(record);
    await fixture.store.appendAttempts(liveId, records.slice(0, 6));
    const { body } = await api<RunDetail>(`/api/runs/${liveId}`);
    expect(body.run.status).toBe("running");
    expect(body.run.meanScore).not.toBeNull();
    expect(body.evals[0]).toMatchObject({
      evalId: "greetings",
      attempts: 6,
      meanScore: body.run.meanScore,
      scoredCases: 6,
      partialCases: 6,
    });
    // Six passing attempts score alike: an interval of no width would claim certainty.
    expect(body.evals[0]!.meanScoreInterval).toBeNull();
    // Kept while nothing is added, folded again when attempts come in.
    expect((await api<RunDetail>(`/api/runs/${liveId}`)).body).toEqual(body);
    await fixture.store.appendAttempts(liveId, records.slice(6, 9));
    const later = (await api<RunDetail>(`/api/runs/${liveId}`)).body;
    expect(later.evals[0]).toMatchObject({ attempts: 9, scoredCases: 9 });
    // case-3 fails in head: the scores now vary, but they are partial (lower bounds, their
    // missing points counted as 0), so their mean still has no interval.
    expect(later.evals[0]!.meanScoreInterval).toBeNull();
    expect(later.evals[0]!.partialCases).toBe(9);
  });

  it("says a run whose writer died is crashed, though its detail was kept while it ran", async () => {
    const writer = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    const deadId = "run-dies-00000000";
    await fixture.store.beginRun({
      ...manifest(deadId, { evals: ["greetings"], startedAt: "2025-01-05T00:00:00.000Z" }),
      writer: { pid: writer.pid!, host: hostname() },
    });
    const records: AttemptRecord[] = [];
    for await (const record of fixture.store.streamAttempts(fixture.headId)) records.push(record);
    await fixture.store.appendAttempts(deadId, records.slice(0, 3));
    expect((await api<RunDetail>(`/api/runs/${deadId}`)).body.run.status).toBe("running");
    const exited = new Promise((resolve) => writer.once("exit", resolve));
    writer.kill("SIGKILL");
    await exited;
    // Nothing more is stored: only the writer's death says the run crashed.
    expect((await api<RunDetail>(`/api/runs/${deadId}`)).body.run.status).toBe("crashed");
  });

  it("rates a crashed run without summaries alike in its runs line, its header and its evals, the attempts cut off left out", async () => {
    const writer = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    const crashedId = "run-cutoff-00000000";
    await fixture.store.beginRun({
      ...manifest(crashedId, { evals: ["alpha"], startedAt: "2025-01-06T00:00:00.000Z" }),
      writer: { pid: writer.pid!, host: hostname() },
    });
    const passed = attempt("alpha", 0);
    const cut = [1, 2].map((index) => {
      const record = attempt("alpha", index, { verdict: "errored" });
      record.error = { message: "interrupted by SIGINT", where: "run", interrupted: true };
      return record;
    });
    await fixture.store.appendAttempts(crashedId, [passed, ...cut]);
    const exited = new Promise((resolve) => writer.once("exit", resolve));
    writer.kill("SIGKILL");
    await exited;
    // 100% of the one attempt judged, not 33.3% of 3, wherever the viewer shows it.
    const rated = { attempts: 3, errored: 2, interrupted: 2, passRate: 1 };
    const listed = (await api<{ runs: RunRow[] }>("/api/runs")).body.runs.find(
      (r) => r.runId === crashedId,
    );
    expect(listed).toMatchObject({ status: "crashed", ...rated });
    expect(listed!.passRateInterval).toEqual(wilsonInterval(1, 1));
    const { body } = await api<RunDetail>(`/api/runs/${crashedId}`);
    // Its page folds its attempts, as `show` does, so it also knows none of its scores was partial.
    expect(body.run).toEqual({ ...listed, partialAttempts: 0 });
    expect(body.evals[0]).toMatchObject(rated);
    expect(body.evals[0]!.passRateInterval).toEqual(listed!.passRateInterval);
  });

  it("pages attempts on the server, filtered by verdict, state, label and text", async () => {
    const base = `/api/runs/${fixture.headId}/attempts`;
    const all = (await api<RowPage>(`${base}?limit=5`)).body;
    expect(all.total).toBe(14);
    expect(all.items).toHaveLength(5);
    const failed = (await api<RowPage>(`${base}?verdict=failed`)).body;
    expect(failed.items.map((r) => `${r.caseId}#${r.trial}`)).toEqual([
      "case-3#0",
      "case-3#1",
      "hostile#0",
      "hostile#1",
    ]);
    expect(failed.items[0]!.why).toMatch(/^exact: .*threshold 0.5/);
    expect((await api<RowPage>(`${base}?state=unavailable`)).body.total).toBe(14);
    expect((await api<RowPage>(`${base}?label=tone-judge`)).body.total).toBe(14);
    expect((await api<RowPage>(`${base}?q=goodbye`)).body.total).toBe(2);
    const page2 = (await api<RowPage>(`${base}?offset=10&limit=10`)).body;
    expect(page2).toMatchObject({ total: 14, offset: 10 });
    expect(page2.items).toHaveLength(4);
  });

  it("answers 400 naming offset and its range for an offset past what the store reads, not 500", async () => {
    for (const offset of ["9223372036854775807", "1e20"]) {
      const { status, body } = await api<{ error: string }>(
        `/api/runs/head/attempts?offset=${offset}`,
      );
      expect(status, body.error).toBe(400);
      expect(body.error).toContain("offset must be a whole number from 0 to 9007199254740991");
    }
    const last = await api<RowPage>("/api/runs/head/attempts?offset=9007199254740991");
    expect(last).toMatchObject({ status: 200, body: { total: 14, items: [] } });
  });

  it("answers 400 naming the parameter, what it got and what it takes, never an unfiltered list", async () => {
    const attempts = "/api/runs/head/attempts";
    const refused: [string, string][] = [
      [
        `${attempts}?verdict=faild`,
        'verdict must be "passed", "failed", "skipped" or "errored", got "faild" (did you mean "failed"?)',
      ],
      [`${attempts}?verdict=failed,`, 'verdict must be "passed",'],
      [
        `${attempts}?state=mismatch`,
        'state must be "matched", "mismatched", "unavailable" or "errored", got "mismatch" (did you mean "mismatched"?)',
      ],
      [`${attempts}?sort=scroe`, 'got "scroe" (did you mean "score"?)'],
      [`${attempts}?order=sideways`, 'order must be "asc" or "desc", got "sideways"'],
      [
        `${attempts}?limit=abc`,
        'limit must be a whole number from 1 (at most 1000 are given), got "abc"',
      ],
      [
        `${attempts}?limit=0`,
        'limit must be a whole number from 1 (at most 1000 are given), got "0"',
      ],
      [
        `${attempts}?offset=-1`,
        'offset must be a whole number from 0 to 9007199254740991, got "-1"',
      ],
      [
        `${attempts}?verdicts=failed`,
        'unknown parameter "verdicts" (did you mean "verdict"?); it takes evalId, verdict, state,',
      ],
      [`${attempts}?verdict=failed&verdict=errored`, "verdict is given 2 times; give it once"],
      [
        "/api/runs?status=finsihed",
        'status must be "running", "finished", "interrupted" or "crashed", got "finsihed" (did you mean "finished"?)',
      ],
      [
        "/api/runs?limit=0",
        'limit must be a whole number from 1 (at most 10000 are listed), got "0"',
      ],
      ["/api/runs?limit=abc", 'got "abc"'],
      [
        "/api/runs?tag=noequals",
        'tag must be key=value, as tag=model=gpt-4.1 (repeat tag for more), got "noequals"',
      ],
    ];
    for (const [path, message] of refused) {
      const { status, body } = await api<{ error: string; code: string }>(path);
      expect({ path, status, code: body.code }).toEqual({
        path,
        status: 400,
        code: "VIEWER_QUERY",
      });
      expect(body.error.startsWith(`${new URL(path, viewer.origin).pathname}: `)).toBe(true);
      expect(body.error).toContain(message);
    }
    // What the pages send is taken: a list of verdicts, an order, tags, the session's token.
    const taken = await api<RowPage>(`${attempts}?verdict=failed,errored&order=asc&sort=score`);
    expect(taken).toMatchObject({ status: 200, body: { total: 4 } });
    const runs = await api<{ runs: RunRow[] }>(
      `/api/runs?status=finished&tag=a=b&tag=c=d&limit=3&token=${viewer.token}`,
    );
    expect(runs).toMatchObject({ status: 200, body: { runs: [] } });
  });

  it("returns every trial of a case, with its trace and the unavailable judgment", async () => {
    const { body } = await api<{ trials: AttemptRecord[] }>(
      `/api/runs/${fixture.headId}/attempts/greetings/case-3`,
    );
    expect(body.trials.map((t) => t.trial)).toEqual([0, 1]);
    const judge = body.trials[0]!.judgments.find((j) => j.label === "tone-judge")!;
    expect(judge).toMatchObject({ state: "unavailable", earned: null });
    expect(body.trials[0]!.trace!.steps[1]).toMatchObject({ kind: "tool-call", name: "lookup" });
  });

  it("answers 404 for a case the run does not hold, and takes the ~ escape of a .. case id", async () => {
    for (const [path, caseId] of [
      ["nope", "nope"],
      ["~..", ".."],
    ]) {
      const { status, body } = await api<{ error: string }>(
        `/api/runs/head/attempts/greetings/${path}`,
      );
      expect(status).toBe(404);
      expect(body.error).toBe(
        `run ${fixture.headId.slice(0, 8)} has no attempt of case "${caseId}" of eval "greetings"`,
      );
    }
    const found = await api<{ trials: unknown[] }>("/api/runs/head/attempts/greetings/case-3");
    expect(found.body.trials).toHaveLength(2);
  });

  it("compares two runs and finds the regression", async () => {
    const { body } = await api<{
      evals: { changes: { caseId: string; kind: string; regression: boolean }[] }[];
    }>("/api/compare?base=base&head=head");
    expect(body.evals[0]!.changes).toEqual([
      expect.objectContaining({ caseId: "case-3", kind: "pass-to-fail", regression: true }),
    ]);
  });

  it("says a run to compare the store does not hold, the branch:NAME hint on a line of its own", async () => {
    const { status, body } = await api<{ error: string }>("/api/compare?base=nope&head=latest");
    expect(status).toBe(404);
    expect(body.error).toMatch(
      /\n {2}\S+ .* \w+\nthe comparison also takes branch:NAME: .* \(\?base=branch:main&head=latest\)\.$/,
    );
  });

  it("answers 400 naming base or head for a branch: without a name, not 500 naming --baseline", async () => {
    for (const side of ["base", "head"]) {
      const other = side === "base" ? "head" : "base";
      const { status, body } = await api<{ error: string; code: string }>(
        `/api/compare?${side}=branch:&${other}=latest`,
      );
      expect({ status, code: body.code }).toEqual({ status: 400, code: "USAGE" });
      expect(body.error).toBe(
        `${side} is "branch:", which names no branch: give the branch's name, as branch:main (?base=branch:main&head=latest)`,
      );
    }
  });

  it("gives a run's charts: score bins per eval and each scorer's pass rate with its interval", async () => {
    const { body } = await api<RunCharts>(`/api/runs/head/charts`);
    expect(body.evals).toHaveLength(1);
    const [greetings] = body.evals;
    // Every attempt has the unavailable judge: its score is partial, still binned by the gate.
    expect(greetings!.bins.reduce((a, b) => a + b, 0) + greetings!.unavailable).toBe(14);
    const exact = body.scorers.find((s) => s.label === "exact")!;
    expect(exact).toMatchObject({ matched: 10, mismatched: 4, judged: 14 });
    expect(exact.passRateInterval!.low).toBeLessThan(10 / 14);
    // Two trials of 7 cases: the interval counts the cases, as every report's does.
    expect(exact.cases).toBe(7);
    expect(exact.passRateInterval).toEqual(wilsonInterval(5, 7));
    const judge = body.scorers.find((s) => s.label === "tone-judge")!;
    // No evidence is no rate, not a zero.
    expect(judge).toMatchObject({ unavailable: 14, judged: 0, passRate: null });
  });

  it("answers 404 for an unknown run, with what exists", async () => {
    const { status, body } = await api<{ error: string }>("/api/runs/nothing-like-this");
    expect(status).toBe(404);
    expect(body.error).toContain("Most recent runs");
  });
});

/** `niceeval view` on the fixture's store with `args`, as the CLI runs it: its code and stderr. */
async function viewCli(args: string[]): Promise<{ code: number; stderr: string }> {
  const stderr: string[] = [];
  const code = await main(["view", ...args, "--store", fixture.path], {
    cwd: dirname(fixture.path),
    env: {},
    stdoutFd: 1,
    stderr: (t) => stderr.push(t),
    isTTY: false,
  });
  return { code, stderr: stderr.join("") };
}

describe("niceeval view and export arguments", () => {
  it("parses view with loopback defaults, and export with a baseline", () => {
    expect(parseCliArgs(["view"])).toEqual({
      command: "view",
      host: "127.0.0.1",
      port: 7420,
      open: false,
    });
    expect(
      parseCliArgs(["export", "latest", "--html", "r.html", "--baseline", "latest~1"]),
    ).toEqual({ command: "export", run: "latest", html: "r.html", baseline: "latest~1" });
    expect(() => parseCliArgs(["export", "latest"])).toThrow(/--html <file>/);
    expect(parseCliArgs(["view", "--base", "branch:main", "--head", "latest"])).toMatchObject({
      command: "view",
      compare: { base: "branch:main", head: "latest" },
    });
    expect(() => parseCliArgs(["view", "--base", "latest~1"])).toThrow(
      "niceeval view --base needs --head too: the two runs to open on the comparison of (niceeval view --base <run> --head <run>)",
    );
  });

  it("niceeval view on a port in use is a usage error that says what to pass, not a crash", async () => {
    const port = new URL(viewer.origin).port;
    const { code, stderr } = await viewCli(["--port", port]);
    expect(code).toBe(2);
    expect(stderr).toBe(
      `niceeval: view: port ${port} on 127.0.0.1 is in use (another viewer?); pass --port <n>, or --port 0 for any free port\n`,
    );
  });

  it("niceeval view --base with a run the store does not hold is refused before serving", async () => {
    const { code, stderr } = await viewCli(["--port", "0", "--base", "nope", "--head", "latest"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^niceeval: no run "nope"/);
    // The hint is a line of its own, after the runs the message lists.
    expect(stderr).toMatch(/\n {2}\S+ .* \w+\nview --base\/--head also takes branch:NAME: /);
  });

  it("niceeval view --base branch: without a name is refused naming --base, not --baseline", async () => {
    for (const [flag, args] of [
      ["--base", ["--base", "branch:", "--head", "latest"]],
      ["--head", ["--base", "latest", "--head", "branch:"]],
    ] as const) {
      const { code, stderr } = await viewCli(["--port", "0", ...args]);
      expect(code).toBe(2);
      expect(stderr).toBe(
        `niceeval: ${flag} is "branch:", which names no branch: give the branch's name, as branch:main (niceeval view --base branch:main --head latest)\n`,
      );
    }
  });

  it("niceeval view on every address gives a URL this machine opens and one per network address", async () => {
    const dir = dirname(fixture.path);
    const out = join(dir, "view-any.txt");
    const fd = openSync(out, "w");
    const stop = new AbortController();
    const io = { cwd: dir, env: {}, stdoutFd: fd, stderr: () => {}, isTTY: false };
    const serving = viewCommand(
      { command: "view", host: "0.0.0.0", port: 0, open: false },
      fixture.store,
      io,
      stop.signal,
    );
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && !readFileSync(out, "utf8").includes("Ctrl-C"))
      await new Promise((r) => setTimeout(r, 20));
    const printed = readFileSync(out, "utf8");
    const local = /^ {2}(http:\/\/127\.0\.0\.1:(\d+)\/\?token=\S+)$/m.exec(printed);
    expect(local, printed).not.toBeNull();
    // The URL printed first opens the viewer here (a redirect that sets the session).
    expect((await fetch(local![1]!, { redirect: "manual" })).status).toBe(302);
    const token = new URL(local![1]!).searchParams.get("token");
    const external = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a && a.family === "IPv4" && !a.internal)
      .map((a) => a!.address);
    for (const address of external)
      expect(printed).toContain(
        `  on the network: http://${address}:${local![2]}/?token=${token}\n`,
      );
    expect(printed).not.toContain("0.0.0.0");
    stop.abort();
    expect(await serving).toBe(0);
    closeSync(fd);
  });

  it("niceeval export writes one HTML file with the data embedded and no external reference", async () => {
    const dir = dirname(fixture.path);
    const file = join(dir, "report.html");
    const out = join(dir, "stdout.txt");
    const fd = openSync(out, "w");
    const stderr: string[] = [];
    const code = await main(
      ["export", "head", "--html", "report.html", "--baseline", "base", "--store", fixture.path],
      { cwd: dir, env: {}, stdoutFd: fd, stderr: (t) => stderr.push(t), isTTY: false },
    );
    closeSync(fd);
    expect({ code, stderr }).toEqual({ code: 0, stderr: [] });
    expect(readFileSync(out, "utf8")).toMatch(
      /wrote .*report\.html: run run-head, 14 attempts, compared with run-base/,
    );
    const html = readFileSync(file, "utf8");
    expect(html).toContain('<script type="application/json" id="niceeval-data">');
    expect(html).toMatch(
      /Content-Security-Policy" content="default-src 'none'; script-src 'sha256-/,
    );
    expect(html).not.toMatch(/(src|href)="https?:/);
    // The hostile output is embedded escaped: it cannot close the data element.
    expect(html).not.toContain("<script>window.__pwned");
  });
});
