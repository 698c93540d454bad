import { realNow } from "../clock.js";
import {
  AuthoringError,
  DefinitionError,
  errorMessage,
  readableThrown,
  thrownWhere,
} from "../errors.js";
import { judgeModelsOf, sortedModels, withJudgeModels } from "../judge/judge-models.js";
import {
  judgeLedgersOpen,
  judgeWaitsHere,
  noteScorerDriver,
  withJudgeLedger,
} from "../judge/ledger.js";
import { isJudgeUnavailable } from "../judge/unavailable.js";
import { judgeWaitText } from "../judge/waiting.js";
import { type KnownKeys, refuseUnknownKeys, unknownKeysMessage } from "../known-keys.js";
import { joinWords } from "../plural.js";
import { requireText, valueKind } from "../required.js";
import type { Score } from "../score/score.js";
import {
  type Extra,
  isScorer,
  type NamedScore,
  type NamedScorer,
  runtimeContextOf,
  type ScorerArgs,
  scoreNowOf,
  type TakesExpected,
  type TakesInput,
} from "../scorers/create-scorer.js";
import { decimals, shownApart } from "../shown-apart.js";
import { thrownStack } from "../thrown-stack.js";
import { callTool, isThenable, runTool } from "../tool/run-tool.js";
import type { Driver, Tool } from "../tool/tool.js";
import { refuseToolDriver } from "../tool/tool-driver.js";
import {
  controlCharacter,
  DATASET_ERROR_ID,
  IdSet,
  loneSurrogate,
  loneSurrogateWords,
} from "./ids.js";
import { attempts, inFlight } from "./in-flight.js";
import type { AttemptRecord, Judgment } from "./record.js";
import { addJudgeUsage, emptyJudgeUsage, erroredRecord, unreportedUsage } from "./record.js";
import { type AttemptContext, type CaseSpec, EVAL_BRAND, type Runnable } from "./runnable.js";
import { decideVerdict, summarizeScore } from "./summarize.js";
import { checkTimeoutMs, checkWholeNumber, Deadline, givenText, MAX_TRIALS } from "./timeout.js";
import { TraceRecorder } from "./trace.js";

/** The source of a createScorer scorer's judgments. */
const NAMED_SOURCE = "scorer";

/** One dataset case. */
export interface EvalCase<Input, Expected = unknown> {
  /**
   * Unique in the suite: a non-empty string without control characters (a number is taken as
   * its string). Omitted, it is `case-<n>` (n = position from 1), or another id no case uses.
   */
  id?: string | number | undefined;
  input: Input;
  /** The reference value the scorers compare the output with; each scorer must take its type. */
  expected?: Expected | undefined;
  metadata?: Record<string, unknown> | undefined;
  /** Cases that share a cluster (e.g. questions about one document) are resampled together. */
  cluster?: string | undefined;
}

/** A case's keys: any other is refused (a dataset read from a file is never type-checked). */
const evalCaseKeys = {
  id: true,
  input: true,
  expected: true,
  metadata: true,
  cluster: true,
} satisfies KnownKeys<EvalCase<unknown>>;

/** Keys other tools give a case, and the key of a niceeval case they stand for. */
const caseKeyAliases = { vars: "input" };

/** What a binding's mapInput receives. */
export interface ScorerMapArgs<Output> {
  output: Output;
  expected: unknown;
  input: unknown;
  caseId: string;
}

/**
 * A tool as a binding takes it: one that gives a Score and takes every `Input`. Its input is
 * checked the way a function's parameter is, so a tool whose input needs a field that mapInput
 * does not return (`expected` of `eval.exact-match`) does not compile.
 */
export type ToolTaking<Input> = Omit<Tool<unknown, Score>, "~takes"> & {
  // A function property, not a method: compared strictly (contravariantly).
  readonly "~takes"?: (input: Input) => void;
};

/** A tool scorer, the driver that runs it, and how the target's output becomes its input. */
export interface ScorerBinding<Output, ScorerInput> {
  id: string;
  tool: ToolTaking<ScorerInput>;
  driver: Driver;
  /** The tool's input for one attempt; a promise of it is awaited (inside the attempt's timeout). */
  mapInput: (args: ScorerMapArgs<Output>) => ScorerInput | PromiseLike<ScorerInput>;
}
const scorerBindingKeys = {
  id: true,
  tool: true,
  driver: true,
  mapInput: true,
} satisfies KnownKeys<ScorerBinding<unknown, unknown>>;

/** A binding boxed so that scorers with different input types share one array. */
export interface BoundScorer<Output> {
  readonly kind: "bound-scorer";
  readonly id: string;
  readonly toolId: string;
  run(args: ScorerMapArgs<Output>, signal?: AbortSignal): Promise<Score>;
}

/** What a definition field held instead of what it takes, for its refusal. */
function describeGiven(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  return typeof value === "object"
    ? Array.isArray(value)
      ? "an array"
      : "an object"
    : `a ${typeof value}`;
}

/**
 * Box a scorer binding for a suite.
 * @example
 * bindScorer<Answer, { actual: string; expected: string }>({
 *   id: "exact", tool: exactMatchTool, driver: evalScorersProvider,
 *   mapInput: ({ output, expected }) => ({ actual: output.text, expected: String(expected) }),
 * })
 */
export function bindScorer<Output, ScorerInput>(
  binding: ScorerBinding<Output, ScorerInput>,
): BoundScorer<Output> {
  if (typeof binding !== "object" || binding === null)
    throw new AuthoringError(
      `bindScorer: pass { id, tool, driver, mapInput }, got ${valueKind(binding)}`,
    );
  const id = (binding as { id?: unknown }).id;
  refuseUnknownKeys(
    typeof id === "string" ? `bindScorer("${id}")` : "bindScorer",
    binding,
    scorerBindingKeys,
  );
  // Checked here, not on the first case: every case would be errored for it.
  const where = typeof id === "string" ? `bindScorer("${id}")` : "bindScorer";
  requireText(where, "id", id, "the scorer's name in reports");
  refuseToolDriver(where, binding.tool, binding.driver);
  if (typeof binding.mapInput !== "function")
    throw new AuthoringError(
      `${where}: \`mapInput\` must be a function from { output, expected, input, … } to the input of tool "${binding.tool.id}", got ${describeGiven(binding.mapInput)}`,
    );
  const candidates = [binding.driver];
  // A driver of the user's may call a judge by a model name (see noteUserScoring).
  noteScorerDriver(binding.driver);
  const bound: BoundScorer<Output> = {
    kind: "bound-scorer" as const,
    id: binding.id,
    toolId: binding.tool.id,
    run: async (args: ScorerMapArgs<Output>, signal?: AbortSignal) =>
      runTool({
        tool: binding.tool,
        candidates,
        input: await binding.mapInput(args),
        ...(signal ? { signal } : {}),
      }),
  };
  // The judge models of its driver (llmJudge, the pairwise and outline drivers), for the suite.
  Object.freeze(withJudgeModels(bound, judgeModelsOf(binding.driver)));
  bindings.set(bound, { tool: binding.tool, candidates, mapInput: binding.mapInput });
  return bound;
}

