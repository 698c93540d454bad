// Benchmark of eval.text-stats (run by `npm run bench`, or alone after `npm run build`): the
// throughput of computeTextStats on 1 MB of French prose with the abbreviations, initials,
// quotes, lists and numbers its sentence splitter guards (median of several runs).
import { computeTextStats } from "../dist/scorers/index.js";
import { median } from "./stats.mjs";

const PARAGRAPH = [
  "M. Dupont est arrivé à 9 h 30, env. 300 hab. l'attendaient dans le village.",
  "« Tu viens ? » demanda-t-elle. Je ne sais pas, répondit J. Martin.",
  "Voir p. ex. le chap. IV, cf. Durand, etc. Puis nous verrons.",
  "Il hésita... puis partit. Le XIXe s. fut riche ; il coûte 10 000 euros.",
  "- premier point\n- second point\n\nMme Leblanc et Dr Morel sont là. Nous partons demain !",
].join(" ");

function frenchText(bytes) {
  const parts = [];
  let size = 0;
  while (size < bytes) {
    parts.push(PARAGRAPH);
    size += Buffer.byteLength(PARAGRAPH) + 2;
  }
  return parts.join("\n\n");
}

export async function run({ quick = false } = {}) {
  const text = frenchText(1_000_000);
  const mb = Buffer.byteLength(text) / 1e6;
  const times = [];
  let sentences = 0;
  for (let i = 0; i < (quick ? 3 : 5); i++) {
    const start = performance.now();
    sentences = computeTextStats(text).sentenceCount;
    times.push(performance.now() - start);
  }
  const ms = median(times);
  console.log(
    `text-stats: ${(mb / (ms / 1000)).toFixed(1)} MB/s on ${mb.toFixed(2)} MB of French text (${sentences} sentences, ${ms.toFixed(0)} ms; median of ${times.length})`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`)
  await run({ quick: process.argv.includes("--quick") });
