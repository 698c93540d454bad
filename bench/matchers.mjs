// Benchmark of niceeval/expect and score evals (run by `npm run bench`, or alone after `npm run build`):
// countWhere / filterWhere / mapEach over a 16,384-item material at the capture maxima (target < 20 ms),
// 10,000 score evals with 5 assertions each through the real CLI (target < 3 s end to end), and
// user patterns (regex-match, pattern) that backtrack polynomially or catastrophically in
// JavaScript's RegExp, on long inputs through RE2 (linear time; native RegExp beside, on short inputs).
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  atLeast,
  countWhere,
  defineContextMatch,
  defineMaterialMatch,
  equals,
  filterWhere,
  mapEach,
  mapValue,
  maxCapture,
  pattern,
} from "../dist/expect/index.js";
import { regexMatch } from "../dist/scorers/index.js";
import { median } from "./stats.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const items = 16_384;

function material() {
  const speeches = [];
  for (let i = 0; i < items; i++) {
    speeches.push({
      actorId: i % 3 === 0 ? "agent" : "customer",
      text: `utterance ${i}: the parcel left the depot and arrives tomorrow`,
      delivered: i % 5 !== 0,
      modelOrigin: i % 7 === 0 ? "unknown" : "verified",
    });
  }
  return { speeches: { state: "complete", items: speeches } };
}