/** What a bound scorer runs, for the engine to run it without a promise when its tool allows. */
interface Binding<Output> {
  readonly tool: Tool<unknown, Score>;
  readonly candidates: readonly Driver[];
  readonly mapInput: (args: ScorerMapArgs<Output>) => unknown;
}
const bindings = new WeakMap<BoundScorer<never>, Binding<never>>();

/**
 * A dataset suite as data: cases and scorers (seed shape; the target comes at run time). Its
 * scorers are bound tool scorers or createScorer scorers, as a suite's.
 */
export interface TypedEvalSuite<Input, Output, Expected = unknown> {
  id: string;
  cases: readonly EvalCase<Input, Expected>[];
  scorers: readonly SuiteScorer<Input, Output, NoInfer<Expected>>[];
}
const typedEvalSuiteKeys = {
  id: true,
  cases: true,
  scorers: true,
} satisfies KnownKeys<TypedEvalSuite<unknown, unknown>>;

/**
 * Refuse the keys a plain suite does not have, for the faces that take one (runEval, toVitest):
 * ignored, a misspelt key or a setting only defineSuite takes (`gates`) would change nothing
 * without a word. Such a setting is named as defineSuite's, with `fix` (what to do instead).
 */
export function refusePlainSuiteKeys(where: string, suite: object, fix: string): void {
  const defineOnly = Object.keys(suite).filter(
    (key) => !Object.hasOwn(typedEvalSuiteKeys, key) && Object.hasOwn(suiteDefinitionKeys, key),
  );
  if (defineOnly.length > 0) {
    const keys = defineOnly.map((key) => `"suite.${key}"`);
    throw new AuthoringError(
      `${where}: ${joinWords(keys)} ${keys.length === 1 ? "is a setting" : "are settings"} of defineSuite, which a plain { id, cases, scorers } suite does not have; ${fix}`,
    );
  }
  refuseUnknownKeys(where, suite, typedEvalSuiteKeys, "suite");
}
/** A suite with any input and output (any typed suite fits: a scorer's output type is its own). */
// biome-ignore lint/suspicious/noExplicitAny: any suite, whatever its scorers take
export type EvalSuite = TypedEvalSuite<any, any>;

/** What a target receives beside the case's input. */
export interface TargetContext {
  caseId: string;
  signal: AbortSignal;
  /** Which trial of the case this is, 0-based. */
  trial: number;
  /** Report the messages and tool calls behind the output; they are kept with the attempt. */
  trace: TraceRecorder;
}

/** Produces a case's output. */
export type Target<Input, Output> = (
  input: Input,
  context: TargetContext,
) => Output | Promise<Output>;

/** Cases as they can be given: an array, an iterable or an async iterable (streamed). */
export type CaseList<Input, Expected = unknown> =
  | readonly EvalCase<Input, Expected>[]
  | Iterable<EvalCase<Input, Expected>>
  | AsyncIterable<EvalCase<Input, Expected>>;

/**
 * Cases as an array, an iterable or an async iterable (streamed; never all held at once), a
 * promise of one, or a function returning any of these (`async () => loadCases()`).
 */
export type CaseSource<Input, Expected = unknown> =
  | CaseList<Input, Expected>
  | PromiseLike<CaseList<Input, Expected>>
  | (() => CaseList<Input, Expected> | PromiseLike<CaseList<Input, Expected>>);

/** A scorer accepted by a suite: a bound tool scorer or a createScorer scorer. */
export type SuiteScorer<Input, Output, Expected = unknown> =
  | BoundScorer<Output>
  | (LooseScorer<Output> & TakesExpected<Expected> & TakesInput<Input>)
  | (NamedScorer<Output, unknown, { input: Input }> & {});

/**
 * Any createScorer scorer of this output, whatever its extra fields: it is called with the case
 * as it is (its expected type is checked apart, {@link TakesExpected}).
 */
type LooseScorer<Output> = {
  bivariant(args: ScorerArgs<Output, unknown, Extra>): Promise<NamedScore>;
}["bivariant"] & {
  readonly kind: "scorer";
  readonly name: string;
};

/** Definition accepted by {@link defineSuite}. */
export interface SuiteDefinition<Input, Output, Expected = unknown> {
  id: string;
  cases: CaseSource<Input, Expected>;
  target: Target<Input, Output>;
  scorers: readonly SuiteScorer<Input, Output, NoInfer<Expected>>[];
  /** Cases of this suite running at once (default: the runner's). */
  concurrency?: number | undefined;
  /** A createScorer score passes at or above this (default 0.5). Tool scorers decide themselves. */
  threshold?: number | undefined;
  /**
   * Ids of the scorers that must pass for a case to pass (default: every scorer). The others
   * still earn points, so a judge that is unavailable offline lowers nothing to a fake zero.
   */
  gates?: readonly string[] | undefined;
  /** Limit on each attempt (target, scorers and their judge calls), ms; the run's `--timeout` when omitted. */
  timeoutMs?: number | undefined;
  /** Times each case runs (overrides the run's `--trials`). */
  trials?: number | undefined;
}
const suiteDefinitionKeys = {
  id: true,
  cases: true,
  target: true,
  scorers: true,
  concurrency: true,
  threshold: true,
  gates: true,
  timeoutMs: true,
  trials: true,
} satisfies KnownKeys<SuiteDefinition<unknown, unknown>>;

/** A dataset suite the runner can run. */
export interface Suite<Input, Output> extends Runnable {
  readonly style: "suite";
  readonly definition: SuiteDefinition<Input, Output>;
}

