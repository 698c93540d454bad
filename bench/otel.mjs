// Benchmark: a run exported with --otel to a loopback OTLP/HTTP collector that answers at once,
// alternated with the same run without export: what the export costs in time and memory, and
// whether the collector got every span and evaluation log record (the export queue waits instead
// of dropping).
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeSuite } from "./cli-suite.mjs";
import { peakRss } from "./peak-rss.mjs";
import { median } from "./stats.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");

/** A collector on 127.0.0.1 that counts the spans and log records it is sent. */
async function startCollector() {
  const got = { spans: 0, logs: 0 };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      for (const r of body.resourceSpans ?? [])
        for (const s of r.scopeSpans ?? []) got.spans += s.spans?.length ?? 0;
      for (const r of body.resourceLogs ?? [])
        for (const s of r.scopeLogs ?? []) got.logs += s.logRecords?.length ?? 0;
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    got,
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** One CLI run (not waited on synchronously: the collector answers from this process). */
function runOnce(file, endpoint) {
  const args = ["--import", join(here, "rss-hook.mjs"), join(root, "dist/cli/bin.js")];
  const run = ["run", file, "--quiet", "--no-store", "--concurrency", "64"];
  const env = { ...process.env, CI: "true", OTEL_EXPORTER_OTLP_ENDPOINT: endpoint ?? "" };
  const started = performance.now();
  const child = spawn(process.execPath, [...args, ...run], {
    cwd: root,
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`CLI exited ${code}: ${stderr.slice(0, 2000)}`));
      else resolve({ wallMs: performance.now() - started, rss: peakRss(stderr) });
    });
  });
}

export async function run({ quick = false } = {}) {
  const n = quick ? 2_000 : 10_000;
  const scorers = 4;
  const runs = 3;
  const file = writeSuite(n);
  const exported = [];
  const plain = [];
  const received = [];
  for (let i = 0; i < runs; i++) {
    const collector = await startCollector();
    try {
      exported.push(await runOnce(file, collector.url));
      received.push({ ...collector.got });
    } finally {
      await collector.close();
    }
    plain.push(await runOnce(file));
  }
  const logs = n * scorers;
  const spans = n + 2;
  const all = received.every((r) => r.logs === logs && r.spans === spans);
  const wall = (samples) => (median(samples.map((s) => s.wallMs)) / 1000).toFixed(2);
  const rss = (samples) => median(samples.map((s) => s.rss.cli)).toFixed(0);
  const count = (got, made) => `${got.toLocaleString("en")} of ${made.toLocaleString("en")}`;
  const delivery = all
    ? `the collector got all ${logs.toLocaleString("en")} log records and ${spans.toLocaleString("en")} spans each time`
    : `NOT ALL DELIVERED: ${received.map((r) => `${count(r.logs, logs)} log records, ${count(r.spans, spans)} spans`).join("; ")}`;
  console.log(
    `otel: ${n.toLocaleString("en")} cases × ${scorers} scorers exported to a loopback collector: wall ${wall(exported)} s (${wall(plain)} s without --otel, alternated), peak RSS of the CLI ${rss(exported)} MB (${rss(plain)} MB); ${delivery} (median of ${runs})`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`)
  await run({ quick: process.argv.includes("--quick") });
