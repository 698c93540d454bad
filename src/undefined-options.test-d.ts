// Under `exactOptionalPropertyTypes` (this project's tsconfig has it), wrapper code passes its own
// possibly-undefined settings straight through: every optional field the runtime treats as absent
// when undefined is typed `?: T | undefined`, so no options object has to be built conditionally.
import { expectTypeOf } from "vitest";
import type * as AiSdk from "./ai-sdk/index.js";
import type { TraceRecorder } from "./eval/trace.js";
import type * as Expect from "./expect/index.js";
import type { BooleanMatch } from "./expect/index.js";
import type * as Root from "./index.js";
import {
  type AdapterCreateContext,
  type AssertionTools,
  type AttemptRecord,
  anthropicProvider,
  type CloseQAAnswer,
  type CloseQAJudge,
  configureJudges,
  consoleReporter,
  defineAdapter,
  defineSuite,
  type EvalSummary,
  evalScorersProvider,
  exactMatchTool,
  type JudgeVerdict,
  type Judgment,
  openAICompatibleProvider,
  type Runnable,
  type RunSummary,
  runEval,
  runEvals,
  runTool,
  toVitest,
  type VitestHooks,
} from "./index.js";
import type * as Scorers from "./scorers/index.js";
import {
  createScorer,
  extractLexicon,
  type JudgeFn,
  llmJudge,
  makeLlmJudgeDriver,
  makeStyleEmbeddingDriver,
  openAiEmbed,
  type ScoreResult,
  wrapScorer,
} from "./scorers/index.js";
import type { ForeignScore } from "./scorers/wrap-scorer.js";
import type * as StoreModule from "./store/index.js";
import {
  type Comparison,
  compareRuns,
  openPostgresStore,
  openSqliteStore,
  openStore,
  type RunManifest,
  type Store,
  type StoredRun,
} from "./store/index.js";
import type * as VitestModule from "./vitest/index.js";
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

// The store's inputs: queries, a run's manifest and how it begins and ends.
void store.listRuns({
  limit: maybe.number,
  evalId: maybe.text,
  branch: maybe.text,
  tags: maybe.record,
  status: undefined,
});
void store.queryAttempts("r", {
  evalId: maybe.text,
  verdict: undefined,
  judgmentState: undefined,
  judgmentLabel: maybe.text,
  text: maybe.text,
  sort: undefined,
  order: undefined,
  offset: maybe.number,
  limit: maybe.number,
});
void store.streamAttempts("r", { evalId: maybe.text });
declare const manifest: RunManifest;
void store.beginRun(
  {
    ...manifest,
    name: maybe.text,
    git: { commit: "c", branch: maybe.text, dirty: false },
    filter: maybe.text,
    evals: [
      { ...manifest.evals[0]!, file: maybe.text, datasetHash: maybe.text, passFail: undefined },
    ],
    resumes: [
      {
        at: "t",
        mode: "resume",
        kept: 0,
        changes: maybe.strings as string[] | undefined,
        timeoutMs: maybe.number,
      },
    ],
  },
  { join: maybe.flag, resume: maybe.flag, force: maybe.flag, retire: undefined },
);
void store.finishRun("r", {
  status: "finished",
  endedAt: maybe.text,
  summaries: [],
  datasetHashes: undefined,
  loadErrors: undefined,
  runErrors: maybe.strings as string[] | undefined,
});
void runEvals([{ eval: suite, file: maybe.text }], {
  reporters: [{ onRunStart: maybe.onRecord, onCaseFinished: undefined, label: maybe.text }],
});

// ── Every input of the published API, checked as a whole ────────────────────────────────────
// An optional property a caller may set is typed `?: T | undefined`. `InputGaps` lists, as
// "path.to.key", each optional property of an input type that refuses undefined; it must be
// never, so an optional property added without `| undefined` fails here, naming its path. Inputs
// are the parameters of every exported function and class, the methods of a store, the tools an
// adapter's callbacks are handed, and what user callbacks return; values niceeval made and is
// handed back (a record, a summary, an eval, a comparison, a matcher) are not rebuilt by callers
// and are not walked.

