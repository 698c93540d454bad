import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AttemptRecord, emptyJudgeUsage } from "../../src/eval/record.js";
import { defineSuite } from "../../src/eval/suite.js";
import { JudgeUnavailableError } from "../../src/judge/unavailable.js";
import { masker, otelEnabled } from "../../src/otel/config.js";
import { otelSink, traceIdOf } from "../../src/otel/sink.js";
import { judgment, record, runSummary } from "../../src/report/test-support/runs.js";
import { runEvals } from "../../src/runner/run.js";
import { createScorer } from "../../src/scorers/create-scorer.js";
import { fakingSuite } from "../support/faking-suite.js";
import { deadPort, type ReceivedSpan, type Receiver, startReceiver } from "./receiver.js";

const SECRET = "s3cret-token-42";

const same = createScorer<string, string>({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});
// A judge that cannot answer: missing evidence, never a zero.
const judged = createScorer<string, string>({
  name: "judged",
  score: () => {
    throw new JudgeUnavailableError("unconfigured", "gpt-x", "no API key configured");
  },
});
const shaky = createScorer<string, string>({
  name: "shaky",
  score: ({ output }) => {
    if (output === "boom") throw new Error("shaky scorer broke");
    return { score: 0.75 };
  },
});

const suite = defineSuite<string, string>({
  id: "upper",
  cases: [
    { id: "ok", input: "a", expected: "A" },
    { id: "wrong", input: "b", expected: "X" },
    { id: "boom", input: "boom", expected: "BOOM" },
    { id: "crash", input: "crash", expected: "CRASH" },
  ],
  target: async (input) => {
    // A target whose error quotes a credential: it must not leave the process.
    if (input === "crash") throw new Error(`upstream refused Bearer ${SECRET}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
    return input === "boom" ? "boom" : input.toUpperCase();
  },
  scorers: [same, judged, shaky],
});

describe("otelSink against a loopback OTLP/HTTP receiver", () => {
  let receiver: Receiver;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(() => receiver.close());

  async function exportRun(trials = 1) {
    const warnings: string[] = [];
    const sink = await otelSink({
      version: "9.9.9",
      runName: "nightly",
      endpoint: receiver.url,
      headers: { authorization: `Bearer ${SECRET}` },
      env: {},
      stderr: (text) => warnings.push(text),
    });
    const summary = await runEvals([{ eval: suite, file: "evals/upper.eval.ts" }], {
      reporters: [sink],
      concurrency: 3,
      trials,
    });
    return { summary, warnings };
  }
  const byName = (name: string) => receiver.spans.filter((s) => s.name === name);
  const attemptSpans = () => receiver.spans.filter((s) => s.name.startsWith("case "));

  it("exports a run span, an eval span and a span per attempt, parented with real times", async () => {
    const { summary, warnings } = await exportRun(2);
    expect(warnings).toEqual([]);
    const [run] = byName("niceeval run");
    const [evalSpan] = byName("eval upper");
    expect(run).toBeDefined();
    expect(evalSpan).toBeDefined();
    expect(run!.parentSpanId).toBeUndefined();
    expect(run!.attributes).toMatchObject({
      "niceeval.run.id": summary.runId,
      "niceeval.run.name": "nightly",
      "niceeval.run.cases": 8,
      "niceeval.run.passed": 0,
      "test.suite.run.status": "failure",
    });
    expect(run!.resource).toMatchObject({ "service.name": "niceeval", "service.version": "9.9.9" });
    expect(evalSpan!.parentSpanId).toBe(run!.spanId);
    expect(evalSpan!.traceId).toBe(run!.traceId);
    expect(evalSpan!.attributes).toMatchObject({
      "test.suite.name": "upper",
      "niceeval.eval.id": "upper",
      "niceeval.eval.style": "suite",
      "niceeval.eval.file": "evals/upper.eval.ts",
      "niceeval.eval.cases": 8,
      "test.suite.run.status": "failure",
    });

    const attempts = attemptSpans();
    expect(attempts).toHaveLength(8);
    for (const span of attempts) {
      expect(span.parentSpanId).toBe(evalSpan!.spanId);
      expect(span.traceId).toBe(run!.traceId);
      expect(span.endMs).toBeGreaterThanOrEqual(span.startMs);
      expect(span.startMs).toBeGreaterThanOrEqual(evalSpan!.startMs);
      expect(span.endMs).toBeLessThanOrEqual(evalSpan!.endMs);
    }
    expect(evalSpan!.endMs).toBeLessThanOrEqual(run!.endMs);
    // The target waits 5 ms: real durations, not zero-length spans.
    const ok = attempts.filter((s) => s.attributes["niceeval.case.id"] === "ok");
    expect(ok.map((s) => s.attributes["niceeval.trial"]).sort()).toEqual([0, 1]);
    expect(ok[0]!.endMs - ok[0]!.startMs).toBeGreaterThanOrEqual(4);
    expect(ok[0]!.attributes).toMatchObject({
      "test.suite.name": "upper",
      "test.case.name": "upper/ok",
      "niceeval.run.id": summary.runId,
      "niceeval.eval.id": "upper",
      "niceeval.case.index": 0,
    });
  });

  it("exports no span for an eval a filter left without cases", async () => {
    const other = defineSuite<string, string>({
      id: "other",
      cases: [{ id: "x", input: "x", expected: "X" }],
      target: (input) => input.toUpperCase(),
      scorers: [same],
    });
    const sink = await otelSink({ version: "1", endpoint: receiver.url, env: {} });
    const summary = await runEvals([{ eval: suite }, { eval: other }], {
      reporters: [sink],
      filter: (evalId) => evalId === "other",
    });
    expect(summary.totals.evals).toBe(1);
    expect(byName("eval other")).toHaveLength(1);
    expect(byName("eval upper")).toEqual([]);
    expect(attemptSpans().map((s) => s.name)).toEqual(["case x"]);
  });

  it("exports one run: a second run given the same sink is told so, and nothing is counted lost", async () => {
    const said: string[] = [];
    const sink = await otelSink({
      version: "1",
      endpoint: receiver.url,
      env: {},
      stderr: (text) => said.push(text),
    });
    const first = await runEvals([{ eval: suite }], { reporters: [sink] });
    const spansAfterFirst = attemptSpans().length;
    const second = await runEvals([{ eval: suite }], { reporters: [sink] });
    expect(second.reportErrors).toEqual([
      expect.stringContaining(
        `otelSink: this sink already exported run ${first.runId}; an otelSink exports one run, so run ${second.runId} is not exported: call otelSink() for each run`,
      ),
    ]);
    expect(attemptSpans()).toHaveLength(spansAfterFirst);
    expect(said.join("")).not.toMatch(/not exported to/);
  });

  it("sets verdict, score and test.case.result.status on each attempt", async () => {
    await exportRun();
    const span = (caseId: string) =>
      attemptSpans().find((s) => s.attributes["niceeval.case.id"] === caseId) as ReceivedSpan;
    // Every case misses the judge: a partial score (a lower bound) and a failed gate.
    expect(span("ok").attributes).toMatchObject({
      "test.case.result.status": "fail",
      "niceeval.verdict": "errored",
      "niceeval.score.state": "partial",
      "niceeval.score.earned": 1.75,
      "niceeval.score.max": 3,
      "niceeval.score.value": 1.75 / 3,
    });
    expect(span("wrong").attributes).toMatchObject({
      "niceeval.verdict": "errored",
      "niceeval.score.earned": 0.75,
    });
    const crash = span("crash");
    expect(crash.attributes).toMatchObject({
      "test.case.result.status": "fail",
      "niceeval.verdict": "errored",
      "niceeval.score.state": "unavailable",
      "error.type": "niceeval.errored",
    });
    expect(crash.attributes["niceeval.score.value"]).toBeUndefined();
    // Nothing was earned because nothing was judged: no 0 for a dashboard to sum or average.
    expect(crash.attributes).not.toHaveProperty("niceeval.score.earned");
    expect(crash.attributes["niceeval.score.max"]).toBe(3);
    expect(crash.status.code).toBe(2);
    expect(crash.status.message).toContain("upstream refused ***");
    expect(crash.status.message).not.toContain(SECRET);
  });

  it("emits one gen_ai.evaluation.result log record per judgment, in its attempt's span", async () => {
    await exportRun();
    const attempts = attemptSpans();
    // 3 cases judged by 3 scorers; the crashed target has no judgment.
    expect(receiver.logs).toHaveLength(9);
    for (const log of receiver.logs) {
      expect(log.eventName).toBe("gen_ai.evaluation.result");
      const span = attempts.find((s) => s.spanId === log.spanId);
      expect(span, "the log's span is an attempt span").toBeDefined();
      expect(log.traceId).toBe(span!.traceId);
      expect(log.attributes["niceeval.case.id"]).toBe(span!.attributes["niceeval.case.id"]);
      expect(log.timeMs).toBeGreaterThanOrEqual(span!.startMs);
      expect(log.timeMs).toBeLessThanOrEqual(span!.endMs + 1);
    }
    const log = (caseId: string, name: string) =>
      receiver.logs.find(
        (l) =>
          l.attributes["niceeval.case.id"] === caseId &&
          l.attributes["gen_ai.evaluation.name"] === name,
      )!;
    expect(log("ok", "same").attributes).toMatchObject({
      "gen_ai.evaluation.score.value": 1,
      "gen_ai.evaluation.score.label": "pass",
      "niceeval.judgment.state": "matched",
      "niceeval.eval.id": "upper",
      "test.case.name": "upper/ok",
    });
    expect(log("wrong", "same").attributes).toMatchObject({
      "gen_ai.evaluation.score.value": 0,
      "gen_ai.evaluation.score.label": "fail",
    });
    expect(log("ok", "shaky").attributes["gen_ai.evaluation.score.value"]).toBe(0.75);

    const unavailable = log("ok", "judged");
    expect(unavailable.attributes).not.toHaveProperty("gen_ai.evaluation.score.value");
    expect(unavailable.attributes).toMatchObject({
      "gen_ai.evaluation.score.label": "unavailable",
      "niceeval.judgment.state": "unavailable",
    });
    expect(unavailable.attributes["gen_ai.evaluation.explanation"]).toContain(
      "no API key configured",
    );
    expect(unavailable.attributes).not.toHaveProperty("niceeval.judgment.earned");

    const errored = log("boom", "shaky");
    expect(errored.attributes).not.toHaveProperty("gen_ai.evaluation.score.value");
    expect(errored.attributes).toMatchObject({
      "gen_ai.evaluation.score.label": "errored",
      "error.type": "niceeval.judgment.errored",
    });
    expect(errored.attributes["gen_ai.evaluation.explanation"]).toContain("shaky scorer broke");
    expect(errored.severityNumber).toBe(13);
  });

  it("sends the configured headers but never puts a credential in the exported data", async () => {
    await exportRun();
    expect(receiver.requests.map((r) => r.path).sort()).toEqual(["/v1/logs", "/v1/traces"]);
    for (const request of receiver.requests) {
      expect(request.headers.authorization).toBe(`Bearer ${SECRET}`);
      expect(request.headers["content-type"]).toBe("application/json");
      expect(request.body).not.toContain(SECRET);
    }
  });
});

describe("otelSink fed hooks directly", () => {
  it("dates a record that never announced its start, and closes what a cancelled run left open", async () => {
    const receiver = await startReceiver();
    try {
      const sink = await otelSink({ version: "1", endpoint: receiver.url, env: {} });
      sink.onRunStart?.({ runId: "r-1", evals: 1, files: 1, concurrency: 2 });
      sink.onEvalScheduled?.({ evalId: "e", style: "score" });
      sink.onAttemptStarted?.({ evalId: "e", caseId: "never-ends", index: 1, trial: 0 });
      sink.onAttemptFinished?.(
        record({ evalId: "e", caseId: "from-elsewhere", index: 0, elapsedMs: 250 }),
      );
      await sink.onRunFinished?.(
        runSummary({
          runId: "r-1",
          totals: { evals: 1, cases: 1, passed: 1, failed: 0, errored: 0, skipped: 0 },
          ok: false,
          cancelled: true,
        }),
      );
      const span = (caseId: string) =>
        receiver.spans.find((s) => s.attributes["niceeval.case.id"] === caseId)!;
      const elsewhere = span("from-elsewhere");
      expect(elsewhere.endMs - elsewhere.startMs).toBeCloseTo(250, 0);
      expect(elsewhere.attributes["niceeval.score.value"]).toBe(1);
      expect(span("never-ends").attributes["niceeval.cancelled"]).toBe(true);
      const run = receiver.spans.find((s) => s.name === "niceeval run")!;
      expect(run.attributes["test.suite.run.status"]).toBe("aborted");
      expect(receiver.spans.find((s) => s.name === "eval e")?.parentSpanId).toBe(run.spanId);
    } finally {
      await receiver.close();
    }
  });
});

describe("otelSink and when attempts ran", () => {
  it("times an attempt announced late (run ahead by the eval process) by its record, skips stored attempts, and keeps one trace per run id", async () => {
    const receiver = await startReceiver();
    try {
      const skipped = record({ evalId: "e", caseId: "stored", index: 1, elapsedMs: 40 });
      for (const pass of [1, 2]) {
        const sink = await otelSink({
          version: "1",
          endpoint: receiver.url,
          env: {},
          // The second pass is a resumed run: "stored" was read back from the store.
          ...(pass === 2 ? { skip: (r: AttemptRecord) => r === skipped } : {}),
        });
        sink.onRunStart?.({ runId: "r-resumed", evals: 1, files: 1, concurrency: 2 });
        sink.onEvalScheduled?.({ evalId: "e", style: "suite" });
        // Announced when its record came, after it ran for 120 ms elsewhere.
        sink.onAttemptStarted?.({ evalId: "e", caseId: `ahead-${pass}`, index: 0, trial: 0 });
        sink.onAttemptFinished?.(
          record({ evalId: "e", caseId: `ahead-${pass}`, index: 0, elapsedMs: 120 }),
        );
        if (pass === 2) {
          sink.onAttemptStarted?.({ evalId: "e", caseId: "stored", index: 1, trial: 0 });
          sink.onAttemptFinished?.(skipped);
        }
        await sink.onRunFinished?.(runSummary({ runId: "r-resumed", ok: true }));
      }
      const cases = receiver.spans.filter((s) => s.name.startsWith("case "));
      expect(cases.map((s) => s.name).sort()).toEqual(["case ahead-1", "case ahead-2"]);
      for (const span of cases) expect(span.endMs - span.startMs).toBeCloseTo(120, 0);
      expect(receiver.logs.filter((l) => l.attributes["niceeval.case.id"] === "stored")).toEqual(
        [],
      );
      const runs = receiver.spans.filter((s) => s.name === "niceeval run");
      expect(runs).toHaveLength(2);
      expect(new Set(receiver.spans.map((s) => s.traceId))).toEqual(
        new Set([traceIdOf("r-resumed")]),
      );
    } finally {
      await receiver.close();
    }
  });
});

describe("otelSink and attempts that ran before their eval was scheduled", () => {
  it("starts the eval span no later than its earliest attempt, whatever order their records come in", async () => {
    const receiver = await startReceiver();
    try {
      const sink = await otelSink({ version: "1", endpoint: receiver.url, env: {} });
      sink.onRunStart?.({ runId: "r-ahead", evals: 1, files: 1, concurrency: 2 });
      // The eval process ran this eval's attempts while the engine was still busy with an
      // earlier eval: it reaches the eval only now, and their records come in a burst, the
      // short attempt's first.
      await new Promise((resolve) => setTimeout(resolve, 400));
      sink.onEvalScheduled?.({ evalId: "e", style: "suite" });
      sink.onAttemptFinished?.(record({ evalId: "e", caseId: "short", index: 0, elapsedMs: 5 }));
      sink.onAttemptFinished?.(record({ evalId: "e", caseId: "long", index: 1, elapsedMs: 300 }));
      sink.onEvalFinished?.({
        evalId: "e",
        style: "suite",
        cases: 2,
        passed: 2,
        failed: 0,
        errored: 0,
        skipped: 0,
        meanScore: 1,
        sdScore: 0,
        scoredCases: 2,
        partialCases: 0,
        judge: emptyJudgeUsage(),
        elapsedMs: 300,
      });
      await sink.onRunFinished?.(runSummary({ runId: "r-ahead", ok: true }));
      const [run] = receiver.spans.filter((s) => s.name === "niceeval run");
      const [evalSpan] = receiver.spans.filter((s) => s.name === "eval e");
      const cases = receiver.spans.filter((s) => s.name.startsWith("case "));
      expect(cases).toHaveLength(2);
      for (const span of cases) {
        expect(span.parentSpanId).toBe(evalSpan!.spanId);
        expect(span.startMs).toBeGreaterThanOrEqual(evalSpan!.startMs);
        expect(span.endMs).toBeLessThanOrEqual(evalSpan!.endMs);
      }
      expect(evalSpan!.parentSpanId).toBe(run!.spanId);
      expect(evalSpan!.startMs).toBeGreaterThanOrEqual(run!.startMs);
      // Its real span, with its own times: the long attempt's start, its last attempt's end.
      const long = cases.find((s) => s.name === "case long")!;
      expect(evalSpan!.startMs).toBeCloseTo(long.startMs, 0);
      expect(evalSpan!.attributes).toMatchObject({ "niceeval.eval.cases": 2 });
    } finally {
      await receiver.close();
    }
  });
});

describe("otelSink and its export queue", () => {
  const judged = (caseId: string, count: number) =>
    record({
      evalId: "e",
      caseId,
      index: 0,
      judgments: Array.from({ length: count }, (_, k) => judgment({ label: `j${k}` })),
    });

  it("asks the run to wait once the queue is full, until the next batch goes, and loses nothing", async () => {
    const receiver = await startReceiver(undefined, { delayMs: 50 });
    try {
      const sink = await otelSink({
        version: "1",
        endpoint: receiver.url,
        env: { OTEL_BLRP_MAX_QUEUE_SIZE: "4", OTEL_BLRP_MAX_EXPORT_BATCH_SIZE: "2" },
      });
      sink.onRunStart?.({ runId: "r-full", evals: 1, files: 1, concurrency: 1 });
      expect(sink.room?.()).toBeUndefined();
      // Six log records where four fit: admitted all the same, and the run is asked to wait.
      sink.onAttemptFinished?.(judged("six", 6));
      const wait = sink.room?.();
      expect(wait).toBeInstanceOf(Promise);
      await wait;
      expect(receiver.logs.length).toBeGreaterThanOrEqual(2);
      sink.onAttemptFinished?.(judged("two", 2));
      await sink.onRunFinished?.(runSummary({ runId: "r-full" }));
      expect(receiver.logs.map((l) => `${l.attributes["niceeval.case.id"]}`).sort()).toEqual([
        ...Array(6).fill("six"),
        ...Array(2).fill("two"),
      ]);
    } finally {
      await receiver.close();
    }
  });

  it("while exports fail, never makes the run wait: what does not fit is dropped and counted", async () => {
    const warnings: string[] = [];
    const port = await deadPort();
    const sink = await otelSink({
      version: "1",
      endpoint: `http://127.0.0.1:${port}`,
      env: { OTEL_BLRP_MAX_QUEUE_SIZE: "2" },
      timeoutMs: 200,
      stderr: (text) => warnings.push(text),
    });
    sink.onRunStart?.({ runId: "r-down", evals: 1, files: 1, concurrency: 1 });
    // A full batch goes at once, and fails.
    sink.onAttemptFinished?.(judged("first", 2));
    await expect
      .poll(() => warnings.some((w) => w.includes("export of evaluation logs")), { timeout: 5000 })
      .toBe(true);
    sink.onAttemptFinished?.(judged("then", 5));
    expect(sink.room?.()).toBeUndefined();
    await sink.onRunFinished?.(runSummary({ runId: "r-down" }));
    const logs = warnings.find((w) =>
      w.startsWith("niceeval: OpenTelemetry: 7 of 7 evaluation logs"),
    );
    expect(logs).toMatch(
      /\(\d+ exports? failed, and (\d+ batch(es)? (was|were) not sent and )?3 did not fit in the export queue while exports kept failing\)\n$/,
    );
  });
});

