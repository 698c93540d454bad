// Benchmark of eval.lexicon-hit-rate (run by `npm run bench`, or alone after `npm run build`):
// how its time grows with the lexicon (on a one-word text, then on 1 MB of French prose) and
// with one very long term (median of several runs). Matching should grow with text + lexicon.
import { lexiconHitRateTool, runTool, styleScorersProvider } from "../dist/scorers/index.js";
import { median } from "./stats.mjs";

const PARAGRAPH =
  "M. Dupont est arrivé à l'heure ; aujourd’hui, la mise en abyme de son écriture élégante " +
  "nous étonne. « Tu viens ? » demanda-t-elle. Je ne sais pas, répondit J. Martin, il coûte 10 000 euros.";

/** Distinct word-like terms (`terme-ab`, `terme-ac`…), none of which the prose holds but a few. */
function lexicon(size) {
  const terms = ["écriture", "mise en abyme", "aujourd'hui", "élégante"];
  for (let i = 0; terms.length < size; i++) terms.push(`terme-${i.toString(36)}`);
  return terms.slice(0, size);
}

function prose(bytes) {
  const parts = [];
  let size = 0;
  while (size < bytes) {
    parts.push(PARAGRAPH);
    size += Buffer.byteLength(PARAGRAPH) + 1;
  }
  return parts.join("\n");
}

async function timed(input, runs) {
  const times = [];
  let score;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    score = await runTool({ tool: lexiconHitRateTool, candidates: [styleScorersProvider], input });
    times.push(performance.now() - start);
  }
  return { ms: median(times), score, runs };
}

function line(label, { ms, runs }) {
  console.log(`lexicon-hit-rate: ${label}: ${ms.toFixed(0)} ms (median of ${runs})`);
}

export async function run({ quick = false, sizes } = {}) {
  const runs = quick ? 1 : 3;
  for (const size of sizes ?? (quick ? [2_000, 16_000] : [2_000, 4_000, 8_000, 16_000, 200_000]))
    line(
      `${size.toLocaleString("en")} terms on the text "x"`,
      await timed({ text: "x", lexicon: lexicon(size) }, runs),
    );
  const text = prose(1_000_000);
  const mb = (Buffer.byteLength(text) / 1e6).toFixed(2);
  const onProse = await timed({ text, lexicon: lexicon(10_001) }, runs);
  line(
    `10,001 terms on ${mb} MB of French prose (${onProse.score.value.toFixed(4)} found)`,
    onProse,
  );
  const long = await timed({ text, lexicon: ["x".repeat(100_000), "écriture"] }, runs);
  line(
    `a term of 100,000 characters on the same prose (reason ${long.score.rationale.length} chars)`,
    long,
  );
}

if (import.meta.url === `file://${process.argv[1]}`)
  await run({ quick: process.argv.includes("--quick") });
