import * as vitest from "vitest";
import { afterAll, describe, it } from "vitest";
import { errorMessage, NiceevalError } from "../errors.js";
import type { CaseSpec } from "../eval/runnable.js";
import type { BoundScorer } from "../eval/suite.js";
import { checkTimeoutMs } from "../eval/timeout.js";
import { callSite, suiteUnderTest, testFailure, withFramesOf } from "../eval/to-vitest.js";
import { jsonSafeCopy } from "../json-safe.js";
import { noteUserScoring } from "../judge/ledger.js";
import { type KnownKeys, refuseUnknownKeys } from "../known-keys.js";
import {
  type CheckedExpected,
  isScorer,
  type NamedScore,
  type NamedScorer,
  type RuntimeContext,
  type TakesExpected,
  type TakesInput,
} from "../scorers/create-scorer.js";
import { AGGREGATIONS, type Aggregation } from "./aggregate.js";
import {
  type ItemOutcome,
  invalidItem,
  itemFailureMessage,
  judgeItem,
  overallLine,
} from "./outcome.js";
import { fromScoreFunction, type ScoreFunction, withGivenNames } from "./score-function.js";
import { followVerdict } from "./verdict.js";

/** One data item: `input`, an optional `expected` and `name`, and any extra fields for scorers. */
export interface DataItem {
  input: unknown;
  expected?: unknown;
  /** The test's name; a preview of the input when omitted. */
  name?: string | undefined;
}

/**
 * Items as an array, or a function (sync or async) returning them. The function is called once,
 * while Vitest collects the file (Vitest awaits an async describe body), so each item still
 * becomes its own test; if it throws or returns nothing, one failing test named "data" says so
 * (pointing at the line that threw, its error as the cause).
 */
export type EvaluateData<Item> =
  | readonly Item[]
  | (() => readonly Item[] | Promise<readonly Item[]>);

/**
 * What `task` receives: the item without its `expected` answer, and `signal`, aborted when the
 * item's time is up (or the run is stopped): pass it on to what the task waits for.
 */
export type TaskArgs<Item> = Omit<Item, "expected" | "signal"> & { signal: AbortSignal };

/** The type of the items' `expected` values (`unknown` when one gives none). */
type ItemExpected<Item> = Item extends unknown
  ? "expected" extends keyof Item
    ? Item["expected" & keyof Item]
    : unknown
  : never;

/** The type of the items' `input` values. */
type ItemInput<Item> = Item extends unknown ? Item["input" & keyof Item] : never;

/**
 * A createScorer scorer that declares the items' `input` in its EXTRA (README's Judges scorer,
 * `createScorer<AgentRun, ExpectedOutcome, { input: string }>`), whose expected value may be wider
 * than the items': its arguments are compared with `input` given, its expected value and its input
 * by {@link TakesExpected} and {@link TakesInput}. Not callable, so that a plain function in
 * `scorers` still takes its argument types from {@link ScoreFunction}.
 */
type ScorerOfInput<Output, Expected, Input> = {
  readonly kind: "scorer";
  readonly name: string;
  withRuntime(context: RuntimeContext): ScoreFunctionOfInput<Output, Expected, Input>;
} & TakesExpected<Expected> &
  TakesInput<Input>;

/** A scoring function given `{ output, expected, input, ...extra }`, compared both ways. */
type ScoreFunctionOfInput<Output, Expected, Input> = {
  bivariant(
    args: {
      output: Output;
      expected: CheckedExpected<Expected>;
      input: CheckedExpected<Input>;
      // biome-ignore lint/suspicious/noExplicitAny: extra fields are the scorer's business
    } & Record<string, any>,
  ): Promise<NamedScore>;
}["bivariant"];

/** Options of {@link evaluate}. */
export interface EvaluateOptions<Item extends DataItem, Output> {
  data: EvaluateData<Item>;
  /** Produces an item's output from its input (and extra fields). */
  task: (args: TaskArgs<Item>) => Output | Promise<Output>;
  /**
   * createScorer / wrapScorer scorers, each given `{ input, output, expected, ...extra }`, or
   * plain functions of that returning `{ name, score, metadata? }` (seed 003's Scorer shape;
   * the score's `name` names it); tool scorers boxed with bindScorer work too (their `value`
   * is the score).
   */
  scorers: readonly (
    | (ScoreFunction<Output, ItemExpected<NoInfer<Item>>> &
        TakesExpected<ItemExpected<NoInfer<Item>>>)
    | ScorerOfInput<Output, ItemExpected<NoInfer<Item>>, ItemInput<NoInfer<Item>>>
    | BoundScorer<Output>
  )[];
  /** How an item's scores combine (default "mean"). */
  aggregation?: Aggregation | undefined;
  /** An item passes when its aggregated score is at least this (default 1). */
  threshold?: number | undefined;
  /**
   * Vitest timeout of each item (task and scorers), ms; the runner's testTimeout when omitted.
   * niceeval stops the item a little before it (10%, at most 100 ms), aborting the task's
   * `signal`, so the item fails saying what timed out, and still gets its meta and its summary.
   */
  timeout?: number | undefined;
}
const evaluateOptionKeys = {
  data: true,
  task: true,
  scorers: true,
  aggregation: true,
  threshold: true,
  timeout: true,
} satisfies KnownKeys<EvaluateOptions<DataItem, unknown>>;

