// Judge benchmark: 2,000 expectations judgments against a loopback OpenAI-compatible server
// that allows R requests per second (token bucket) and answers 429 (with Retry-After) beyond it; then the
// same run again, fully cached. Run after `npm run build`: node bench/judges.mjs [R] [N]
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { configureJudges, withJudgeLedger } from "../dist/judge/index.js";
import { expectations } from "../dist/scorers/judged/index.js";

const RATE = Number(process.argv[2] ?? process.env.BENCH_JUDGE_RATE ?? 250);
const JUDGMENTS = Number(process.argv[3] ?? process.env.BENCH_JUDGMENTS ?? 2000);
const LATENCY_MS = 10;

// ── A rate-limited loopback server: a token bucket refilled at R per second (burst R/10) ──
function startServer() {
  const burst = Math.max(1, Math.floor(RATE / 10));
  let tokens = burst;
  let refilledAt = performance.now();
  const stats = { ok: 0, rejected: 0 };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const now = performance.now();
      tokens = Math.min(burst, tokens + ((now - refilledAt) * RATE) / 1000);
      refilledAt = now;
      if (tokens < 1) {
        stats.rejected++;
        const waitMs = Math.ceil(((1 - tokens) * 1000) / RATE);
        res.writeHead(429, {
          "content-type": "application/json",
          "retry-after": String(Math.ceil(waitMs / 1000)),
          "retry-after-ms": String(waitMs),
        });
        res.end(
          JSON.stringify({ error: { message: "rate limit reached", type: "rate_limit_error" } }),
        );
        return;
      }
      tokens--;
      stats.ok++;
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const content = JSON.stringify({
        checks: [
          { id: 1, met: true, why: "it names the site" },
          { id: 2, met: body.messages.length % 2 === 1, why: "judged" },
        ],
      });
      setTimeout(() => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
            usage: { prompt_tokens: 120, completion_tokens: 40 },
          }),
        );
      }, LATENCY_MS);
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, stats })));
}

async function runAll() {
  const started = performance.now();
  const outcomes = await withJudgeLedger(() =>
    Promise.all(
      Array.from({ length: JUDGMENTS }, (_, i) =>
        expectations(
          `Is shop ${i} up?`,
          {
            text: `Shop ${i} is down; I restarted it.`,
            calls: [{ toolName: "restart", input: { shop: i } }],
          },
          { should: ["says which shop is down", "restarts the shop"] },
          "bench/judge",
        ).then(
          () => true,
          (error) => {
            console.error(`  lost: ${error.message}`);
            return false;
          },
        ),
      ),
    ),
  );
  return {
    seconds: (performance.now() - started) / 1000,
    lost: outcomes.result.filter((ok) => !ok).length,
    usage: outcomes.usage,
  };
}

// The cached re-run happens in a fresh process, so the answers really come from disk.
if (process.env.BENCH_JUDGES_CACHED_DIR) {
  configureJudges({ cacheDir: process.env.BENCH_JUDGES_CACHED_DIR });
  const rerun = await runAll();
  console.log(JSON.stringify(rerun));
  process.exit(0);
}

const { server, stats } = await startServer();
const cacheDir = await mkdtemp(join(tmpdir(), "niceeval-bench-judges-"));
process.env.NICEEVAL_JUDGE_BASE_URL = `http://127.0.0.1:${server.address().port}/v1`;
configureJudges({ cacheDir, concurrency: 32, maxRetries: 30, timeoutMs: 10_000 });

try {
  console.log(
    `judges bench · ${cpus()[0]?.model ?? "unknown CPU"} × ${cpus().length} · Node ${process.version}`,
  );
  console.log(
    `server allows R = ${RATE} req/s (token bucket, burst R/10; 429 + Retry-After beyond), ${LATENCY_MS} ms per answer; ${JUDGMENTS} judgments`,
  );

  const first = await runAll();
  const rate = JUDGMENTS / first.seconds;
  console.log(
    `first run:  ${first.seconds.toFixed(2)} s · achieved ${rate.toFixed(1)} judgments/s = ${((100 * rate) / RATE).toFixed(1)}% of R (target ≥ 90%)`,
  );
  console.log(
    `            model calls ${first.usage.calls} · retries ${first.usage.retries} · 429s answered ${stats.rejected} · lost judgments ${first.lost} (target 0)`,
  );

  const callsBefore = stats.ok + stats.rejected;
  const { stdout: child } = await promisify(execFile)(
    process.execPath,
    [new URL(import.meta.url).pathname, String(RATE), String(JUDGMENTS)],
    {
      env: { ...process.env, BENCH_JUDGES_CACHED_DIR: cacheDir },
      encoding: "utf8",
    },
  );
  const second = JSON.parse(child.trim().split("\n").at(-1));
  const speedup = first.seconds / second.seconds;
  console.log(
    `cached run (fresh process): ${second.seconds.toFixed(3)} s · cache hits ${second.usage.cachedCalls}/${JUDGMENTS} · model calls ${stats.ok + stats.rejected - callsBefore} · speedup ${speedup.toFixed(1)}× (target ≥ 20×)`,
  );
  const ok = first.lost === 0 && second.lost === 0 && rate >= 0.9 * RATE && speedup >= 20;
  console.log(ok ? "judges bench: all targets met" : "judges bench: TARGET MISSED");
  process.exitCode = ok ? 0 : 1;
} finally {
  server.closeAllConnections();
  server.close();
  await rm(cacheDir, { recursive: true, force: true });
}
