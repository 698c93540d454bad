// An eval whose c3 holds the eval process's thread for good as soon as it starts (saying so on
// stderr), while the others wait on a timer: neither --timeout nor a signal can stop it there.
export const blockingSuite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const ok = createScorer({ name: "ok", score: ({ output }) => ({ score: output === undefined ? 0 : 1 }) });
export const s = defineSuite({
  id: "syncloop",
  cases: [1, 2, 3, 4, 5].map((i) => ({ id: "c" + i, input: i })),
  target: async (i) => {
    if (i === 3) {
      process.stderr.write("TARGET-STARTED\\n");
      for (;;) {}
    }
    await new Promise((r) => setTimeout(r, 50));
    return i * 2;
  },
  scorers: [ok],
});
`;
