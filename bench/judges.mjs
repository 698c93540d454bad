// Judge benchmark, default judge settings: N expectations judgments against a loopback
// OpenAI-compatible server that answers in 50 ms and allows R requests per second (a fixed or a
// sliding 1 s window), answering 429 beyond it with a whole-second `Retry-After` (and, in one
// scenario, `retry-after-ms` as well). Prints the achieved fraction of R and the lost judgments,
// median of several runs per scenario; then a fully cached re-run in a fresh process.
// Run after `npm run build`: node bench/judges.mjs [R] [N] [runs]
import { execFile, fork } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { configureJudges, withJudgeLedger } from "../dist/judge/index.js";
import { schedulerFor } from "../dist/judge/retries.js";
import { expectations } from "../dist/scorers/judged/index.js";

const LATENCY_MS = 50;
const SCENARIOS = [
  { window: "fixed", headers: "seconds" },
  { window: "sliding", headers: "seconds" },
  { window: "fixed", headers: "seconds+ms" },
  // A sliding window, and one early call refused on its own (a provider's passing hiccup): the
  // pace must not stay at what the client sent before it.
  { window: "sliding", headers: "seconds", lone: true },
];
// The request refused on its own in the "lone" scenario.
const LONE_REFUSED = 5;

// ── A rate-limited loopback server: at most `rate` accepted requests per 1 s window ──
// It runs in its own process, as a provider would, so it does not compete with the judges for
// the event loop.
function serve(rate, { window, headers, lone }) {
  const stats = { ok: 0, rejected: 0, busyMs: 0 };
  let firstAt;
  let windowStart; // fixed: windows of 1 s from the first request
  let inWindow = 0;
  const accepted = []; // sliding: arrival times of the accepted requests of the last second
  // How long until one more request would be accepted, or 0 when it is accepted now.
  let requests = 0;
  const admit = (now) => {
    if (lone && ++requests === LONE_REFUSED) return 1000;
    if (window === "fixed") {
      windowStart ??= now;
      if (now - windowStart >= 1000) {
        windowStart = now - ((now - windowStart) % 1000);
        inWindow = 0;
      }
      if (inWindow >= rate) return windowStart + 1000 - now;
      inWindow++;
      return 0;
    }
    while (accepted.length > 0 && accepted[0] <= now - 1000) accepted.shift();
    if (accepted.length >= rate) return accepted[0] + 1000 - now;
    accepted.push(now);
    return 0;
  };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      firstAt ??= performance.now();
      const waitMs = admit(performance.now());
      if (waitMs > 0) {
        stats.rejected++;
        const wait = Math.max(1, Math.ceil(waitMs));
        res.writeHead(429, {
          "content-type": "application/json",
          "retry-after": String(Math.ceil(wait / 1000)),
          ...(headers === "seconds+ms" ? { "retry-after-ms": String(wait) } : {}),
        });
        res.end(
          JSON.stringify({ error: { message: "rate limit reached", type: "rate_limit_error" } }),
        );
        return;
      }
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
        stats.busyMs = performance.now() - firstAt;
        res.end(
          JSON.stringify({
            choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
            usage: { prompt_tokens: 120, completion_tokens: 40 },
          }),
        );
      }, LATENCY_MS);
    });
  });
  server.listen(0, "127.0.0.1", () => process.send?.({ port: server.address().port }));
  process.on("message", (message) => {
    if (message === "stats") process.send?.({ stats });
    else if (message === "close") {
      server.closeAllConnections();
      server.close();
      process.disconnect();
    }
  });
}

// Start the server in a child process; resolves with its port and a way to read its counts.
async function startServer(rate, scenario) {
  const child = fork(
    fileURLToPath(import.meta.url),
    ["--serve", String(rate), scenario.window, scenario.headers, scenario.lone ? "lone" : ""],
    {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    },
  );
  const ask = (filter) =>
    new Promise((resolve) => {
      const onMessage = (message) => {
        if (!filter(message)) return;
        child.off("message", onMessage);
        resolve(message);
      };
      child.on("message", onMessage);
    });
  const { port } = await ask((message) => message.port !== undefined);
  return {
    port,
    stats: async () => {
      const answer = ask((message) => message.stats !== undefined);
      child.send("stats");
      return (await answer).stats;
    },
    close: () => child.send("close"),
  };
}