/**
 * Register an evaluation as Vitest tests: one test per data item, which runs the task and the
 * scorers on the niceeval engine and fails when the aggregated score is under `threshold`, a
 * score is not finite, or a scorer throws. Each item's `meta.niceeval` and the summary line of
 * all items printed after the suite (each once, as its last try went) follow Vitest's verdict on
 * its test: an invalid item, or one whose test Vitest failed for a reason of its own (a failed
 * `expect.soft`), never reads as passed.
 * @example
 * evaluate("capitals", {
 *   data: [{ input: "France", expected: "Paris" }],
 *   task: async ({ input }) => ({ answer: await ask(input) }),
 *   scorers: [correctAnswer],
 *   threshold: 1,
 * });
 */
export function evaluate<Item extends DataItem, Output>(
  name: string,
  options: EvaluateOptions<Item, Output>,
): void {
  const aggregation = options.aggregation ?? "mean";
  const threshold = options.threshold ?? 1;
  // What the tests find wrong later (an invalid item, no items) points at this call.
  const calledFrom = callSite();
  validateOptions(name, options, aggregation, threshold);
  assertInsideVitest(name);
  // Its scoring functions may call a judge by a model name resolved only then.
  noteUserScoring();
  const extras = new Map<string, Record<string, unknown>>();
  const suite = suiteUnderTest<unknown, Output>(
    {
      id: name,
      // Items become Vitest tests one by one below, each run through this suite's runCase.
      cases: [],
      target: (input, { caseId, signal }) =>
        options.task({ ...extras.get(caseId), input, signal } as TaskArgs<Item>),
      scorers: options.scorers.map((scorer, index) =>
        typeof scorer === "function" && !isScorer(scorer)
          ? fromScoreFunction(scorer, index)
          : (scorer as NamedScorer<Output, unknown> | BoundScorer<Output>),
      ),
      // A case's own score is a fraction; the items are judged below by their aggregation, whose
      // threshold may pass 1 (a sum over scorers).
      threshold: Math.min(Math.max(threshold, 0), 1),
    },
    // An item aggregates over its scorers, which may count one scorer twice (`sum`).
    { where: `evaluate "${name}"`, namesMayRepeat: true },
    "the task",
    "item",
  );
  const settings = { name, aggregation, threshold };

  describe(name, async () => {
    let cases: LoadedCase[];
    try {
      cases = await loadCases(name, options.data, extras, calledFrom);
    } catch (error) {
      it("data", () => {
        throw error;
      });
      return;
    }
    // Keyed by item: a try that Vitest retries (--retry) replaces the one before.
    const outcomes = new Map<string, ItemOutcome>();
    for (const loaded of cases) {
      it(
        loaded.spec.id,
        async (context) => {
          // What the item's test ends as, Vitest's verdict included, is its meta and its summary.
          const judged = followVerdict(context, loaded.spec.id, (outcome) => {
            outcomes.set(loaded.spec.id, outcome);
            // Vitest clones meta to its main process: a scorer's metadata holding a function, a
            // symbol or a BigInt would lose every result of the file. JSON-safe, as a run stores it.
            (context.task.meta as Record<string, unknown>).niceeval = jsonSafeCopy(outcome);
          });
          if (loaded.problem) {
            judged(invalidItem(loaded.spec.id, loaded.problem));
            throw withFramesOf(new NiceevalError("EVALUATE_DATA", loaded.problem), calledFrom);
          }
          const tried = await withGivenNames(() => suite.run(loaded.spec, context));
          const outcome = judgeItem(tried.record, aggregation, threshold, tried.targetTimedOut);
          judged(outcome);
          if (!outcome.passed) throw testFailure(itemFailureMessage(settings, outcome), tried);
        },
        options.timeout,
      );
    }
    afterAll(() => {
      if (outcomes.size > 0) console.info(overallLine(settings, [...outcomes.values()]));
    });
  });
}

/**
 * Vitest registers tests only while it collects a test file; anywhere else (`niceeval run`
 * loading an eval file, plain `node`) its describe fails on its missing runner. TestRunner came
 * in Vitest 4.1: on 4.0 nothing is checked.
 */
function assertInsideVitest(name: string): void {
  const runner = (vitest as { TestRunner?: { getCurrentSuite?: () => unknown } }).TestRunner;
  try {
    runner?.getCurrentSuite?.();
  } catch (error) {
    throw new NiceevalError(
      "EVALUATE_OUTSIDE_VITEST",
      `evaluate "${name}" must run inside a Vitest test file (run it with \`vitest run\`): it registers one Vitest test per item, and no Vitest run is collecting tests here. In an eval file for \`niceeval run\`, write the evaluation with defineSuite instead.`,
      { cause: error },
    );
  }
}

interface LoadedCase {
  spec: CaseSpec;
  /** Why this item cannot run; its test fails with this message. */
  problem?: string;
}

