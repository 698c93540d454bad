import { execFileSync } from "node:child_process";
import { evalFileHeader } from "./eval-source.js";

// Fixture projects of the store tests: suites whose cases fail when an environment variable
// names them, so two runs of one checkout differ the way a code change would.

/** `qa`: three cases; BREAK="a,b" makes those fail, FLAKY=1 fails case b on its first trial. */
export const qaEval = `${evalFileHeader}
const withDetail = createScorer<string, string>({
  name: "echo-detail",
  score: ({ output }) => ({ score: 1, metadata: { seen: output } }),
});
const broken = (process.env.BREAK ?? "").split(",");
export const qa = defineSuite<string, string>({
  id: "qa",
  cases: [
    { id: "a", input: "a", expected: "A", metadata: { topic: "letters" } },
    { id: "b", input: "b", expected: "B" },
    { id: "c", input: "c", expected: "C" },
  ],
  target: async (input, { trial, trace }) => {
    trace.message("user", input);
    trace.toolCall("upper", { text: input }, { output: input.toUpperCase() });
    if (process.env.FLAKY && input === "b" && trial === 0) return "nope";
    return broken.includes(input) ? "wrong" : input.toUpperCase();
  },
  scorers: [same, withDetail],
  gates: ["same"],
});
`;

/** \`many\`: twenty cases; MANY_BREAK=all fails every one, MANY_BREAK=one fails only m00. */
export const manyEval = `${evalFileHeader}
const mode = process.env.MANY_BREAK;
export const many = defineSuite<string, string>({
  id: "many",
  cases: Array.from({ length: 20 }, (_, i) => {
    const id = "m" + String(i).padStart(2, "0");
    return { id, input: id, expected: id };
  }),
  target: async (input) =>
    mode === "all" || (mode === "one" && input === "m00") ? "wrong" : input,
  scorers: [same],
});
`;

/** \`soft\`: a points-only scorer (no gate), so every case passes while the score is low. */
export const softEval = `import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const half = createScorer<string, string>({ name: "half", score: () => ({ score: 0.5 }) });
export const soft = defineSuite<string, string>({
  id: "soft",
  cases: [{ id: "s1", input: "x" }, { id: "s2", input: "y" }],
  target: async (input) => input,
  scorers: [half],
  gates: [],
});
`;

/** Make `dir` a git repository on branch main with one commit. */
export function gitInit(dir: string, branch = "main"): string {
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  git("init", "-q", "-b", branch);
  git("add", "-A");
  git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "fixture");
  return git("rev-parse", "HEAD").trim();
}

/** Switch the fixture's checkout to another (new) branch. */
export function gitBranch(dir: string, branch: string): void {
  execFileSync("git", ["checkout", "-q", "-b", branch], { cwd: dir, stdio: "ignore" });
}

/** The environment of every run: no CI branch variables leaking in from the host. */
export const cleanEnv = { GITHUB_HEAD_REF: "", GITHUB_REF_NAME: "", GITHUB_ACTIONS: "" };

/** A report without its timings, so a live run and its replay can be compared. */
export function withoutTimings(report: string): string {
  return (
    report
      .replace(/ · [\d.]+ (ms|s)\b/g, " · <t>")
      .replace(/time: [\d.]+ (ms|s)/g, "time: <t>")
      // Said by a live run whose files took a second or more to load (a busy machine), which a
      // stored run does not keep.
      .replace(/, after [\d.]+ (ms|s) loading the eval files/g, "")
  );
}

/** Parse the JSON a command printed. */
export const json = <T = unknown>(stdout: string): T => JSON.parse(stdout) as T;