async function judgeAll(count) {
  const started = performance.now();
  const outcomes = await withJudgeLedger(() =>
    Promise.all(
      Array.from({ length: count }, (_, i) =>
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

// One run on a fresh server (so a fresh endpoint scheduler) and a fresh cache folder.
async function oneRun(rate, count, scenario) {
  const server = await startServer(rate, scenario);
  const cacheDir = await mkdtemp(join(tmpdir(), "niceeval-bench-judges-"));
  // Put back as it was once the run is done: the sections after this one start CLI processes,
  // which would inherit a judge named by the environment.
  const before = process.env.NICEEVAL_JUDGE_BASE_URL;
  process.env.NICEEVAL_JUDGE_BASE_URL = `http://127.0.0.1:${server.port}/v1`;
  configureJudges({ cacheDir }); // every other judge setting stays at its default
  const trace = process.env.BENCH_JUDGES_TRACE ? startTrace(server) : undefined;
  try {
    const result = await judgeAll(count);
    const stats = await server.stats();
    const baseURL = process.env.NICEEVAL_JUDGE_BASE_URL;
    return {
      ...result,
      // Wall clock includes building the requests; the endpoint's view starts at its first request.
      fraction: count / result.seconds / rate,
      endpointFraction: stats.ok / (stats.busyMs / 1000) / rate,
      stats,
      cacheDir,
      baseURL,
    };
  } finally {
    clearInterval(trace);
    server.close();
    if (before === undefined) delete process.env.NICEEVAL_JUDGE_BASE_URL;
    else process.env.NICEEVAL_JUDGE_BASE_URL = before;
  }
}

// BENCH_JUDGES_TRACE=1: every 250 ms, what the server accepted and rejected and what the scheduler does.
function startTrace(server) {
  const scheduler = schedulerFor(process.env.NICEEVAL_JUDGE_BASE_URL);
  let last = { ok: 0, rejected: 0 };
  const started = performance.now();
  return setInterval(async () => {
    const state = scheduler.state();
    const stats = await server.stats();
    console.log(
      `  t=${((performance.now() - started) / 1000).toFixed(2)} ok +${stats.ok - last.ok} 429 +${stats.rejected - last.rejected} · limit ${state.limit} active ${state.active} queued ${state.queued} pace ${state.ratePerSecond?.toFixed(1) ?? "-"}/s allowed ${state.allowedPerSecond ?? "-"}/s`,
    );
    last = { ...stats };
  }, 250);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

/** Run every scenario `runs` times and the cached re-run; returns whether all targets were met. */
export async function run({ quick = false, rate = 200, count, runs } = {}) {
  const judgments = count ?? (quick ? 1000 : 2000);
  const repeats = runs ?? 3;
  console.log(
    `judges bench · ${cpus()[0]?.model ?? "unknown CPU"} × ${cpus().length} · Node ${process.version} · load average ${loadavg()[0]?.toFixed(1)} at start`,
  );
  console.log(
    `server allows R = ${rate} req/s, ${LATENCY_MS} ms per answer, 429 beyond; ${judgments} judgments per run, default judge settings, median of ${repeats} runs`,
  );
  let ok = true;
  let keptCache;
  const only = process.env.BENCH_JUDGES_SCENARIO; // e.g. "sliding" or "seconds+ms"
  for (const scenario of SCENARIOS.filter(
    (s) => !only || s.window === only || s.headers === only || (only === "lone" && s.lone),
  )) {
    const results = [];
    for (let i = 0; i < repeats; i++) {
      const result = await oneRun(rate, judgments, scenario);
      results.push(result);
      if (!keptCache) keptCache = result;
      else await rm(result.cacheDir, { recursive: true, force: true });
    }
    const fraction = median(results.map((r) => r.endpointFraction));
    const wall = median(results.map((r) => r.fraction));
    const lost = results.reduce((sum, r) => sum + r.lost, 0);
    const rejected = median(results.map((r) => r.stats.rejected));
    const retries = median(results.map((r) => r.usage.retries));
    console.log(
      `${scenario.window} window${scenario.lone ? ` and request ${LONE_REFUSED} refused alone` : ""}, Retry-After ${scenario.headers === "seconds" ? "whole seconds" : "whole seconds + retry-after-ms"}: ` +
        `${(100 * fraction).toFixed(1)}% of R from first request to last answer (runs ${results.map((r) => (100 * r.endpointFraction).toFixed(1)).join(", ")}; target ≥ 90%), ${(100 * wall).toFixed(1)}% over the wall clock, ${(median(results.map((r) => r.stats.ok / (r.stats.busyMs / 1000)))).toFixed(0)} judgments/s · ` +
        `median 429s ${rejected}, retries ${retries} · lost judgments ${lost} over ${repeats} runs (target 0) · load average ${loadavg()[0]?.toFixed(1)}`,
    );
    ok &&= fraction >= 0.9 && lost === 0;
  }

  // The cached re-run happens in a fresh process, so the answers really come from disk.
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [fileURLToPath(import.meta.url), "--cached", String(judgments)],
    {
      env: {
        ...process.env,
        BENCH_JUDGES_CACHED_DIR: keptCache.cacheDir,
        // The cache key names the endpoint; the server is closed, so any real call would fail.
        NICEEVAL_JUDGE_BASE_URL: keptCache.baseURL,
      },
      encoding: "utf8",
    },
  );
  const cached = JSON.parse(stdout.trim().split("\n").at(-1));
  const firstSeconds = judgments / (rate * 1); // the uncached run takes at least N / R seconds
  const speedup = firstSeconds / cached.seconds;
  console.log(
    `cached run (fresh process): ${cached.seconds.toFixed(3)} s · cache hits ${cached.usage.cachedCalls}/${judgments} · lost ${cached.lost} · ≥ ${speedup.toFixed(0)}× faster than N/R (target ≥ 20×)`,
  );
  await rm(keptCache.cacheDir, { recursive: true, force: true });
  ok &&= cached.lost === 0 && cached.usage.cachedCalls === judgments && speedup >= 20;
  console.log(ok ? "judges bench: all targets met" : "judges bench: TARGET MISSED");
  return ok;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === "--serve") {
    const [rate, window, headers, lone] = process.argv.slice(3);
    serve(Number(rate), { window, headers, lone: lone === "lone" });
  } else if (process.argv[2] === "--cached") {
    configureJudges({ cacheDir: process.env.BENCH_JUDGES_CACHED_DIR });
    console.log(JSON.stringify(await judgeAll(Number(process.argv[3]))));
  } else {
    const [rate, count, runs] = process.argv.slice(2).map(Number);
    const ok = await run({
      ...(rate ? { rate } : {}),
      ...(count ? { count } : {}),
      ...(runs ? { runs } : {}),
    });
    process.exitCode = ok ? 0 : 1;
  }
}
