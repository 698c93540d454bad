// Under `exactOptionalPropertyTypes` (this project's tsconfig has it), wrapper code passes its own
// possibly-undefined settings straight through: every optional field the runtime treats as absent
// when undefined is typed `?: T | undefined`, so no options object has to be built conditionally.
import { expectTypeOf } from "vitest";
import {
  anthropicProvider,
  type CloseQAJudge,
  configureJudges,
  consoleReporter,
  defineAdapter,
  defineSuite,
  evalScorersProvider,
  exactMatchTool,
  openAICompatibleProvider,
  runEval,
  runEvals,
  runTool,
  toVitest,
  type VitestHooks,
} from "./index.js";
import {
  createScorer,
  extractLexicon,
  type JudgeFn,
  llmJudge,
  makeLlmJudgeDriver,
  makeStyleEmbeddingDriver,
  openAiEmbed,
  wrapScorer,
} from "./scorers/index.js";
import {
  compareRuns,
  openPostgresStore,
  openSqliteStore,
  openStore,
  type Store,
} from "./store/index.js";
import { evaluate } from "./vitest/index.js";

declare const maybe: {
  signal?: AbortSignal;
  number?: number;
  text?: string;
  flag?: boolean;
  strings?: readonly string[];
  record?: Record<string, string>;
  judge?: CloseQAJudge;
  onRecord?: () => void;
};

const same = createScorer<string, string>({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
  judgeModel: maybe.text,
});
const suite = defineSuite<string, string>({
  id: "s",
  cases: [{ id: maybe.text, input: "a", expected: "a", metadata: undefined, cluster: maybe.text }],
  target: (input) => input,
  scorers: [same, wrapScorer(same, { output: undefined, expected: undefined })],
  concurrency: maybe.number,
  threshold: maybe.number,
  gates: maybe.strings,
  timeoutMs: maybe.number,
  trials: maybe.number,
});
expectTypeOf(
  runEval(suite, {
    target: undefined,
    telemetry: undefined,
    signal: maybe.signal,
    concurrency: maybe.number,
    timeoutMs: maybe.number,
    keepOutput: maybe.flag,
  }),
).resolves.toHaveProperty("cases");
expectTypeOf(
  runEvals([{ eval: suite }], {
    concurrency: maybe.number,
    reporters: [consoleReporter({ color: maybe.flag, verbose: maybe.flag, filter: maybe.text })],
    telemetry: undefined,
    signal: maybe.signal,
    runId: maybe.text,
    filter: undefined,
    trials: maybe.number,
    keepOutput: maybe.flag,
    timeoutMs: maybe.number,
    caseTimeoutMs: maybe.number,
    onRecord: maybe.onRecord,
  }),
).resolves.toHaveProperty("totals");

evaluate("e", {
  data: [{ input: "a", expected: "a", name: maybe.text }],
  task: ({ input }) => input,
  scorers: [same],
  aggregation: undefined,
  threshold: maybe.number,
  timeout: maybe.number,
});
declare const hooks: VitestHooks;
toVitest(
  { id: "v", cases: [{ input: "a", expected: "a" }], scorers: [same] },
  { target: (input) => input, timeout: maybe.number },
  hooks,
);

const adapter = defineAdapter({
  name: "app",
  create: () => ({ status: "ok" }),
  assertions: undefined,
});
const scoreEval = adapter.defineScoreEval({
  description: "d",
  test: () => {},
  id: maybe.text,
  timeoutMs: maybe.number,
  judge: maybe.judge,
  trials: maybe.number,
});
void scoreEval.run({
  signal: maybe.signal,
  runId: maybe.text,
  timeoutMs: maybe.number,
  judge: maybe.judge,
  onJudgment: undefined,
});

void runTool({
  tool: exactMatchTool,
  candidates: [evalScorersProvider],
  input: { actual: "a", expected: "a" },
  signal: maybe.signal,
});
configureJudges({ cache: maybe.flag, concurrency: maybe.number, cacheDir: maybe.text });
anthropicProvider({ apiKey: "k", baseURL: maybe.text, headers: maybe.record });
openAICompatibleProvider({
  baseURL: "http://localhost",
  apiKey: maybe.text,
  headers: maybe.record,
  structuredOutput: maybe.flag,
  maxTokensField: undefined,
});
declare const judge: JudgeFn;
makeLlmJudgeDriver(judge, { threshold: maybe.number, label: maybe.text });
llmJudge<string>({
  id: "j",
  judge,
  criteria: "c",
  mapOutput: ({ output }) => output,
  threshold: maybe.number,
  mapExpected: undefined,
});
extractLexicon(["a"], { top: maybe.number, minLen: maybe.number, background: maybe.strings });
makeStyleEmbeddingDriver(
  openAiEmbed({
    baseUrl: "http://localhost",
    model: "m",
    apiKey: maybe.text,
    dimensions: maybe.number,
    headers: maybe.record,
  }),
  { threshold: maybe.number },
);

void openStore("s.sqlite", { cwd: maybe.text, readOnly: maybe.flag });
void openSqliteStore("s.sqlite", {
  valueCapBytes: maybe.number,
  busyTimeoutMs: maybe.number,
  appendThread: maybe.flag,
  readOnly: maybe.flag,
});
void openPostgresStore("postgres://localhost/db", {
  poolSize: maybe.number,
  connectTimeoutMs: maybe.number,
  durableAppends: maybe.flag,
  readOnly: maybe.flag,
});
declare const store: Store;
void compareRuns(store, "a", "b", {
  alpha: maybe.number,
  seed: maybe.number,
  resamples: maybe.number,
  failOnNewFailures: maybe.flag,
  onChange: undefined,
});

// Required fields stay required: undefined is not a target.
// @ts-expect-error toVitest's target is required
toVitest({ id: "v", cases: [], scorers: [same] }, { target: undefined }, hooks);