function time(fn, runs) {
  fn(); // warm-up
  const samples = [];
  for (let r = 0; r < runs; r++) {
    const started = performance.now();
    fn();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

function matcherRows(runs) {
  const facts = material();
  const actorMatch = (id) => mapValue("actorMatch", (s) => s.actorId, equals(id));
  const read = (ctx) => ({ state: "available", value: ctx.speeches });
  const at = (name, match) => defineContextMatch({ name, read, match, capture: maxCapture });
  const cases = [
    [
      "countWhere",
      at(
        "count",
        countWhere(
          mapValue("delivered", (s) => s.delivered, equals(true)),
          atLeast(1),
        ),
      ),
    ],
    [
      "filterWhere → mapEach → countWhere",
      at(
        "delivery",
        filterWhere(
          actorMatch("agent"),
          mapEach((s) => s.delivered, countWhere(equals(true), atLeast(1))),
        ),
      ),
    ],
    [
      "mapEach → countWhere",
      at(
        "origin",
        mapEach((s) => s.modelOrigin, countWhere(equals("unknown"), atLeast(0))),
      ),
    ],
    [
      "defineMaterialMatch (select)",
      defineMaterialMatch({
        name: "agent",
        read: (ctx) => ctx.speeches,
        match: actorMatch("agent"),
        capture: maxCapture,
      }),
    ],
  ];
  return cases.map(([name, match]) => {
    const state = match.evaluate(facts).state;
    if (state !== "matched") throw new Error(`${name}: expected matched, got ${state}`);
    return { name, ms: time(() => match.evaluate(facts), runs) };
  });
}

function writeScoreEvals(n) {
  const work = join(here, ".tmp");
  mkdirSync(work, { recursive: true });
  const file = join(work, `score-${n}.eval.mjs`);
  writeFileSync(
    file,
    `import { defineAdapter } from "../../dist/adapter/index.js";
import { atMost, countWhere, defineMaterialMatch, equals, mapValue } from "../../dist/expect/index.js";
const said = defineMaterialMatch({ name: "said", read: (f) => f.speeches, match: mapValue("actor", (s) => s.actorId, equals("agent")) });
const adapter = defineAdapter({
  name: "bench",
  create: (ctx) => {
    ctx.reportUsage({ inputTokens: 120, outputTokens: 30 });
    return { status: "closed", speeches: { state: "complete", items: [{ actorId: "agent", delivered: true }, { actorId: "customer", delivered: true }] } };
  },
  assertions: ({ check }) => ({ said: () => check(said) }),
});
export const evals = [];
for (let i = 0; i < ${n}; i++) {
  evals.push(adapter.defineScoreEval({
    id: "score-" + i,
    description: "bench",
    test(t) {
      t.said().score(5).label("said");
      t.check(t.status, equals("closed")).gate().label("closed");
      t.check(t.speeches, countWhere(mapValue("delivered", (s) => s.delivered, equals(true)), 2)).score(3);
      t.score(0.5, { weight: 2 }).label("ratio");
      t.check(t.usage.totalTokens, atMost(10_000)).gate().label("usage");
    },
  }));
}
`,
  );
  return file;
}

function cliRow(n, runs) {
  const file = writeScoreEvals(n);
  const samples = [];
  // A store of its own for each run, as a first run has: one that kept every earlier benchmark
  // run would make each run slower than the one before.
  const store = join(here, ".tmp", "score-evals-store");
  for (let r = 0; r < runs; r++) {
    rmSync(store, { recursive: true, force: true });
    const started = performance.now();
    const child = spawnSync(
      process.execPath,
      [join(root, "dist/cli/bin.js"), "run", file, "--quiet", "--store", join(store, "run.sqlite")],
      {
        cwd: root,
        encoding: "utf8",
        env: { ...process.env, CI: "true" },
        maxBuffer: 1024 * 1024 * 1024,
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    if (child.status !== 0)
      throw new Error(`CLI exited ${child.status}: ${child.stderr.slice(0, 2000)}`);
    samples.push(performance.now() - started);
  }
  return {
    name: `score evals: ${n.toLocaleString("en")} × 5 assertions (CLI, end to end)`,
    ms: median(samples),
    runs,
  };
}

// Polynomial (no nested group) and catastrophic (nested quantifier, overlapping alternation).
const HOSTILE = [
  {
    name: "\\s*\\s*\\s*$ (cubic in RegExp)",
    source: "\\s*\\s*\\s*$",
    text: (n) => `${" ".repeat(n)}x`,
    native: 150,
  },
  {
    name: "^(a|aa)*c$ (exponential in RegExp)",
    source: "^(a|aa)*c$",
    text: (n) => `${"a".repeat(n)}bc`,
    native: 30,
  },
  {
    name: "^(a+)+$ (exponential in RegExp)",
    source: "^(a+)+$",
    text: (n) => `${"a".repeat(n)}!`,
    native: 24,
  },
];

export function patternRows(runs) {
  const rows = [];
  for (const { name, source, text, native } of HOSTILE) {
    for (const n of [10_000, 100_000, 1_000_000]) {
      const actual = text(n);
      rows.push({
        name: `regex-match ${name} on ${n.toLocaleString("en")} chars`,
        ms: time(() => regexMatch({ actual, pattern: source }), runs),
      });
    }
    const match = pattern(new RegExp(source));
    const actual = text(100_000);
    rows.push({
      name: `pattern(/${source}/) on 100,000 chars`,
      ms: time(() => match.evaluate(actual), runs),
    });
    const short = text(native);
    const regex = new RegExp(source);
    const started = performance.now();
    regex.test(short);
    rows.push({
      name: `native RegExp ${name} on only ${native.toLocaleString("en")} chars (once)`,
      ms: performance.now() - started,
    });
  }
  return rows;
}

/** Print the figures; `quick` uses fewer repetitions. */
export async function run({ quick = false } = {}) {
  const runs = quick ? 5 : 15;
  for (const row of matcherRows(runs)) {
    console.log(
      `matchers: ${row.name} over ${items.toLocaleString("en")} items at capture maxima: ${row.ms.toFixed(2)} ms/op (median of ${runs}; target < 20 ms)`,
    );
  }
  for (const row of patternRows(runs)) {
    console.log(`patterns: ${row.name}: ${row.ms.toFixed(2)} ms (median of ${runs} unless once)`);
  }
  const cli = cliRow(10_000, quick ? 1 : 3);
  console.log(`${cli.name}: ${(cli.ms / 1000).toFixed(2)} s (median of ${cli.runs}; target < 3 s)`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(
    `machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  );
  await run({ quick: process.argv.includes("--quick") });
}