/**
 * The items of `data` as case specs, each invalid one with its problem; throws when `data` threw
 * (pointing at the line that threw) or gave no items (pointing at `calledFrom`, the evaluate call).
 */
async function loadCases(
  name: string,
  data: EvaluateData<DataItem>,
  extras: Map<string, Record<string, unknown>>,
  calledFrom: Error,
): Promise<LoadedCase[]> {
  let items: readonly unknown[];
  try {
    items = typeof data === "function" ? await data() : data;
  } catch (error) {
    // As a throwing task's: the error is the cause, and its frames point at the user's line.
    const failure = new NiceevalError(
      "EVALUATE_DATA",
      `evaluate "${name}": \`data\` threw: ${errorMessage(error)}. Fix the data function or pass an array.`,
      { cause: error },
    );
    throw withFramesOf(failure, error);
  }
  if (!Array.isArray(items) || items.length === 0) {
    const failure = new NiceevalError(
      "EVALUATE_DATA",
      `evaluate "${name}": \`data\` gave ${Array.isArray(items) ? "no items" : `${typeof items}, not an array`}; return an array of { input, expected? } items.`,
    );
    throw withFramesOf(failure, calledFrom);
  }
  const used = new Set<string>();
  return items.map((item, index) => {
    const id = uniqueName(caseName(item, index), used);
    if (typeof item !== "object" || item === null || !("input" in item)) {
      const problem = `evaluate "${name}": item ${index + 1} is ${itemKind(item)}; every item needs an \`input\`.`;
      return { spec: { id, index }, problem };
    }
    if ("signal" in item) {
      // The task's own `signal` is its AbortSignal: an item's field of that name would be lost.
      const problem = `evaluate "${name}": item ${index + 1} has a field named \`signal\`, which the task receives as its AbortSignal; rename that field.`;
      return { spec: { id, index }, problem };
    }
    const { input, expected, ...extra } = item as DataItem & Record<string, unknown>;
    extras.set(id, extra);
    return { spec: { id, index, input, expected, metadata: extra } };
  });
}

function caseName(item: unknown, index: number): string {
  const named = (item as { name?: unknown } | null)?.name;
  if (typeof named === "string" && named !== "") return named;
  const input = (item as { input?: unknown } | null)?.input;
  let text: string;
  try {
    text = typeof input === "string" ? input : (JSON.stringify(input) ?? String(input));
  } catch {
    text = String(input);
  }
  return `${index + 1}. ${text.length > 60 ? `${text.slice(0, 60)}…` : text}`;
}

// Vitest accepts duplicate names, but the engine keys extras by case id.
function uniqueName(base: string, used: Set<string>): string {
  let id = base;
  for (let n = 2; used.has(id); n++) id = `${base} (${n})`;
  used.add(id);
  return id;
}

function validateOptions(
  name: string,
  options: { task?: unknown; data?: unknown; scorers?: unknown; timeout?: number | undefined },
  aggregation: unknown,
  threshold: unknown,
): void {
  const where = `evaluate "${name}"`;
  if (typeof name !== "string" || name === "")
    throw new TypeError("evaluate: `name` must be a non-empty string");
  // Ignored, a misspelt key (`treshold`) would leave the default in force without a word.
  refuseUnknownKeys(where, options, evaluateOptionKeys);
  if (typeof options?.task !== "function")
    throw new TypeError(`${where}: \`task\` must be a function`);
  if (!Array.isArray(options.data) && typeof options.data !== "function") {
    throw new TypeError(`${where}: \`data\` must be an array of items or a function returning one`);
  }
  if (!Array.isArray(options.scorers) || options.scorers.length === 0) {
    throw new TypeError(
      `${where}: \`scorers\` must be a non-empty array of scorers (createScorer, wrapScorer, bindScorer or functions returning { name, score })`,
    );
  }
  options.scorers.forEach((scorer, index) => {
    if (
      typeof scorer !== "function" &&
      (scorer as { kind?: unknown } | null)?.kind !== "bound-scorer"
    ) {
      throw new TypeError(
        `${where}: scorers[${index}] is not a scorer; build it with createScorer, wrapScorer or bindScorer, or pass a function returning { name, score }`,
      );
    }
  });
  if (!AGGREGATIONS.includes(aggregation as Aggregation)) {
    throw new TypeError(
      `${where}: \`aggregation\` must be one of ${AGGREGATIONS.join(", ")}, got ${String(aggregation)}`,
    );
  }
  if (typeof threshold !== "number" || !Number.isFinite(threshold)) {
    throw new TypeError(
      `${where}: \`threshold\` must be a finite number, got ${String(threshold)}`,
    );
  }
  // The bound of every timeout given from code (runEval's, defineSuite's): one rule, not two.
  checkTimeoutMs(`${where}: \`timeout\``, options.timeout);
}

/** What a data item without an `input` is, for its refusal. */
function itemKind(item: unknown): string {
  if (item === null || item === undefined) return String(item);
  if (Array.isArray(item)) return "an array";
  if (typeof item === "object") return "an object without an `input` field";
  return `a ${typeof item}`;
}