/**
 * Declare a dataset suite: cases run through a target and scored by every scorer.
 * @example
 * export const greetings = defineSuite({ id: "greetings", cases, target, scorers: [exact] });
 */
export function defineSuite<Input, Output, Expected = unknown>(
  definition: SuiteDefinition<Input, Output, Expected>,
): Suite<Input, Output>;
// The cases' expected type only checks the scorers: the suite runs any.
export function defineSuite<Input, Output>(
  definition: SuiteDefinition<Input, Output>,
): Suite<Input, Output> {
  return suiteOf(definition);
}

/**
 * The call a suite was declared by, for its messages, when the user did not write defineSuite
 * (toVitest, evaluate): they name that call, and no setting the caller cannot use.
 */
export interface SuiteAuthor {
  /** The call the user wrote: `toVitest("id")`, `evaluate "name"`. */
  where: string;
  /**
   * Its scorers may share a name (evaluate's, whose item aggregates over scorers and may count
   * one twice; it has no gates and is never compared).
   */
  namesMayRepeat?: boolean;
  /**
   * What reads a case's judgments by name there, said when two scorers share one ("a failed
   * case's message tells its"); a suite's reports, `gates` and compare otherwise.
   */
  namesReadBy?: string;
}

/** {@link defineSuite}, or a suite the user declared by `author`'s call. */
export function suiteOf<Input, Output>(
  definition: SuiteDefinition<Input, Output>,
  author?: SuiteAuthor,
): Suite<Input, Output> {
  const given = (definition as { id?: unknown } | null)?.id;
  const where =
    author?.where ??
    (typeof given === "string" && given ? `defineSuite("${given}")` : "defineSuite");
  refuseUnknownKeys(where, definition, suiteDefinitionKeys);
  if (typeof definition.id !== "string" || !definition.id) {
    throw new AuthoringError(`${where}: \`id\` must be a non-empty string`);
  }
  if (typeof definition.target !== "function") {
    throw new AuthoringError(
      `${where}: \`target\` must be a function that produces a case's output`,
    );
  }
  if (!Array.isArray(definition.scorers)) {
    throw new AuthoringError(`${where}: \`scorers\` must be an array`);
  }
  const ids = definition.scorers.map((s, index) => {
    if (isScorer(s)) return s.name;
    if ((s as BoundScorer<Output> | undefined)?.kind === "bound-scorer")
      return (s as BoundScorer<Output>).id;
    throw notAScorer(where, index, s);
  });
  if (!author?.namesMayRepeat) refuseSharedNames(where, ids, author?.namesReadBy);
  // Cases given as a promise are awaited only when first read: one that fails before then must
  // not be an unhandled rejection (the error reaches the eval's "(cases)" record when read).
  if (isThenable(definition.cases)) Promise.resolve(definition.cases).catch(() => {});
  checkWholeNumber(`${where}: \`concurrency\``, definition.concurrency, 1, MAX_SUITE_CONCURRENCY);
  checkWholeNumber(`${where}: \`trials\``, definition.trials, 1, MAX_TRIALS);
  checkTimeoutMs(`${where}: \`timeoutMs\``, definition.timeoutMs);
  const threshold: unknown = definition.threshold;
  if (
    threshold !== undefined &&
    !(typeof threshold === "number" && threshold >= 0 && threshold <= 1)
  )
    throw new AuthoringError(
      `${where}: \`threshold\` must be a number from 0 to 1 (the score a case needs to pass), got ${typeof threshold === "string" ? JSON.stringify(threshold) : String(threshold)}`,
    );
  checkGatesList(where, definition.gates, ids);
  for (const gate of definition.gates ?? []) {
    if (!ids.includes(gate)) {
      throw new AuthoringError(
        `${where}: gates names "${gate}", which is not one of its scorers (${ids.join(", ")})`,
      );
    }
  }
  return {
    [EVAL_BRAND]: true,
    id: definition.id,
    style: "suite",
    definition,
    ...(definition.concurrency !== undefined ? { concurrency: definition.concurrency } : {}),
    ...(definition.trials !== undefined ? { trials: definition.trials } : {}),
    maxPoints: definition.scorers.length,
    ...(readsOnce(definition.cases) ? { readsOnce: true as const } : {}),
    fingerprint: () => suiteFingerprint(definition, ids),
    judgeModels: () => sortedModels(definition.scorers.flatMap((s) => judgeModelsOf(s))),
    cases: () => caseSpecs(definition.id, definition.cases, ids.length),
    runCase: (spec, context) => runSuiteCase(definition, spec, context),
    runCaseNow: (spec, context) => runSuiteCaseNow(definition, spec, context),
  };
}

/** `scorers[index]` is not a scorer: what it is, and what to pass. */
function notAScorer(where: string, index: number, given: unknown): AuthoringError {
  // evaluate takes plain functions returning { name, score }; a suite does not.
  const plain =
    typeof given === "function"
      ? " (a plain function returning { name, score } is a scorer for evaluate only: wrap it, createScorer({ name, score: fn }))"
      : "";
  return new AuthoringError(
    `${where}: scorers[${index}] is not a scorer (got ${describeGiven(given)}); pass bindScorer(...) or createScorer(...) results${plain}`,
  );
}

/**
 * Refuse `gates` that is not a list of scorer names: a string would be read letter by letter
 * ("e" is not a scorer), a number would throw a TypeError naming neither the suite nor `gates`.
 * An empty list is a suite of points only (every scorer advisory).
 */
function checkGatesList(where: string, gates: unknown, ids: readonly string[]): void {
  if (gates === undefined) return;
  const advice = `name the scorers whose failure fails a case, such as gates: ["${ids[0] ?? "exact"}"], or leave gates out so that every scorer is a gate`;
  if (!Array.isArray(gates))
    throw new AuthoringError(
      `${where}: \`gates\` must be a list of scorer names, got ${valueKind(gates)}; ${advice}`,
    );
  const odd = gates.find((gate) => typeof gate !== "string");
  if (odd !== undefined)
    throw new AuthoringError(
      `${where}: \`gates\` must hold scorer names, got ${valueKind(odd)} in it; ${advice}`,
    );
}

/**
 * Refuse two scorers of one suite under one name: reports, `gates` and `compare` tell judgments
 * apart by name (under toVitest, a failed case's message: `readBy`), so the two would read as one
 * (a helper that names every scorer it makes alike).
 */