describe("otelSink with a batch timeout shorter than the export's", () => {
  it("waits for the exports still under way at the end and does not call delivered spans lost", async () => {
    // The processors stop waiting for an export after OTEL_BSP_EXPORT_TIMEOUT, but the request
    // goes on and the collector takes it.
    const receiver = await startReceiver(undefined, { delayMs: 1200 });
    try {
      const warnings: string[] = [];
      const sink = await otelSink({
        version: "1",
        endpoint: receiver.url,
        env: { OTEL_BSP_EXPORT_TIMEOUT: "300", OTEL_BLRP_EXPORT_TIMEOUT: "300" },
        timeoutMs: 5000,
        stderr: (text) => warnings.push(text),
      });
      const summary = await runEvals([{ eval: suite }], { reporters: [sink] });
      expect(summary.totals.cases).toBe(4);
      expect(receiver.spans).toHaveLength(6);
      expect(receiver.logs).toHaveLength(9);
      expect(warnings).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});

describe("otelSink with the collector down", () => {
  it("says so once per signal on stderr, with what was lost, and the run goes on", async () => {
    const warnings: string[] = [];
    const port = await deadPort();
    const sink = await otelSink({
      version: "9.9.9",
      endpoint: `http://user:hunter22@127.0.0.1:${port}`,
      env: {},
      timeoutMs: 300,
      stderr: (text) => warnings.push(text),
    });
    const summary = await runEvals([{ eval: suite }], { reporters: [sink], trials: 3 });
    expect(summary.totals.cases).toBe(12);
    // Both fail as the run's end flushes them: one line each, with the count.
    const refused = `connect ECONNREFUSED 127.0.0.1:${port}`;
    expect(warnings).toEqual([
      `niceeval: OpenTelemetry export of spans to http://user:***@127.0.0.1:${port}/v1/traces failed (${refused}); 14 of 14 spans were not exported (1 export failed), the run and its report are not affected. Nothing there took the connection: start the collector, or set the endpoint given to otelSink to the address its OTLP/HTTP receiver listens on (port 4318 by convention).\n`,
      `niceeval: OpenTelemetry export of evaluation logs to http://user:***@127.0.0.1:${port}/v1/logs failed (${refused}); 27 of 27 evaluation logs were not exported (1 export failed), the run and its report are not affected. Nothing there took the connection: start the collector, or set the endpoint given to otelSink to the address its OTLP/HTTP receiver listens on (port 4318 by convention).\n`,
    ]);
    expect(warnings.join("")).not.toContain("hunter22");
  });

  it("names the signal whose export failed when traces and logs go to different places", async () => {
    const receiver = await startReceiver();
    try {
      const warnings: string[] = [];
      const port = await deadPort();
      // Traces to the receiver; logs to the base endpoint, where nothing listens. The SDK reads
      // these from the process's environment.
      const env = {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      };
      Object.assign(process.env, env);
      const sink = await otelSink({
        version: "9.9.9",
        env,
        timeoutMs: 300,
        stderr: (text) => warnings.push(text),
      }).finally(() => {
        for (const name of Object.keys(env)) delete process.env[name];
      });
      await runEvals([{ eval: suite }], { reporters: [sink] });
      expect(warnings).toEqual([
        expect.stringContaining(
          `OpenTelemetry export of evaluation logs to http://127.0.0.1:${port}/v1/logs failed`,
        ),
      ]);
      expect(warnings[0]).toMatch(/(\d+) of \1 evaluation logs were not exported/);
      expect(receiver.spans.length).toBeGreaterThan(0);
    } finally {
      await receiver.close();
    }
  });
});

describe("otelSink and a run that failed without a failed case", () => {
  it("sets test.suite.run.status failure on a run whose file did not load, and on an eval whose cases could not all be read", async () => {
    const receiver = await startReceiver();
    try {
      const sink = await otelSink({ version: "1", endpoint: receiver.url, env: {} });
      sink.onRunStart?.({ runId: "r-load", evals: 1, files: 2, concurrency: 1 });
      sink.onEvalScheduled?.({ evalId: "e", style: "suite" });
      sink.onAttemptFinished?.(record({ evalId: "e", caseId: "a", index: 0, elapsedMs: 5 }));
      sink.onEvalFinished?.({
        evalId: "e",
        style: "suite",
        cases: 1,
        passed: 1,
        failed: 0,
        errored: 0,
        skipped: 0,
        meanScore: 1,
        sdScore: null,
        scoredCases: 1,
        partialCases: 0,
        judge: emptyJudgeUsage(),
        elapsedMs: 5,
        unread: { afterCases: 1, message: "the dataset threw: connection reset" },
      });
      await sink.onRunFinished?.(
        runSummary({
          runId: "r-load",
          ok: false,
          totals: { evals: 1, cases: 1, passed: 1, failed: 0, errored: 0, skipped: 0 },
          loadErrors: [{ file: "evals/broken.eval.ts", message: "SyntaxError: Unexpected token" }],
        }),
      );
      const status = (name: string) =>
        receiver.spans.find((s) => s.name === name)?.attributes["test.suite.run.status"];
      expect(status("eval e")).toBe("failure");
      expect(status("niceeval run")).toBe("failure");
    } finally {
      await receiver.close();
    }
  });
});

describe("otelSink says what to do about a failed export", () => {
  async function failedRun(endpoint: string, extra: { headers?: Record<string, string> } = {}) {
    const warnings: string[] = [];
    const sink = await otelSink({
      version: "1",
      endpoint,
      env: {},
      timeoutMs: 1500,
      stderr: (text) => warnings.push(text),
      ...extra,
    });
    await runEvals([{ eval: suite }], { reporters: [sink] });
    return warnings.join("");
  }

  it("names the status a collector kept answering (429, 503) instead of the SDK's words", async () => {
    const receiver = await startReceiver(() => ({ status: 429 }));
    try {
      const said = await failedRun(receiver.url);
      expect(said).not.toContain("retryable status");
      expect(said).toContain(
        "failed (the collector answered 429, 502, 503 or 504 (busy or unavailable) to every try within 1500 ms)",
      );
      expect(said).toContain("429 is a rate limit");
    } finally {
      await receiver.close();
    }
  });

  it("points at the credentials on a 401, at the path on a 404, at the address when nothing listens", async () => {
    const receiver = await startReceiver((path) =>
      path === "/v1/traces" ? { status: 401, body: "bad token" } : { status: 404 },
    );
    try {
      const said = await failedRun(receiver.url, {
        headers: { authorization: `Bearer ${SECRET}` },
      });
      expect(said).toContain("failed (HTTP 401 Unauthorized: bad token);");
      expect(said).toContain(
        "the run and its report are not affected. The collector refused the request's credentials: check the headers given to otelSink.\n",
      );
      expect(said).toContain(
        "Nothing takes OTLP at that path: the endpoint given to otelSink is the collector's base URL (such as http://collector:4318), to which /v1/logs is appended.",
      );
      expect(said).not.toContain(SECRET);
    } finally {
      await receiver.close();
    }
    const said = await failedRun(`http://127.0.0.1:${await deadPort()}`);
    expect(said).toContain(
      "Nothing there took the connection: start the collector, or set the endpoint given to otelSink to the address its OTLP/HTTP receiver listens on (port 4318 by convention).",
    );
  });

  it("says a web server that is no collector (501, a page of HTML) is at the wrong address, on one line", async () => {
    // What a plain web server answers a POST it does not handle: 501 and a page of HTML.
    const page =
      "<!DOCTYPE HTML>\n<html>\n  <head><title>Error response</title></head>\n  <body>\n    <h1>Error response</h1>\n    <p>Error code: 501</p>\n  </body>\n</html>\n";
    const receiver = await startReceiver(() => ({ status: 501, body: page }));
    try {
      const said = await failedRun(receiver.url);
      const lines = said.trimEnd().split("\n");
      expect(lines).toHaveLength(2); // one per signal
      expect(lines[0]).toContain(
        "failed (HTTP 501 Not Implemented: <!DOCTYPE HTML> <html> <head><title>Error response</title></head> <body> <h1>Error response</h1>",
      );
      for (const line of lines) {
        expect(line).not.toContain("The collector failed on the batch");
        expect(line).toMatch(
          /Nothing takes OTLP at that path: the endpoint given to otelSink is the collector's base URL \(such as http:\/\/collector:4318\), to which \/v1\/(traces|logs) is appended\.$/,
        );
      }
    } finally {
      await receiver.close();
    }
  });

  it("says a server took the connection and closed it unanswered (a gRPC or TLS port), not that nothing listens", async () => {
    // What a gRPC receiver (4317) or a TLS one does with a plain HTTP/1.1 request: it takes the
    // connection and closes it without an HTTP answer.
    const server = createNetServer((socket) => {
      socket.once("data", () => socket.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const said = await failedRun(`http://127.0.0.1:${port}`);
      expect(said).toContain("failed (socket hang up)");
      expect(said).not.toContain("Nothing there took the connection");
      expect(said).toContain(
        "A server there took the connection and closed it without an HTTP answer: check that the endpoint given to otelSink is an OTLP/HTTP receiver's (port 4318 by convention; 4317 is gRPC, which niceeval does not send), with https:// if it expects TLS.",
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("OpenTelemetry from code", () => {
  it("otelSink is exported by niceeval, and exports runEvals and runEval runs to the environment's endpoint", async () => {
    const niceeval = await import("../../src/index.js");
    expect(typeof niceeval.otelSink).toBe("function");
    const receiver = await startReceiver();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    try {
      const { version } = JSON.parse(
        readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
      ) as { version: string };
      // No version given: niceeval's own is the scope's and the default service.version.
      await niceeval.runEvals([{ eval: suite }], { reporters: [await niceeval.otelSink()] });
      const report = await niceeval.runEval(suite, { reporters: [await niceeval.otelSink()] });
      const runs = receiver.spans.filter((s) => s.name === "niceeval run");
      expect(runs).toHaveLength(2);
      expect(runs[1]!.attributes["niceeval.run.id"]).toBe(report.runId);
      expect(runs[0]!.resource["service.version"]).toBe(version);
      expect(receiver.spans.filter((s) => s.name.startsWith("case "))).toHaveLength(8);
    } finally {
      delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
      await receiver.close();
    }
  });

  it("refuses an endpoint that is no http(s) URL, which the SDK would replace by localhost", async () => {
    const niceeval = await import("../../src/index.js");
    await expect(
      niceeval.otelSink({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" } }),
    ).rejects.toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT is "collector:4318", which is not an http/);
    await expect(niceeval.otelSink({ endpoint: "collector:4318" })).rejects.toThrow(
      /the endpoint given to otelSink is "collector:4318", which is not an http/,
    );
  });
});

describe("otelSink and an export timeout that is not a number", () => {
  it("says so, and keeps niceeval's 5 s instead of the SDK's silent 10 s", async () => {
    const receiver = await startReceiver(undefined, { delayMs: 9000 });
    process.env.OTEL_EXPORTER_OTLP_TIMEOUT = "5s";
    try {
      const warnings: string[] = [];
      const sink = await otelSink({
        version: "1",
        endpoint: receiver.url,
        env: process.env,
        stderr: (text) => warnings.push(text),
      });
      expect(warnings[0]).toBe(
        'niceeval: OTEL_EXPORTER_OTLP_TIMEOUT is "5s", which is not a number of milliseconds greater than 0; it is ignored, and an export may take 5000 ms\n',
      );
      sink.onRunStart?.({ runId: "r-timeout", evals: 1, files: 1, concurrency: 1 });
      const started = performance.now();
      await sink.onRunFinished?.(runSummary({ runId: "r-timeout" }));
      expect(performance.now() - started).toBeLessThan(7500);
      expect(warnings.join("")).toContain("within 5000 ms");
    } finally {
      delete process.env.OTEL_EXPORTER_OTLP_TIMEOUT;
      await receiver.close();
    }
  }, 20_000);
});

describe("otelSink and a collector that rejects part of a batch", () => {
  it("counts what an OTLP partial success rejected as not exported, and says why", async () => {
    // A 200 whose body says some of the batch was rejected (OTLP partial success).
    const server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        const partialSuccess =
          req.url === "/v1/traces"
            ? { rejectedSpans: "2", errorMessage: "2 spans rejected: timestamp too old" }
            : {};
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ partialSuccess }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const warnings: string[] = [];
      const sink = await otelSink({
        version: "1",
        endpoint: url,
        env: {},
        diagnostics: true,
        stderr: (text) => warnings.push(text),
      });
      await runEvals([{ eval: suite }], { reporters: [sink] });
      expect(warnings).toEqual([
        `niceeval: OpenTelemetry export of spans to ${url}/v1/traces: the collector took the batch but rejected 2 spans (2 spans rejected: timestamp too old); 2 of 6 spans were not exported, the run and its report are not affected\n`,
      ]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("otelSink and a collector that comes back", () => {
  it("tries again at the run's end, so a collector back by then gets what is left", async () => {
    const port = await deadPort();
    const warnings: string[] = [];
    const sink = await otelSink({
      version: "1",
      endpoint: `http://127.0.0.1:${port}`,
      env: { OTEL_BSP_SCHEDULE_DELAY: "20", OTEL_BLRP_SCHEDULE_DELAY: "20" },
      timeoutMs: 200,
      stderr: (text) => warnings.push(text),
    });
    sink.onRunStart?.({ runId: "r-back", evals: 1, files: 1, concurrency: 1 });
    sink.onEvalScheduled?.({ evalId: "e", style: "suite" });
    // Attempts while the collector is down: exports fail, then batches are dropped unsent.
    for (let i = 0; i < 12; i++) {
      sink.onAttemptFinished?.(record({ evalId: "e", caseId: `c${i}`, index: i, elapsedMs: 5 }));
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    expect(warnings.join("")).toContain("ECONNREFUSED");
    const receiver = await startReceiver(undefined, { port });
    try {
      sink.onAttemptFinished?.(record({ evalId: "e", caseId: "last", index: 12, elapsedMs: 5 }));
      await sink.onRunFinished?.(runSummary({ runId: "r-back" }));
      // Back before the end: the end's flush reaches it (the run and eval spans, the last case).
      expect(receiver.spans.map((s) => s.name).sort()).toEqual([
        "case last",
        "eval e",
        "niceeval run",
      ]);
    } finally {
      await receiver.close();
    }
  });
});

describe("OTel configuration", () => {
  it("is on with --otel or an OTLP endpoint, off with OTEL_SDK_DISABLED", () => {
    expect(otelEnabled(false, {})).toBe(false);
    expect(otelEnabled(true, {})).toBe(true);
    expect(otelEnabled(false, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" })).toBe(true);
    expect(otelEnabled(false, { OTEL_EXPORTER_OTLP_ENDPOINT: " " })).toBe(false);
    expect(otelEnabled(true, { OTEL_SDK_DISABLED: "true" })).toBe(false);
  });

  it("masks header values, their credentials and URL passwords", () => {
    const mask = masker({
      OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Basic%20dXNlcjpwYXNz,x-api-key=k-123456",
      OTEL_EXPORTER_OTLP_ENDPOINT: "https://me:pa%24%24word@collector:4318",
    });
    expect(mask("sent Basic dXNlcjpwYXNz and dXNlcjpwYXNz")).toBe("sent *** and ***");
    expect(mask("key k-123456")).toBe("key ***");
    expect(mask("pw pa$$word or pa%24%24word")).toBe("pw *** or ***");
    expect(mask("see postgres://u:other@db/x")).toBe("see postgres://u:***@db/x");
    expect(mask("nothing to hide")).toBe("nothing to hide");
  });
});

describe("otelSink and an attempt that fakes the clock while others end", () => {
  it("times the attempts that end meanwhile on the real clock", async () => {
    const receiver = await startReceiver();
    try {
      // b and c end while case "fakes" holds fake timers, so their records reach the sink on a
      // faked clock.
      const { suite: faking, othersEnded } = fakingSuite([
        "setTimeout",
        "clearTimeout",
        "setInterval",
        "clearInterval",
        "Date",
        "performance",
      ]);
      const sink = await otelSink({ endpoint: receiver.url, env: {}, stderr: () => {} });
      const summary = await runEvals([{ eval: faking }], {
        concurrency: 3,
        reporters: [
          sink,
          {
            label: "others",
            onAttemptFinished: othersEnded,
          },
        ],
      });
      expect(summary.totals.passed).toBe(3);
      const [run] = receiver.spans.filter((s) => s.name === "niceeval run");
      const attempts = receiver.spans.filter((s) => s.name.startsWith("case "));
      expect(attempts).toHaveLength(3);
      for (const span of attempts) {
        expect(span.endMs, span.name).toBeGreaterThanOrEqual(span.startMs);
        expect(span.startMs, span.name).toBeGreaterThanOrEqual(run!.startMs);
        expect(span.endMs, span.name).toBeLessThanOrEqual(run!.endMs);
      }
    } finally {
      await receiver.close();
    }
  });
});
