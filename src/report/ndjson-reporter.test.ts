import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CIRCULAR_MARKER } from "../json-safe.js";
import { NDJSON_FORMAT, ndjsonReporter } from "./ndjson-reporter.js";
import { mixedSuite, record, run, tempDir, ungatedUsageEval } from "./test-support/runs.js";

const lines = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown> & { type: string });

describe("ndjsonReporter", () => {
  it("writes one object per event and record, in order, with figures", async () => {
    const file = join(tempDir(), "run.ndjson");
    const summary = await run(
      [{ eval: mixedSuite(), file: "evals/qa.eval.ts" }],
      [ndjsonReporter(file)],
    );
    const events = lines(file);
    expect(events.map((e) => e.type)).toEqual([
      "run.started",
      "eval.started",
      "record",
      "record",
      "record",
      "record",
      "eval.finished",
      "run.finished",
    ]);
    expect(events[0]).toMatchObject({ format: NDJSON_FORMAT, runId: summary.runId, evals: 1 });
    expect(events[1]).toMatchObject({ evalId: "qa", style: "suite", file: "evals/qa.eval.ts" });
    expect(events.slice(2, 6).map((e) => (e.record as { verdict: string }).verdict)).toEqual([
      "passed",
      "failed",
      "errored",
      "passed",
    ]);
    // The eval's summary carries its figures, as in run.finished and the JSON report.
    expect(events[6]).toMatchObject({
      summary: {
        evalId: "qa",
        cases: 4,
        passed: 2,
        figures: {
          passRate: { passed: 2, n: 4, rate: 0.5, interval: { method: "wilson", level: 0.95 } },
          meanScore: { n: 3, lowerBound: false, interval: { method: "t", level: 0.95 } },
        },
      },
    });
    expect(events[6]).not.toHaveProperty("figures");
    expect(events[7]).toMatchObject({
      summary: { totals: { cases: 4, figures: { passRate: { n: 4 } } } },
    });
    for (const event of events) expect(typeof event.at).toBe("string");
  });

  it("gives an errored record its reason, as --json does", async () => {
    const file = join(tempDir(), "run.ndjson");
    await run([{ eval: ungatedUsageEval() }], [ndjsonReporter(file)]);
    const written = lines(file).find((line) => line.type === "record");
    expect(written?.record).toMatchObject({
      verdict: "errored",
      reason:
        "Usage limit (gate): unavailable — usage-unreported: the adapter never reported totalTokens (ctx.reportUsage)",
    });
  });

  it("writes a marker for a value that cannot be serialised and goes on", () => {
    const file = join(tempDir(), "run.ndjson");
    const reporter = ndjsonReporter(file);
    const output: Record<string, unknown> = { big: 12n };
    output.self = output;
    reporter.onRunStart?.({ runId: "r", evals: 1, files: 1, concurrency: 1 });
    reporter.onCaseFinished?.(record({ output }));
    reporter.onCaseFinished?.(record({ caseId: "next" }));
    const events = lines(file);
    expect(events[1]).toMatchObject({
      type: "record",
      record: { output: { big: "[unserialisable: bigint 12]", self: CIRCULAR_MARKER } },
    });
    expect(events[2]).toMatchObject({ record: { caseId: "next" } });
  });

  it.each(["file", "stdout"])(
    "leaves only complete lines when the process is killed mid-run (%s)",
    async (where) => {
      const file = join(tempDir(), "run.ndjson");
      const child = spawn(
        process.execPath,
        [
          "--import",
          "tsx",
          fileURLToPath(new URL("./test-support/ndjson-child.ts", import.meta.url)),
          where === "file" ? file : "-",
        ],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      let stdout = "";
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      await new Promise<void>((resolve, reject) => {
        let stderr = "";
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk.toString();
          if (stderr.includes("ready")) resolve();
        });
        child.on("exit", (code) => reject(new Error(`child exited (${code}) early: ${stderr}`)));
      });
      const exited = new Promise((resolve) => child.on("exit", resolve));
      child.kill("SIGTERM");
      await exited;
      const text = where === "file" ? readFileSync(file, "utf8") : stdout;
      expect(text.endsWith("\n")).toBe(true);
      const events = text
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { type: string; record?: { caseId: string } });
      expect(events.map((e) => e.record?.caseId ?? e.type)).toEqual([
        "run.started",
        "eval.started",
        "c0",
        "c1",
        "c2",
      ]);
    },
  );
});