function refuseSharedNames(
  where: string,
  ids: readonly string[],
  readBy = "reports, `gates` and compare tell a case's",
): void {
  const first = new Map<string, number>();
  ids.forEach((id, index) => {
    const before = first.get(id);
    if (before === undefined) {
      first.set(id, index);
      return;
    }
    throw new AuthoringError(
      `${where}: scorers[${before}] and scorers[${index}] are both named "${id}"; ${readBy} judgments apart by name, so give each its own (createScorer({ name: "${id} 2", … }), bindScorer({ id: … }), or a helper that puts what it checks in the name)`,
    );
  });
}

/** Most cases of one suite running at once (the runner's own bound). */
const MAX_SUITE_CONCURRENCY = 1024;

/**
 * Whether cases given this way can be read only once: an iterable that is not an array, a Set or
 * a Map (a generator object, `array.values()`, a stream, a readline interface) hands out what it
 * gave to one reader only, and a promise may hold one (every read awaits the same promise). A
 * function is called for each read.
 */
function readsOnce(source: unknown): boolean {
  if (typeof source !== "object" || source === null) return false;
  if (isThenable(source)) return true;
  if (Array.isArray(source) || source instanceof Set || source instanceof Map) return false;
  return Symbol.iterator in source || Symbol.asyncIterator in source;
}

function caseSpecs<Input>(
  suiteId: string,
  source: CaseSource<Input>,
  scorers: number,
): Iterable<CaseSpec> | AsyncIterable<CaseSpec> {
  // An eval that cannot judge anything is the author's error, reported as an errored eval.
  if (scorers === 0) {
    throw new DefinitionError(
      `defineSuite("${suiteId}") has no scorers, so no case can pass or fail; add a bindScorer(...) or createScorer(...) scorer`,
    );
  }
  const given = typeof source === "function" ? source() : source;
  return isThenable(given) ? awaitedCaseSpecs(suiteId, given) : listSpecs(suiteId, given);
}

function listSpecs<Input>(
  suiteId: string,
  list: unknown,
): Iterable<CaseSpec> | AsyncIterable<CaseSpec> {
  if (
    list === null ||
    typeof list !== "object" ||
    !(Symbol.iterator in list || Symbol.asyncIterator in list)
  ) {
    const what =
      list === null || typeof list !== "object" ? String(list) : "an object that is not iterable";
    throw new AuthoringError(
      `defineSuite("${suiteId}"): \`cases\` gave ${what}; pass an array, an iterable or an async iterable of cases, a promise of one, or a function returning one`,
    );
  }
  // An array's given ids are known up front, so no generated id ever takes one of them.
  const ids = new CaseIds(Array.isArray(list) ? list : []);
  return Symbol.iterator in list
    ? syncCaseSpecs(suiteId, list as Iterable<EvalCase<Input>>, ids)
    : asyncCaseSpecs(suiteId, list as AsyncIterable<EvalCase<Input>>, ids);
}

/** Cases given as a promise (an async loader that returns them all): read once it settles. */
async function* awaitedCaseSpecs(
  suiteId: string,
  promise: PromiseLike<unknown>,
): AsyncGenerator<CaseSpec> {
  yield* listSpecs(suiteId, await promise);
}

function* syncCaseSpecs<Input>(
  suiteId: string,
  iterable: Iterable<EvalCase<Input>>,
  ids: CaseIds,
): Generator<CaseSpec> {
  let index = 0;
  for (const item of iterable) yield toCaseSpec(item, index++, ids);
  if (index === 0) throw noCases(suiteId);
}

async function* asyncCaseSpecs<Input>(
  suiteId: string,
  iterable: AsyncIterable<EvalCase<Input>>,
  ids: CaseIds,
): AsyncGenerator<CaseSpec> {
  let index = 0;
  for await (const item of iterable) yield toCaseSpec(item, index++, ids);
  if (index === 0) throw noCases(suiteId);
}

const noCases = (suiteId: string) =>
  new AuthoringError(
    `defineSuite("${suiteId}") has no cases; give it at least one { input, expected? } case`,
  );

/**
 * The ids of one pass over a suite's cases. A case without an id gets `case-<n>` (its position
 * from 1), or `case-<n>-2`… when a given id already holds that; a given id that a streamed
 * case before it was already generated is refused, so the two never collide.
 */
export class CaseIds {
  // Only given ids that a generated one could equal are kept (they start with `case-`).
  private readonly given = new IdSet();
  private readonly generated = new Map<string, number>();

  /** `known`: items whose given ids are reserved up front (an array's). */
  constructor(known: readonly unknown[] = []) {
    for (const item of known) {
      const id = (item as { id?: unknown } | null)?.id;
      if (typeof id === "string") this.reserve(id);
      else if (typeof id === "number" && Number.isFinite(id)) this.reserve(String(id));
    }
  }

  generate(index: number): string {
    const base = `case-${index + 1}`;
    let id = base;
    for (let n = 2; this.given.has(id) || this.generated.has(id); n++) id = `${base}-${n}`;
    this.generated.set(id, index);
    return id;
  }

  /** Take a given id; a problem when a case before it was already generated this id. */
  claim(id: string, index: number): string | undefined {
    const taken = this.generated.size === 0 ? undefined : this.generated.get(id);
    if (taken !== undefined) {
      return `${casePosition(index)} has id "${id}", which was already given to ${casePosition(taken)} because it had none; give that case an id`;
    }
    this.reserve(id);
    return undefined;
  }

  private reserve(id: string): void {
    if (id.startsWith("case-")) this.given.add(id);
  }
}

/** A case item as the runner's spec; an item that cannot be a case is a spec marked `invalid`. */
export function toCaseSpec<Input>(
  item: EvalCase<Input> | null | undefined,
  index: number,
  ids: CaseIds,
): CaseSpec {
  if (item === null || typeof item !== "object") {
    return {
      id: ids.generate(index),
      index,
      invalid: `${casePosition(index)} is ${item === null ? "null" : typeof item}, not a case; each case is an object { id?, input, expected? }`,
    };
  }
  const checked = caseId(item.id, index, ids);
  const refused = typeof checked !== "string";
  const spec: Mutable<CaseSpec> = {
    id: refused ? checked.id : checked,
    index,
    input: item.input,
    expected: item.expected,
  };
  if (item.metadata) spec.metadata = item.metadata;
  if (item.cluster !== undefined) spec.cluster = String(item.cluster);
  if (refused) spec.invalid = checked.problem;
  else {
    const problem = unknownCaseKeys(item, spec.id, index);
    if (problem !== undefined) spec.invalid = problem;
  }
  return spec;
}