/** Whether T is `any` (a union holding it is `any` whole, so each parameter is taken alone). */
type IsAny<T> = 0 extends 1 & T ? true : false;
/** The optional keys of T (an index signature's aside). */
type OptionalKeys<T> = {
  [K in keyof T]-?: string extends K
    ? never
    : number extends K
      ? never
      : {} extends Pick<T, K>
        ? K
        : never;
}[keyof T];
/** The optional keys of T whose property refuses undefined (phantom `~` keys aside). */
type Gaps<T> = Exclude<
  {
    [K in OptionalKeys<T>]-?: { [P in K]: undefined } extends Pick<T, K> ? never : K;
  }[OptionalKeys<T>],
  `~${string}`
>;
/** Made by niceeval and handed back, not built by callers. */
type GivenBack =
  | Runnable
  | AttemptRecord
  | Judgment
  | RunSummary
  | EvalSummary
  | Comparison
  | StoredRun
  | Store
  | BooleanMatch<never, unknown>;
type Leaf =
  | string
  | number
  | boolean
  | bigint
  | symbol
  | null
  | undefined
  | Date
  | RegExp
  | AbortSignal
  | PromiseLike<unknown>
  | ((...args: never[]) => unknown)
  // A schema (zod, valibot, arktype): another library's type, taken as it is.
  | { readonly "~standard": unknown }
  | GivenBack;
/** Every gap in T and the objects it holds, as dotted paths (depth-bounded). */
type DeepGaps<T, Depth extends unknown[] = []> =
  IsAny<T> extends true
    ? never
    : Depth["length"] extends 6
      ? never
      : T extends Leaf
        ? never
        : T extends readonly (infer Item)[]
          ? DeepGaps<Item, [...Depth, 0]>
          : T extends object
            ?
                | (Gaps<T> & string)
                | {
                    [K in keyof T &
                      string]-?: `${K}.${DeepGaps<Exclude<T[K], undefined>, [...Depth, 0]>}`;
                  }[keyof T & string]
            : never;
/** The gaps of each parameter of a function, as `where(index) path`. */
type ParamGaps<A extends readonly unknown[], Where extends string> = number extends A["length"]
  ? `${Where}(…) ${DeepGaps<A[number]>}`
  : {
      [I in keyof A & `${number}`]-?: `${Where}(${I}) ${DeepGaps<Exclude<A[I], undefined>>}`;
    }[keyof A & `${number}`];
/** The gaps in the parameters of a module's exported functions and classes. */
type ExportedGaps<M> = {
  [K in keyof M & string]: M[K] extends abstract new (
    ...args: infer A
  ) => unknown
    ? ParamGaps<A, K>
    : M[K] extends (...args: infer A) => unknown
      ? ParamGaps<A, K>
      : never;
}[keyof M & string];
/** The gaps in the parameters of an object's methods. */
type MethodGaps<T, Where extends string> = {
  [K in keyof T & string]-?: NonNullable<T[K]> extends (...args: infer A) => unknown
    ? ParamGaps<A, `${Where}.${K}`>
    : never;
}[keyof T & string];

type InputGaps =
  | ExportedGaps<typeof Root>
  | ExportedGaps<typeof Scorers>
  | ExportedGaps<typeof Expect>
  | ExportedGaps<typeof VitestModule>
  | ExportedGaps<typeof AiSdk>
  | ExportedGaps<typeof StoreModule>
  | MethodGaps<Store, "store">
  | MethodGaps<AdapterCreateContext, "ctx">
  | MethodGaps<AssertionTools<unknown>, "t">
  | MethodGaps<TraceRecorder, "trace">
  | ParamGaps<Parameters<CloseQAJudge>, "CloseQAJudge">
  | ParamGaps<Parameters<Scorers.JudgeFn>, "JudgeFn">
  | `ScoreResult ${DeepGaps<ScoreResult>}`
  | `JudgeVerdict ${DeepGaps<JudgeVerdict>}`
  | `CloseQAAnswer ${DeepGaps<CloseQAAnswer>}`
  | `ForeignScore ${DeepGaps<ForeignScore>}`;
// On a gap this fails; `npx tsc -p tsconfig.json --noEmit` names it ("Type 'true' is not
// assignable to type '"store.listRuns(0) limit"'"), where and which property.
export const everyOptionalInputTakesUndefined: [InputGaps] extends [never] ? true : InputGaps =
  true;
