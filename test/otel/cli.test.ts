import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
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
    project = await makeProject({ "evals/echo.eval.ts": suite });
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

  it("with the collector down, the run still passes and says so once", async () => {
    const port = await deadPort();
    const run = await runCli(["run", "--no-store"], project.dir, {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://niceeval:${PASSWORD}@127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_TIMEOUT: "500",
    });
    expect(run.code).toBe(0);
    expect(run.stdout.trim().endsWith("PASS")).toBe(true);
    const warnings = run.stderr.split("\n").filter((line) => line.includes("OpenTelemetry"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(
      `export to http://niceeval:***@127.0.0.1:${port}/v1/traces failed`,
    );
    expect(run.stderr).not.toContain(PASSWORD);
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
  });
});
