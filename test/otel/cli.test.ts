import { spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliPath, type FixtureProject, makeProject, runCli } from "../support/project.js";
import { deadPort, type Receiver, startReceiver } from "./receiver.js";

const SECRET = "tok-9f8e7d6c5b";
const PASSWORD = "pw-q1w2e3r4";

// Passes: the judge that cannot answer is not a gate, so it lowers nothing to a fake zero.
const suite = `
import { defineSuite, JudgeUnavailableError } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer<string, string>({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});
const judged = createScorer<string, string>({
  name: "judged",
  score: () => {
    throw new JudgeUnavailableError("unconfigured", "gpt-x", "no API key configured");
  },
});

export const echo = defineSuite<string, string>({
  id: "echo",
  cases: [
    { id: "hello", input: "hello", expected: "hello" },
    { id: "world", input: "world", expected: "world" },
  ],
  target: async (input) => input,
  scorers: [same, judged],
  gates: ["same"],
});
`;

// Cases one after another, each a little while, so the export goes out in several batches.
const slow = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer<string, string>({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

export const slow = defineSuite<string, string>({
  id: "slow",
  cases: Array.from({ length: Number(process.env.NCASES) }, (_, i) => ({
    id: \`c\${i}\`,
    input: String(i),
    expected: String(i),
  })),
  target: async (input) => {
    await new Promise((resolve) => setTimeout(resolve, Number(process.env.DELAY_MS)));
    return input;
  },
  scorers: [same],
});
`;

// Quick cases judged by many scorers: the eval process hands the CLI its records in bursts that
// hold many more log records than the SDK's export queue (2,048 by default).
const many = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const scorers = Array.from({ length: Number(process.env.SCORERS) }, (_, k) =>
  createScorer<number, number>({
    name: \`s\${k}\`,
    score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
  }),
);

export const many = defineSuite<number, number>({
  id: "many",
  cases: () =>
    Array.from({ length: Number(process.env.NCASES) }, (_, i) => ({
      id: \`m\${i}\`,
      input: i,
      expected: i,
    })),
  target: async (i) => i,
  scorers,
});
`;

/** Every file of the project (store, report) as text, to look for leaked credentials. */
async function allText(dir: string): Promise<string> {
  let text = "";
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || entry.parentPath.includes("node_modules")) continue;
    text += (await readFile(join(entry.parentPath, entry.name))).toString("latin1");
  }
  return text;
}

describe("niceeval run --otel (real CLI on a fixture project)", () => {
  let project: FixtureProject;
  let receiver: Receiver;
  beforeAll(async () => {
    project = await makeProject({
      "evals/echo.eval.ts": suite,
      "slow/slow.eval.ts": slow,
      "many/many.eval.ts": many,
    });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await project.cleanup();
  });

  it("exports spans and evaluation logs to OTEL_EXPORTER_OTLP_ENDPOINT, credentials masked", async () => {
    const endpoint = receiver.url.replace("http://", `http://niceeval:${PASSWORD}@`);
    const run = await runCli(
      ["run", "--otel", "--name", "otel-run", "--json", "report.json"],
      project.dir,
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_EXPORTER_OTLP_HEADERS: `x-api-key=${SECRET}`,
        OTEL_SERVICE_NAME: "support-bot-evals",
      },
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);

    const [runSpan] = receiver.spans.filter((s) => s.name === "niceeval run");
    const evalSpan = receiver.spans.find((s) => s.name === "eval echo");
    const attempts = receiver.spans.filter((s) => s.name.startsWith("case "));
    expect(runSpan?.attributes).toMatchObject({
      "niceeval.run.name": "otel-run",
      "niceeval.run.cases": 2,
      "test.suite.run.status": "success",
    });
    expect(runSpan?.resource["service.name"]).toBe("support-bot-evals");
    expect(evalSpan?.parentSpanId).toBe(runSpan?.spanId);
    expect(attempts.map((s) => s.attributes["test.case.name"]).sort()).toEqual([
      "echo/hello",
      "echo/world",
    ]);
    for (const span of attempts) {
      expect(span.parentSpanId).toBe(evalSpan?.spanId);
      expect(span.attributes).toMatchObject({
        "test.case.result.status": "pass",
        "niceeval.verdict": "passed",
        "niceeval.score.state": "partial",
        "niceeval.run.id": runSpan?.attributes["niceeval.run.id"],
      });
    }
    const report = JSON.parse(await readFile(join(project.dir, "report.json"), "utf8"));
    expect(JSON.stringify(report)).toContain(String(runSpan?.attributes["niceeval.run.id"]));

    expect(receiver.logs).toHaveLength(4);
    const unavailable = receiver.logs.filter(
      (l) => l.attributes["gen_ai.evaluation.name"] === "judged",
    );
    expect(unavailable).toHaveLength(2);
    for (const log of unavailable) {
      expect(log.eventName).toBe("gen_ai.evaluation.result");
      expect(log.attributes).not.toHaveProperty("gen_ai.evaluation.score.value");
      expect(log.attributes["gen_ai.evaluation.score.label"]).toBe("unavailable");
      expect(log.attributes["gen_ai.evaluation.explanation"]).toContain("no API key configured");
      expect(attempts.some((s) => s.spanId === log.spanId && s.traceId === log.traceId)).toBe(true);
    }

    // The credentials went to the collector, and nowhere else.
    for (const request of receiver.requests) {
      expect(request.headers["x-api-key"]).toBe(SECRET);
      expect(request.headers.authorization).toBe(
        `Basic ${Buffer.from(`niceeval:${PASSWORD}`).toString("base64")}`,
      );
      expect(request.body).not.toContain(SECRET);
      expect(request.body).not.toContain(PASSWORD);
    }
    const written = await allText(project.dir);
    for (const text of [run.stdout, run.stderr, written]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(PASSWORD);
    }
  });

  it("says what it will not do as asked: a protocol other than http/json, headers not name=value", async () => {
    const sent = receiver.spans.length;
    const run = await runCli(["run", "--otel", "--no-store"], project.dir, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
      OTEL_EXPORTER_OTLP_HEADERS: `x-api-key=${SECRET},Bearer-${SECRET}`,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      'niceeval: OTEL_EXPORTER_OTLP_PROTOCOL is "grpc", but niceeval exports over OTLP/HTTP with JSON bodies only (http/json)',
    );
    expect(run.stderr).toContain(
      "niceeval: OTEL_EXPORTER_OTLP_HEADERS has a part that is not name=value (not shown: it may hold a credential), and it is not sent",
    );
    expect(run.stderr).not.toContain(SECRET);
    // The export itself goes as before.
    expect(receiver.spans.length).toBeGreaterThan(sent);
  });

  it("with the collector down, the run still passes and says so once per signal", async () => {
    const port = await deadPort();
    const run = await runCli(["run", "--no-store"], project.dir, {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://niceeval:${PASSWORD}@127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_TIMEOUT: "500",
    });
    expect(run.code).toBe(0);
    expect(run.stdout.trim().endsWith("PASS")).toBe(true);
    const warnings = run.stderr.split("\n").filter((line) => line.includes("OpenTelemetry"));
    const endpoint = `http://niceeval:***@127.0.0.1:${port}`;
    // Each signal's failure, named; log records may go (and fail) before the run's end, then
    // their count follows.
    expect(warnings.filter((line) => line.includes("/v1/traces"))).toEqual([
      `niceeval: OpenTelemetry export of spans to ${endpoint}/v1/traces failed (connect ECONNREFUSED 127.0.0.1:${port}); 4 of 4 spans were not exported (1 export failed), the run and its report are not affected. Nothing there took the connection: start the collector, or set OTEL_EXPORTER_OTLP_ENDPOINT to the address its OTLP/HTTP receiver listens on (port 4318 by convention).`,
    ]);
    const logs = warnings.filter((line) => line.includes("/v1/logs"));
    expect(logs.length).toBeGreaterThanOrEqual(1);
    expect(logs[0]).toContain(`export of evaluation logs to ${endpoint}/v1/logs failed`);
    expect(logs.at(-1)).toContain("4 of 4 evaluation logs were not exported");
    expect(warnings).toHaveLength(1 + logs.length);
    expect(run.stderr).not.toContain(PASSWORD);
  });

  it("an endpoint given with the signal's path says that the path is appended", async () => {
    // The usual slip: the traces URL as the base endpoint, which goes to /v1/traces/v1/traces.
    const collector = await startReceiver();
    try {
      const run = await runCli(["run", "--no-store"], project.dir, {
        OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.url}/v1/traces`,
      });
      expect(run.code).toBe(0);
      const spans = run.stderr.split("\n").find((line) => line.includes("export of spans"));
      expect(spans).toBe(
        `niceeval: OpenTelemetry export of spans to ${collector.url}/v1/traces/v1/traces failed (HTTP 404 Not Found); 4 of 4 spans were not exported (1 export failed), the run and its report are not affected. Nothing takes OTLP at that path: OTEL_EXPORTER_OTLP_ENDPOINT is the collector's base URL (such as http://collector:4318), to which /v1/traces is appended.`,
      );
    } finally {
      await collector.close();
    }
  });

  it("a SIGINT while the run's end waits for a collector that does not answer ends the wait", async () => {
    const collector = await startReceiver(undefined, { delayMs: 30_000 });
    try {
      const child = spawn(process.execPath, [cliPath, "run", "--store", "export-wait.sqlite"], {
        cwd: project.dir,
        env: {
          ...process.env,
          CI: "true",
          NO_COLOR: "1",
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
          OTEL_EXPORTER_OTLP_TIMEOUT: "20000",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      let signalledAt = Number.NaN;
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
      });
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk;
        // The report is written: the run's end now waits for the export.
        if (Number.isNaN(signalledAt) && stdout.includes("PASS"))
          setTimeout(() => {
            signalledAt = performance.now();
            child.kill("SIGINT");
          }, 300);
      });
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      expect(performance.now() - signalledAt).toBeLessThan(3000);
      expect(code).toBe(130);
      expect(stderr).not.toContain("attempts in flight");
      expect(stderr).toContain(
        "niceeval: SIGINT: the run's end no longer waits for the OpenTelemetry export",
      );
      expect(stderr).toMatch(/\d+ of 4 spans were not exported/);
      // Every attempt had finished: the stored run is finished, and no resume is offered (one
      // would be refused: "there is nothing to resume").
      expect(stderr).toContain(
        "niceeval: interrupted by SIGINT after its last attempt; the report and the store hold the whole run\n",
      );
      expect(stderr).not.toContain("--resume");
      const stored = await runCli(["runs", "--json", "--store", "export-wait.sqlite"], project.dir);
      expect(JSON.parse(stored.stdout)[0]).toMatchObject({ status: "finished" });
    } finally {
      await collector.close();
    }
  });

  describe("a collector that refuses some exports", () => {
    const CASES = 40;
    // Spans every 100 ms; log records every second (the SDK's own delay): a few batches each.
    const runSlow = (collector: Receiver) =>
      runCli(["run", "slow", "--no-store", "--quiet", "--concurrency", "1"], project.dir, {
        NCASES: String(CASES),
        DELAY_MS: "50",
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_BSP_SCHEDULE_DELAY: "100",
      });
    const warnings = (stderr: string) =>
      stderr.split("\n").filter((line) => line.includes("OpenTelemetry"));
    const sent = (collector: Receiver, path: string) =>
      collector.requests.filter((r) => r.path === path);

    it("a refused log export loses that batch only, names /v1/logs, and says how many were lost", async () => {
      const collector = await startReceiver((path, nth) =>
        path === "/v1/logs" && nth === 0 ? { status: 500, body: "blip" } : undefined,
      );
      try {
        const run = await runSlow(collector);
        expect(run.code).toBe(0);
        const logRequests = sent(collector, "/v1/logs");
        expect(logRequests[0]?.status).toBe(500);
        expect(logRequests.length).toBeGreaterThan(1);
        const lost = collector.refused.logs;
        expect(lost).toBeGreaterThan(0);
        expect(collector.logs.length + lost).toBe(CASES);
        // Every span arrived, the run's and the eval's too.
        expect(collector.spans.filter((s) => s.name.startsWith("case "))).toHaveLength(CASES);
        expect(collector.spans.map((s) => s.name)).toEqual(
          expect.arrayContaining(["niceeval run", "eval slow"]),
        );
        expect(warnings(run.stderr)).toEqual([
          `niceeval: OpenTelemetry export of evaluation logs to ${collector.url}/v1/logs failed (HTTP 500 Internal Server Error: blip); niceeval keeps exporting and says at the end of the run how many were lost, the run and its report are not affected. The collector failed on the batch: its own logs say why.`,
          `niceeval: OpenTelemetry: ${lost} of ${CASES} evaluation logs were not exported to ${collector.url}/v1/logs (1 export failed)`,
        ]);
      } finally {
        await collector.close();
      }
    });

    it("a refused span export loses that batch only: the run and eval spans still arrive", async () => {
      const collector = await startReceiver((path, nth) =>
        path === "/v1/traces" && nth === 0 ? { status: 500, body: "blip" } : undefined,
      );
      try {
        const run = await runSlow(collector);
        expect(run.code).toBe(0);
        expect(sent(collector, "/v1/traces").length).toBeGreaterThan(1);
        const lost = collector.refused.spans;
        expect(lost).toBeGreaterThan(0);
        const cases = collector.spans.filter((s) => s.name.startsWith("case "));
        expect(cases.length + lost).toBe(CASES);
        expect(collector.spans.map((s) => s.name)).toEqual(
          expect.arrayContaining(["niceeval run", "eval slow"]),
        );
        expect(collector.logs).toHaveLength(CASES);
        expect(warnings(run.stderr)).toEqual([
          `niceeval: OpenTelemetry export of spans to ${collector.url}/v1/traces failed (HTTP 500 Internal Server Error: blip); niceeval keeps exporting and says at the end of the run how many were lost, the run and its report are not affected. The collector failed on the batch: its own logs say why.`,
          `niceeval: OpenTelemetry: ${lost} of ${CASES + 2} spans were not exported to ${collector.url}/v1/traces (1 export failed)`,
        ]);
      } finally {
        await collector.close();
      }
    });

    it("a signal refused every time is said once, by its own name, and counted whole", async () => {
      const collector = await startReceiver((path) =>
        path === "/v1/logs" ? { status: 403, body: "no logs for you" } : undefined,
      );
      try {
        const run = await runSlow(collector);
        expect(run.code).toBe(0);
        expect(collector.logs).toEqual([]);
        expect(collector.refused.logs).toBe(CASES);
        expect(collector.spans.filter((s) => s.name.startsWith("case "))).toHaveLength(CASES);
        const lines = warnings(run.stderr);
        expect(lines).toHaveLength(2);
        expect(lines[0]).toContain(
          `export of evaluation logs to ${collector.url}/v1/logs failed (HTTP 403 Forbidden: no logs for you)`,
        );
        expect(lines[1]).toMatch(
          new RegExp(
            `^niceeval: OpenTelemetry: ${CASES} of ${CASES} evaluation logs were not exported to ${collector.url}/v1/logs \\(\\d+ exports? failed`,
          ),
        );
        expect(run.stderr).not.toContain("/v1/traces");
      } finally {
        await collector.close();
      }
    });
  });

  describe("a run that makes spans and log records faster than a batch goes out", () => {
    const CASES = 2000;
    const SCORERS = 8;
    const runMany = (env: Record<string, string>, cases = CASES) =>
      runCli(["run", "many", "--no-store", "--quiet", "--concurrency", "64"], project.dir, {
        NCASES: String(cases),
        SCORERS: String(SCORERS),
        ...env,
      });
    const otelLines = (stderr: string) =>
      stderr.split("\n").filter((line) => line.includes("OpenTelemetry"));
    /** Every attempt's span and every judgment's log record arrived, each once, the logs in their spans. */
    const expectAll = (collector: Receiver, cases: number) => {
      const attempts = collector.spans.filter((s) => s.name.startsWith("case "));
      expect(attempts).toHaveLength(cases);
      expect(new Set(attempts.map((s) => s.attributes["niceeval.case.id"])).size).toBe(cases);
      expect(collector.spans.map((s) => s.name)).toEqual(
        expect.arrayContaining(["niceeval run", "eval many"]),
      );
      expect(collector.spans).toHaveLength(cases + 2);
      expect(collector.logs).toHaveLength(cases * SCORERS);
      const judged = new Set(
        collector.logs.map(
          (l) => `${l.attributes["niceeval.case.id"]}/${l.attributes["gen_ai.evaluation.name"]}`,
        ),
      );
      expect(judged.size).toBe(cases * SCORERS);
      const spanIds = new Set(attempts.map((s) => s.spanId));
      expect(collector.logs.filter((l) => !spanIds.has(l.spanId))).toEqual([]);
    };
    /** How many spans or log records each request to `path` held. */
    const batchSizes = (collector: Receiver, path: "/v1/traces" | "/v1/logs") =>
      collector.requests
        .filter((r) => r.path === path)
        .map((r) => {
          const body = JSON.parse(r.body);
          const [outer, inner, items] =
            path === "/v1/logs"
              ? ["resourceLogs", "scopeLogs", "logRecords"]
              : ["resourceSpans", "scopeSpans", "spans"];
          let count = 0;
          for (const resource of body[outer])
            for (const scope of resource[inner]) count += scope[items].length;
          return count;
        });

    it("a collector that takes every batch gets every span and log record, with the default queues", async () => {
      const collector = await startReceiver();
      try {
        const run = await runMany({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url });
        expect(run.code).toBe(0);
        expect(otelLines(run.stderr)).toEqual([]);
        expectAll(collector, CASES);
      } finally {
        await collector.close();
      }
    }, 90_000);

    it("honours OTEL_BSP_* and OTEL_BLRP_*: with small queues and batches, nothing is lost either", async () => {
      const collector = await startReceiver();
      const cases = 400;
      try {
        const run = await runMany(
          {
            OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
            OTEL_BSP_MAX_QUEUE_SIZE: "50",
            OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "30",
            OTEL_BSP_SCHEDULE_DELAY: "20",
            OTEL_BLRP_MAX_QUEUE_SIZE: "100",
            OTEL_BLRP_MAX_EXPORT_BATCH_SIZE: "40",
            OTEL_BLRP_SCHEDULE_DELAY: "20",
          },
          cases,
        );
        expect(run.code).toBe(0);
        expect(otelLines(run.stderr)).toEqual([]);
        expectAll(collector, cases);
        expect(Math.max(...batchSizes(collector, "/v1/traces"))).toBeLessThanOrEqual(30);
        expect(Math.max(...batchSizes(collector, "/v1/logs"))).toBe(40);
      } finally {
        await collector.close();
      }
    }, 90_000);

    it("a slow collector paces the run instead of losing what it had no room for", async () => {
      const collector = await startReceiver(undefined, { delayMs: 250 });
      const cases = 500;
      try {
        const run = await runMany({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url }, cases);
        expect(run.code).toBe(0);
        expect(otelLines(run.stderr)).toEqual([]);
        expectAll(collector, cases);
      } finally {
        await collector.close();
      }
    }, 90_000);

    it("a collector that is down is not waited for: the run ends and says what was lost", async () => {
      const port = await deadPort();
      const endpoint = `http://127.0.0.1:${port}`;
      const cases = 500;
      const run = await runMany(
        { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_TIMEOUT: "500" },
        cases,
      );
      expect(run.code).toBe(0);
      expect(run.stdout.trim().endsWith("PASS")).toBe(true);
      const lines = otelLines(run.stderr);
      // Each signal's failure is said once (with its count when it failed at the run's end).
      expect(lines.filter((line) => line.includes("failed (connect ECONNREFUSED"))).toHaveLength(2);
      expect(lines.join("\n")).toContain(`${cases + 2} of ${cases + 2} spans were not exported`);
      expect(lines.join("\n")).toContain(
        `${cases * SCORERS} of ${cases * SCORERS} evaluation logs were not exported`,
      );
      expect(run.stderr).toContain(`${endpoint}/v1/logs`);
    }, 90_000);

    it("a collector slower than the export timeout is not waited for either", async () => {
      const collector = await startReceiver(undefined, { delayMs: 1500 });
      const cases = 500;
      try {
        const run = await runMany(
          { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_TIMEOUT: "300" },
          cases,
        );
        expect(run.code).toBe(0);
        const lines = otelLines(run.stderr);
        expect(lines.join("\n")).toContain(
          `export of evaluation logs to ${collector.url}/v1/logs failed`,
        );
        expect(lines.join("\n")).toMatch(
          new RegExp(`OpenTelemetry: \\d+ of ${cases * SCORERS} evaluation logs were not exported`),
        );
      } finally {
        await collector.close();
      }
    }, 90_000);
  });

  it("exports nothing without --otel or an endpoint", async () => {
    const before = receiver.requests.length;
    const run = await runCli(["run", "--no-store"], project.dir, {
      OTEL_EXPORTER_OTLP_ENDPOINT: "",
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(receiver.requests.length).toBe(before);
  });

  it("refuses an endpoint that is not an http(s) URL before any case runs (exit 2)", async () => {
    const run = await runCli(["run", "--no-store"], project.dir, {
      OTEL_EXPORTER_OTLP_ENDPOINT: "not a url",
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'niceeval: OTEL_EXPORTER_OTLP_ENDPOINT is "not a url", which is not an http:// or https:// URL; set it to the collector\'s OTLP/HTTP address (such as http://localhost:4318) or unset it\n',
    );
    expect(run.stdout).toBe("");
  });

  it("names the port when an http:// endpoint's port is invalid (exit 2)", async () => {
    const run = await runCli(["run", "--no-store"], project.dir, {
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:99999",
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'niceeval: OTEL_EXPORTER_OTLP_ENDPOINT is "http://127.0.0.1:99999", whose port "99999" is not a port a collector can listen on (1 to 65535); set it to the collector\'s OTLP/HTTP address (such as http://localhost:4318) or unset it\n',
    );
    // An IPv6 host whose bracket is never closed is no URL, not a host "[" with the port ":1".
    const unclosed = await runCli(["run", "--no-store"], project.dir, {
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://[::1",
    });
    expect(unclosed.code).toBe(2);
    expect(unclosed.stderr).toContain('"http://[::1", which is not a valid URL;');
  });
});
