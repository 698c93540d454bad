// Child process for cache.test.ts: appends `count` entries tagged with `tag` to the store in `dir`.
import { JudgeAnswerStore } from "../../src/judge/cache.js";

const [dir, tag, count] = process.argv.slice(2);
const store = new JudgeAnswerStore(dir ?? "");
const target = { provider: "p", model: "m", endpoint: "e" };
await Promise.all(
  Array.from({ length: Number(count) }, (_, i) =>
    store.put(`${(i % 16).toString(16)}-${tag}-${i}`, target, {
      text: `${tag}:${i}:${"x".repeat(2000)}`,
      inputTokens: i,
      outputTokens: 1,
    }),
  ),
);
