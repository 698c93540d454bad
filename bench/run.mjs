// `npm run bench`: prints figures (medians of several runs) with the machine they came from.
import { existsSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { benchCliSuite } from "./cli-suite.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes("--quick");
// Figures are taken without a judge named by the environment (a key in the shell starts judge
// tracking in runs whose scorers could call one); a section that needs one sets its own.
for (const name of [
  "NICEEVAL_JUDGE_MODEL",
  "NICEEVAL_JUDGE_BASE_URL",
  "ANTHROPIC_API_KEY",
  "OPENAI_API_KEY",
])
  delete process.env[name];
console.log(
  `machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
);

for (const row of benchCliSuite(
  quick ? { sizes: [10_000], runs: 3 } : { sizes: [1_000, 10_000, 100_000], runs: 3 },
)) {
  console.log(
    `${row.name}: wall ${(row.wall / 1000).toFixed(2)} s, peak RSS ${row.rss.total.toFixed(0)} MB (${row.rss.eval > 0 ? `CLI ${row.rss.cli.toFixed(0)} MB + eval process ${row.rss.eval.toFixed(0)} MB` : "one process"}; median of ${row.runs})`,
  );
}

// Sections contributed by other parts of the engine, each a module exporting `run()`.
for (const section of [
  "startup.mjs",
  "peers.mjs",
  "score-evals.mjs",
  "matchers.mjs",
  "judges.mjs",
  "json-schema.mjs",
  "text-stats.mjs",
  "lexicon.mjs",
  "store.mjs",
  "postgres.mjs",
  "history.mjs",
  "viewer.mjs",
  "merge.mjs",
  "queue.mjs",
  "resume.mjs",
  "supervisor.mjs",
  "otel.mjs",
]) {
  const path = join(here, section);
  if (!existsSync(path)) continue;
  const module = await import(pathToFileURL(path).href);
  if (typeof module.run === "function") await module.run({ quick });
}