/**
 * Why a case item has keys a case does not (`vars`, `inputs`, `expect`), or undefined: run, it
 * would hand the target an undefined input, or score against no expected value, and read as the
 * model's failure. Extra fields for the scorers go in `metadata`.
 */
function unknownCaseKeys(item: object, id: string, index: number): string | undefined {
  let unknown: string[] | undefined;
  for (const key in item) {
    if (Object.hasOwn(evalCaseKeys, key) || !Object.hasOwn(item, key)) continue;
    unknown ??= [];
    unknown.push(key);
  }
  if (unknown === undefined) return undefined;
  const message = unknownKeysMessage(unknown, Object.keys(evalCaseKeys), undefined, caseKeyAliases);
  return `case "${id}" (index ${index}) has ${message}; a field the scorers read goes in metadata`;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A case's id, or the id it gets instead of one that cannot be used, and why. */
function caseId(
  given: unknown,
  index: number,
  ids: CaseIds,
): string | { id: string; problem: string } {
  if (given === undefined) return ids.generate(index);
  const id = typeof given === "number" && Number.isFinite(given) ? String(given) : given;
  if (typeof id !== "string") {
    return refuse(
      ids,
      index,
      `has id ${String(given)} (${typeof given}); an id is a non-empty string or a finite number`,
    );
  }
  if (id === "") return refuse(ids, index, "has an empty id; give it a non-empty id or none");
  if (id === DATASET_ERROR_ID)
    return refuse(
      ids,
      index,
      `has id "${DATASET_ERROR_ID}", which stands for an eval whose cases could not be read; give it another id`,
    );
  const control = controlCharacter(id);
  if (control) {
    return refuse(
      ids,
      index,
      `has id ${JSON.stringify(id)}, which holds a control character (${control}); ids are shown and stored on one line, so use printable text`,
    );
  }
  const lone = loneSurrogate(id);
  if (lone)
    return refuse(
      ids,
      index,
      `has id ${JSON.stringify(id)}, which holds ${loneSurrogateWords(lone)}`,
    );
  const problem = ids.claim(id, index);
  return problem ? { id: ids.generate(index), problem } : id;
}

/**
 * A case named by its position from 1, as its generated id is (`case-3`), with its index in the
 * dataset: "case 3 (index 2)".
 */
export const casePosition = (index: number): string => `case ${index + 1} (index ${index})`;

/** A generated id for a case whose own cannot be used, and why (`what` follows "case n (index n-1)"). */
function refuse(ids: CaseIds, index: number, what: string): { id: string; problem: string } {
  return { id: ids.generate(index), problem: `${casePosition(index)} ${what}` };
}

/** Taken at load: an attempt that replaces the global cannot change how inputs are copied. */
const clone = structuredClone;

/**
 * Whether a case's input or expected value is copied for each of its users: a plain object or
 * array. A primitive
 * needs no copy; another object (a class instance, whose methods a copy would lose) is passed as
 * it is.
 */
function isCopied(input: unknown): input is object {
  if (typeof input !== "object" || input === null) return false;
  const prototype = Object.getPrototypeOf(input);
  return prototype === Object.prototype || prototype === Array.prototype || prototype === null;
}

/**
 * A case's input or expected value for one user of it (an attempt's target, a scorer): a copy by
 * structuredClone, so that what one changes no other sees, nor the next trial, nor the stored
 * case. A value structuredClone cannot copy (one that holds a function) is passed as it is.
 */
function inputCopy(input: unknown): unknown {
  if (!isCopied(input)) return input;
  try {
    return clone(input);
  } catch {
    return input;
  }
}

/** A scorer's own arguments: its copies of the case's input and expected value, where copied. */
function scorerArgs<Output>(args: ScorerMapArgs<Output>, spec: CaseSpec): ScorerMapArgs<Output> {
  const own = { ...args };
  if (isCopied(spec.input)) own.input = inputCopy(spec.input);
  if (isCopied(spec.expected)) own.expected = inputCopy(spec.expected);
  return own;
}

/** Run one case: the target, then every scorer; failures become data on the record. */
export function runSuiteCase<Input, Output>(
  definition: SuiteDefinition<Input, Output>,
  spec: CaseSpec,
  context: AttemptContext,
): Promise<AttemptRecord> {
  try {
    return Promise.resolve(runSuiteCaseNow(definition, spec, context));
  } catch (error) {
    return Promise.reject(error);
  }
}

/** {@link runSuiteCase}, with the record itself when the target and scorers answered at once. */
function runSuiteCaseNow<Input, Output>(
  definition: SuiteDefinition<Input, Output>,
  spec: CaseSpec,
  context: AttemptContext,
): AttemptRecord | Promise<AttemptRecord> {
  const started = realNow();
  if (spec.invalid !== undefined) {
    return erroredRecord({
      evalId: definition.id,
      caseId: spec.id,
      message: spec.invalid,
      where: `cases of eval "${definition.id}"`,
      max: definition.scorers.length,
    });
  }
  // One limit for the whole attempt: what finished before it is kept. None: no timer at all.
  const limit = definition.timeoutMs ?? context.timeoutMs;
  // Counted in flight, with a limit or not: another attempt's limit asks whether it was alone.
  return inFlight(attempts, () =>
    limit !== undefined
      ? scoreWithin(definition, spec, context, limit, started)
      : // Synchronous targets and scorers give their record without waiting on anything.
        scoreCase(definition, spec, context, undefined, started),
  );
}

async function scoreWithin<Input, Output>(
  definition: SuiteDefinition<Input, Output>,
  spec: CaseSpec,
  context: AttemptContext,
  limit: number,
  started: number,
): Promise<AttemptRecord> {
  const deadline = new Deadline(context.signal, limit, context.origin);
  try {
    return await scoreCase(definition, spec, context, deadline, started);
  } finally {
    deadline.dispose();
  }
}

/** What a suite's cases share, worked out once per definition rather than once per case. */
interface SuitePlan<Input, Output> {
  readonly scorers: readonly SuiteScorer<Input, Output>[];
  readonly count: number;
  readonly thresholdGiven: number | undefined;
  readonly gatesGiven: readonly string[] | undefined;
  readonly threshold: number;
  readonly gates: ReadonlySet<string> | undefined;
  readonly labels: readonly string[];
  /** Each scorer's judgments' source, whatever their state: its tool's id, or "scorer". */
  readonly sources: readonly string[];
  /** createScorer scorers (true) and bound tool scorers (false). */
  readonly named: readonly boolean[];
  /** What each bound scorer made by this module's bindScorer runs. */
  readonly bindings: readonly (Binding<Output> | undefined)[];
}

const plans = new WeakMap<object, SuitePlan<never, never>>();

function planOf<Input, Output>(
  definition: SuiteDefinition<Input, Output>,
): SuitePlan<Input, Output> {
  const known = plans.get(definition) as SuitePlan<Input, Output> | undefined;
  const { scorers, threshold, gates } = definition;
  // Built again when the definition changed, even in place: it never answers for an old one.
  if (
    known !== undefined &&
    known.thresholdGiven === threshold &&
    sameItems(known.scorers, scorers) &&
    (known.gatesGiven === undefined ? gates === undefined : sameItems(known.gatesGiven, gates))
  ) {
    return known;
  }
  const plan: SuitePlan<Input, Output> = {
    scorers: [...scorers],
    count: scorers.length,
    thresholdGiven: threshold,
    gatesGiven: gates ? [...gates] : undefined,
    threshold: threshold ?? 0.5,
    gates: gates ? new Set(gates) : undefined,
    labels: scorers.map(scorerLabel),
    sources: scorers.map(scorerSource),
    named: scorers.map((scorer) => isScorer(scorer)),
    bindings: scorers.map(
      (scorer) => bindings.get(scorer as BoundScorer<never>) as Binding<Output> | undefined,
    ),
  };
  plans.set(definition, plan as unknown as SuitePlan<never, never>);
  return plan;
}

function sameItems<T>(known: readonly T[], now: readonly T[] | undefined): boolean {
  if (now === undefined || known.length !== now.length) return false;
  for (let index = 0; index < known.length; index++) if (known[index] !== now[index]) return false;
  return true;
}

function scoreCase<Input, Output>(
  definition: SuiteDefinition<Input, Output>,
  spec: CaseSpec,
  context: AttemptContext,
  deadline: Deadline | undefined,
  started: number,
): AttemptRecord | Promise<AttemptRecord> {
  const signal = deadline?.signal ?? context.signal;
  const trace = new TraceRecorder();
  const targetContext: TargetContext = {
    caseId: spec.id,
    signal,
    trial: context.trial ?? 0,
    trace,
  };
  let produced: Output | PromiseLike<Output>;
  try {
    // The target's own copy: what it changes is no scorer's, trial's or record's input.
    const input = inputCopy(spec.input) as Input;
    produced = deadline
      ? deadline.race(
          () => definition.target(input, targetContext),
          () => {
            throw deadline.timeoutError("the target");
          },
        )
      : definition.target(input, targetContext);
    if (isThenable(produced)) {
      return scoreLater(definition, spec, context, deadline, started, trace, produced);
    }
  } catch (error) {
    return targetFailed(definition, spec, error, started, trace);
  }
  return judgeOutput(definition, spec, context, deadline, started, trace, produced);
}

/** The rest of {@link scoreCase} once an asynchronous target has answered. */
async function scoreLater<Input, Output>(
  definition: SuiteDefinition<Input, Output>,
  spec: CaseSpec,
  context: AttemptContext,
  deadline: Deadline | undefined,
  started: number,
  trace: TraceRecorder,
  produced: PromiseLike<Output>,
): Promise<AttemptRecord> {
  let output: Output;
  try {
    output = await produced;
  } catch (error) {
    return targetFailed(definition, spec, error, started, trace);
  }
  return judgeOutput(definition, spec, context, deadline, started, trace, output);
}

/** The target threw (or ran out of time): an errored attempt, with the steps it traced before. */
function targetFailed<Input, Output>(
  definition: SuiteDefinition<Input, Output>,
  spec: CaseSpec,
  error: unknown,
  started: number,
  trace: TraceRecorder,
): AttemptRecord {
  const record = erroredRecord({
    evalId: definition.id,
    caseId: spec.id,
    message: thrownWhere(error),
    where: `target of case "${spec.id}" in eval "${definition.id}"`,
    elapsedMs: realNow() - started,
    max: definition.scorers.length,
    stack: thrownStack(error),
  });
  // What led up to a crash is the trace most worth keeping.
  const steps = trace.take();
  if (steps) record.trace = steps;
  return record;
}

/** Every scorer on the target's output; synchronous when every scorer answers synchronously. */
function judgeOutput<Input, Output>(
  definition: SuiteDefinition<Input, Output>,
  spec: CaseSpec,
  context: AttemptContext,
  deadline: Deadline | undefined,
  started: number,
  trace: TraceRecorder,
  output: Output,
): AttemptRecord | Promise<AttemptRecord> {
  const plan = planOf(definition);
  const args: ScorerMapArgs<Output> = {
    output,
    expected: spec.expected,
    input: spec.input,
    caseId: spec.id,
  };
  const judgments = new Array<Judgment>(plan.count);
  let pending: Promise<void>[] | undefined;
  // Each scorer sees the input and expected value as the case defined them, not what the target,
  // another scorer or an earlier trial changed (a primitive is its own copy: nothing to make).
  const copies = isCopied(spec.input) || isCopied(spec.expected);
  for (let index = 0; index < plan.count; index++) {
    const own = copies ? scorerArgs(args, spec) : args;
    const result = judgeScorer(plan, index, own, spec, context, deadline);
    if (result instanceof Promise) {
      if (pending === undefined) pending = [];
      pending.push(
        result.then((judgment) => {
          judgments[index] = judgment;
        }),
      );
    } else judgments[index] = result;
  }
  if (pending === undefined)
    return finishRecord(definition, spec, context, started, trace, output, judgments);
  return Promise.all(pending).then(() =>
    finishRecord(definition, spec, context, started, trace, output, judgments),
  );
}

function finishRecord<Input, Output>(
  definition: SuiteDefinition<Input, Output>,
  spec: CaseSpec,
  context: AttemptContext,
  started: number,
  trace: TraceRecorder,
  output: Output,
  judgments: Judgment[],
): AttemptRecord {
  const judgeUsage = emptyJudgeUsage();
  for (const judgment of judgments) addJudgeUsage(judgeUsage, judgment.judge);
  if (context.onJudgment !== undefined) {
    for (const judgment of judgments) context.onJudgment(judgment);
  }
  const record: AttemptRecord = {
    evalId: definition.id,
    caseId: spec.id,
    verdict: decideVerdict(judgments),
    score: summarizeScore(judgments),
    judgments,
    usage: { app: unreportedUsage(), judge: judgeUsage },
    elapsedMs: realNow() - started,
  };
  // A failed case's output is kept for the report to show, even when outputs are not kept.
  if (context.keepOutput || record.verdict === "failed") record.output = output;
  const steps = trace.take();
  if (steps) record.trace = steps;
  return record;
}

/** One scorer's judgment, inside a judge-usage ledger when a judge can be called. */
function judgeScorer<Input, Output>(
  plan: SuitePlan<Input, Output>,
  index: number,
  args: ScorerMapArgs<Output>,
  spec: CaseSpec,
  context: AttemptContext,
  deadline: Deadline | undefined,
): Judgment | Promise<Judgment> {
  // No judge can be called: no ledger to open (no promise at all for a synchronous scorer).
  if (!judgeLedgersOpen()) {
    const result = judgeWithin(plan, index, args, spec, context, deadline);
    if (result instanceof Promise) return result.then((judgment) => gated(plan, judgment));
    return gated(plan, result);
  }
  return withJudgeLedger(
    async () => judgeWithin(plan, index, args, spec, context, deadline),
    deadline?.signal ?? context.signal,
  ).then(({ result, usage }) => {
    if (usage.calls + usage.cachedCalls > 0) result.judge = usage;
    return gated(plan, result);
  });
}

function gated<Input, Output>(plan: SuitePlan<Input, Output>, judgment: Judgment): Judgment {
  if (plan.gates && !plan.gates.has(judgment.label)) judgment.gate = false;
  return judgment;
}

/** A scorer still running at the limit is an errored judgment; the others keep theirs. */
function judgeWithin<Input, Output>(
  plan: SuitePlan<Input, Output>,
  index: number,
  args: ScorerMapArgs<Output>,
  spec: CaseSpec,
  context: AttemptContext,
  deadline: Deadline | undefined,
): Judgment | Promise<Judgment> {
  if (!deadline) return judgeWith(plan, index, args, spec, context.signal, context.signal);
  const label = plan.labels[index]!;
  // The judge calls this scorer has in flight: what a timeout names instead of a slow scorer.
  const waits = judgeWaitsHere();
  return deadline.race(
    () => judgeWith(plan, index, args, spec, context.signal, deadline.signal),
    () =>
      erroredJudgment(
        label,
        errorMessage(deadline.timeoutError(`scorer "${label}"`, judgeWaitText(waits, deadline.ms))),
        plan.sources[index],
      ),
  );
}

/**
 * What identifies a suite's configuration: its scorers (with their tools and the judge models
 * they were built with, when known), threshold, gates, timeout.
 */
function suiteFingerprint<Input, Output>(
  definition: SuiteDefinition<Input, Output>,
  ids: string[],
): unknown {
  return {
    style: "suite",
    scorers: definition.scorers.map((scorer, index) => {
      const models = judgeModelsOf(scorer);
      return {
        id: ids[index],
        tool: (scorer as { toolId?: string }).toolId ?? "createScorer",
        // Only when known, so a suite without them keeps the configuration hash it had.
        ...(models.length > 0 ? { judgeModels: models } : {}),
      };
    }),
    threshold: definition.threshold ?? 0.5,
    gates: definition.gates ?? null,
    timeoutMs: definition.timeoutMs ?? null,
  };
}

/** One scorer on one case; synchronous for a bound tool scorer whose tool answers synchronously. */
function judgeWith<Input, Output>(
  plan: SuitePlan<Input, Output>,
  index: number,
  args: ScorerMapArgs<Output>,
  spec: CaseSpec,
  runSignal: AbortSignal,
  attemptSignal: AbortSignal,
): Judgment | Promise<Judgment> {
  const scorer = plan.scorers[index]!;
  const label = plan.labels[index]!;
  if (plan.named[index]) {
    return judgeNamed(
      scorer as NamedScorer<Output, unknown>,
      label,
      args,
      spec,
      plan.threshold,
      runSignal,
    );
  }
  const bound = scorer as BoundScorer<Output>;
  const source = plan.sources[index]!;
  try {
    const binding = plan.bindings[index];
    const score = binding
      ? callBinding(binding, args, attemptSignal)
      : bound.run(args, attemptSignal);
    if (isThenable(score)) return toolScoreLater(label, source, score);
    return fromToolScore(label, source, score);
  } catch (error) {
    return scorerFailed(label, source, error);
  }
}

/** A binding's tool on what its mapInput made of the attempt, awaited when it is a promise. */
function callBinding<Output>(
  binding: Binding<Output>,
  args: ScorerMapArgs<Output>,
  signal: AbortSignal,
): Score | Promise<Score> {
  const input = binding.mapInput(args);
  if (!isThenable(input)) return callTool(binding.tool, binding.candidates, input, signal);
  return Promise.resolve(input).then((value) =>
    callTool(binding.tool, binding.candidates, value, signal),
  );
}

async function toolScoreLater(
  label: string,
  source: string,
  pending: PromiseLike<Score>,
): Promise<Judgment> {
  try {
    const score = await pending;
    return fromToolScore(label, source, score);
  } catch (error) {
    return scorerFailed(label, source, error);
  }
}

/**
 * A named scorer's judgment: at once when its callback answers synchronously (a createScorer
 * scorer), else once its promise settles.
 */
function judgeNamed<Output>(
  scorer: NamedScorer<Output, unknown>,
  label: string,
  args: ScorerMapArgs<Output>,
  spec: CaseSpec,
  threshold: number,
  runSignal: AbortSignal,
): Judgment | Promise<Judgment> {
  try {
    // A config factory is resolved with the run's context, once per signal.
    // Resolved on the run's signal, so a factory runs once per run, not once per attempt.
    const context = runtimeContextOf(runSignal);
    const scorerArgs = {
      ...(spec.metadata ?? {}),
      input: args.input,
      output: args.output,
      expected: args.expected,
    };
    const now = scoreNowOf(scorer);
    const result = now ? now(context)(scorerArgs) : scorer.withRuntime(context)(scorerArgs);
    if (isThenable(result)) return namedScoreLater(label, result, threshold);
    return fromNamedScore(label, result.score, result.metadata, threshold);
  } catch (error) {
    return scorerFailed(label, NAMED_SOURCE, error);
  }
}

async function namedScoreLater(
  label: string,
  pending: PromiseLike<NamedScore>,
  threshold: number,
): Promise<Judgment> {
  try {
    const result = await pending;
    return fromNamedScore(label, result.score, result.metadata, threshold);
  } catch (error) {
    return scorerFailed(label, NAMED_SOURCE, error);
  }
}

/**
 * A scorer that threw, as a judgment from the same source as its answers, so a comparison pairs
 * a judge's unavailable judgment with its available one.
 */
function scorerFailed(label: string, source: string, thrown: unknown): Judgment {
  const error = readableThrown(thrown);
  // A judge that could not answer is missing evidence, not a crash and never a zero.
  if (isJudgeUnavailable(error)) {
    return {
      ...erroredJudgment(label, `scorer "${label}": ${errorMessage(error)}`, source),
      state: "unavailable",
    };
  }
  // A malformed result already says which scorer and what to return instead.
  if ((error as { code?: unknown } | null)?.code === "SCORER_RESULT")
    return erroredJudgment(label, errorMessage(error), source);
  // Where in the user's code, as a target's error says it.
  const judgment = erroredJudgment(label, `scorer "${label}" threw: ${thrownWhere(error)}`, source);
  // Its whole stack is the judgment's detail (a scorer that threw has no metadata to show).
  const stack = thrownStack(error);
  if (stack !== undefined) judgment.detail = { stack };
  thrownByScorers.set(judgment, { error });
  return judgment;
}

/**
 * What a scorer threw, beside its errored judgment rather than in it (a record is data that
 * crosses processes): read by the Vitest faces, in process, to give the failure its cause.
 */
const thrownByScorers = new WeakMap<Judgment, { error: unknown }>();

/** What the scorer of an errored judgment threw, when it threw in this process. */
export function thrownByScorer(judgment: Judgment): { error: unknown } | undefined {
  return thrownByScorers.get(judgment);
}

function scorerLabel<Input, Output>(scorer: SuiteScorer<Input, Output>): string {
  return isScorer(scorer) ? scorer.name : (scorer as BoundScorer<Output>).id;
}

/** The source of a scorer's judgments: a bound scorer's tool id, or "scorer". */
function scorerSource<Input, Output>(scorer: SuiteScorer<Input, Output>): string {
  return isScorer(scorer) ? NAMED_SOURCE : (scorer as BoundScorer<Output>).toolId;
}

/** A tool Score as a judgment: a gate worth one point. */
export function fromToolScore(label: string, source: string, score: Score): Judgment {
  const wrong = notAScore(score);
  if (wrong !== undefined)
    return erroredJudgment(
      label,
      `scorer "${label}": its tool ${source} returned ${wrong}; a scorer's tool returns a Score { value: 0..1, passed, label } (scoreSchema)`,
      source,
    );
  if (score.errored === true) {
    return erroredJudgment(label, `scorer "${label}": ${score.rationale ?? "errored"}`, source);
  }
  // Missing evidence is never a zero: its point stays in max, earned nothing.
  if (score.unavailable === true) {
    return {
      ...erroredJudgment(label, `scorer "${label}": ${score.rationale ?? "no evidence"}`, source),
      state: "unavailable",
    };
  }
  return {
    label,
    source,
    state: score.passed ? "matched" : "mismatched",
    gate: true,
    points: 1,
    earned: score.value,
    value: score.value,
    reason: score.rationale ?? (score.passed ? "passed" : "failed"),
  };
}

/**
 * What is wrong with a tool's answer as a Score, or undefined when it is one: a tool whose output
 * schema is not a Score (JavaScript, a cast) would otherwise pass or fail without a word.
 */
function notAScore(score: unknown): string | undefined {
  if (typeof score !== "object" || score === null) return `${givenText(score)}, not a Score`;
  const { value, passed, label, errored, unavailable } = score as Record<string, unknown>;
  if (errored === true || unavailable === true) return undefined;
  if (typeof value !== "number" || !(value >= 0 && value <= 1))
    return `a value of ${givenText(value)}, not a number from 0 to 1`;
  if (typeof passed !== "boolean") return `passed ${givenText(passed)}, not true or false`;
  if (typeof label !== "string") return `a label of ${givenText(label)}, not a string`;
  return undefined;
}

/** A createScorer result as a judgment; non-finite scores are errors, null counts as 0. */
export function fromNamedScore(
  label: string,
  value: number | null,
  metadata: Record<string, unknown> | undefined,
  threshold: number,
): Judgment {
  if (value !== null && (typeof value !== "number" || !Number.isFinite(value))) {
    return erroredJudgment(
      label,
      `scorer "${label}" returned a non-finite score (${String(value)}); return a finite number or null`,
    );
  }
  // Points stay within the scorer's one point; the raw value is kept and shown.
  const effective = Math.min(1, Math.max(0, value ?? 0));
  const passed = (value ?? 0) >= threshold;
  // Three decimals, or as many as show it on its side of the threshold: never "0.5 < threshold 0.5".
  const shown = shownApart(value ?? 0, threshold, decimals, 3, 20);
  const judgment: Judgment = {
    label,
    source: NAMED_SOURCE,
    state: passed ? "matched" : "mismatched",
    gate: true,
    points: 1,
    earned: effective,
    value,
    reason:
      value === null
        ? "no score (null counts as 0)"
        : `${shown} ${passed ? ">=" : "<"} threshold ${threshold}${value !== effective ? ` (outside 0..1: earns ${effective})` : ""}`,
  };
  // A scorer may explain itself through metadata.reason; show it rather than the arithmetic.
  if (typeof metadata?.reason === "string")
    judgment.reason = `${judgment.reason}: ${metadata.reason}`;
  if (metadata !== undefined) judgment.detail = metadata;
  return judgment;
}

/** An errored judgment worth one point; `source` as the scorer's other judgments have it. */
export function erroredJudgment(label: string, reason: string, source = NAMED_SOURCE): Judgment {
  return {
    label,
    source,
    state: "errored",
    gate: true,
    points: 1,
    earned: null,
    value: null,
    reason,
  };
}
