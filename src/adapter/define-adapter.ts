import { AuthoringError } from "../errors.js";
import { type CaseSpec, EVAL_BRAND } from "../eval/runnable.js";
import {
  checkTimeoutMs,
  checkWholeNumber,
  DEFAULT_CASE_TIMEOUT_MS,
  givenText,
} from "../eval/timeout.js";
import { judgeModelsOf } from "../judge/judge-models.js";
import { noteUserScoring } from "../judge/ledger.js";
import { refuseUnknownKeys } from "../known-keys.js";
import { checkRunId } from "../run-fields.js";
import { abortGrace, DEFAULT_ABORT_GRACE_MS } from "../runner/abort-grace.js";
import { keptRecord } from "../runner/cut-off.js";
import { crashed } from "../runner/source.js";
import { type AttemptSetup, runAttempt } from "./attempt.js";
import { evalIdFor } from "./slug.js";
import {
  type Adapter,
  type AdapterDefinition,
  type AssertionsBesideFacts,
  adapterDefinitionKeys,
  type EvalRunOptions,
  type FactsWithoutToolNames,
  type ScoreEval,
  type ScoreEvalDefinition,
  scoreEvalDefinitionKeys,
} from "./types.js";

/** The one case of an eval built from an adapter. */
const onlyCase: CaseSpec = Object.freeze({ id: "default", index: 0 });

/**
 * Declare an adapter: how to observe the application (`create`, returning its facts) and
 * the adapter's own assertions built from `check`. Evals are then made with
 * `adapter.defineScoreEval` (gates and points) or `adapter.defineEval` (pass/fail).
 * @example
 * const adapter = defineAdapter({
 *   name: "support-review",
 *   create: async (ctx) => observe(ctx),
 *   assertions: ({ check }) => ({ said: (m) => check(speechMaterial(m)) }),
 * });
 */
export function defineAdapter<
  Facts extends object & FactsWithoutToolNames<Facts>,
  Assertions extends FactsWithoutToolNames<Assertions> &
    AssertionsBesideFacts<Assertions, Facts> = Record<never, never>,
>(definition: AdapterDefinition<Facts, Assertions>): Adapter<Facts, Assertions> {
  const name: unknown = definition?.name;
  refuseUnknownKeys(
    typeof name === "string" && name.trim() ? `defineAdapter("${name}")` : "defineAdapter",
    definition,
    adapterDefinitionKeys,
  );
  if (typeof definition?.name !== "string" || definition.name.trim() === "") {
    throw new AuthoringError(
      `defineAdapter: \`name\` must be a non-empty string, the adapter's name in reports; got ${givenText(definition?.name)}`,
    );
  }
  if (typeof definition.create !== "function") {
    throw new AuthoringError(
      `defineAdapter("${definition.name}"): \`create\` must be a function that returns the facts`,
    );
  }
  if (definition.assertions !== undefined && typeof definition.assertions !== "function") {
    throw new AuthoringError(
      `defineAdapter("${definition.name}"): \`assertions\` must be a function of { check }`,
    );
  }
  const make = (
    evalDefinition: ScoreEvalDefinition<Facts, Assertions>,
    passFail: boolean,
  ): ScoreEval => {
    const method = passFail ? "defineEval" : "defineScoreEval";
    const where = `adapter "${definition.name}".${method}`;
    refuseUnknownKeys(
      `${where}${describedEval(definition.name, evalDefinition)}`,
      evalDefinition,
      scoreEvalDefinitionKeys,
    );
    if (
      typeof evalDefinition?.description !== "string" ||
      evalDefinition.description.trim() === ""
    ) {
      throw new AuthoringError(`${where}: \`description\` must be a non-empty string`);
    }
    if (typeof evalDefinition.test !== "function") {
      throw new AuthoringError(
        `${where}("${evalDefinition.description}"): \`test\` must be a function of t`,
      );
    }
    checkTimeoutMs(`${where}: \`timeoutMs\``, evalDefinition.timeoutMs);
    checkWholeNumber(`${where}: \`trials\``, evalDefinition.trials, 1, Number.MAX_SAFE_INTEGER);
    const id = evalIdFor(definition.name, evalDefinition.description, evalDefinition.id);
    if (id === "") throw new AuthoringError(`${where}: the eval id is empty; pass \`id\``);
    // Its test may ask a judge named only by the environment (t.closeQA).
    noteUserScoring();
    const setup: AttemptSetup<Facts, Assertions> = {
      evalId: id,
      adapter: definition,
      definition: evalDefinition,
      passFail,
    };
    return {
      [EVAL_BRAND]: true,
      id,
      style: "score",
      kind: passFail ? "pass-fail-eval" : "score-eval",
      ...(passFail ? { passFail: true as const } : {}),
      adapter: definition.name,
      description: evalDefinition.description,
      ...(evalDefinition.trials !== undefined ? { trials: evalDefinition.trials } : {}),
      fingerprint: () => ({
        style: "score",
        adapter: definition.name,
        passFail,
        timeoutMs: evalDefinition.timeoutMs ?? null,
        judge: evalDefinition.judge ? judgeName(evalDefinition.judge) : null,
        test: String(evalDefinition.test),
      }),
      judgeModels: () => judgeModelsOf(evalDefinition.judge),
      cases: () => [onlyCase],
      runCase: (spec, context) => runAttempt(setup, spec, context),
      run: (options: EvalRunOptions = {}) => runAlone(setup, options, where),
    };
  };
  return Object.freeze({
    kind: "adapter" as const,
    name: definition.name,
    defineScoreEval: (evalDefinition: ScoreEvalDefinition<Facts, Assertions>) =>
      make(evalDefinition, false),
    defineEval: (evalDefinition: ScoreEvalDefinition<Facts, Assertions>) =>
      make(evalDefinition, true),
  });
}

/** " (eval "<id>")" when the eval's id is known from what its definition gives, else "". */
function describedEval(adapterName: string, given: unknown): string {
  const { id, description } = (given ?? {}) as { id?: unknown; description?: unknown };
  if (typeof id === "string") return ` (eval "${id}")`;
  if (typeof description !== "string" || description.trim() === "") return "";
  return ` (eval "${evalIdFor(adapterName, description)}")`;
}

/** `review.run(options)`: the score eval's one attempt, alone, as a run would make it. */
async function runAlone<Facts, Assertions>(
  setup: AttemptSetup<Facts, Assertions>,
  options: EvalRunOptions,
  where: string,
) {
  checkTimeoutMs(`${where}(…).run: \`timeoutMs\``, options.timeoutMs);
  checkTimeoutMs(`${where}(…).run: \`abortGraceMs\``, options.abortGraceMs);
  if (options.runId !== undefined)
    checkRunId(
      options.runId,
      `${where}(…).run: \`runId\``,
      "pass an id of your own, or leave it out for a local one",
    );
  const evalDefinition = setup.definition;
  const signal = options.signal ?? new AbortController().signal;
  const grace = abortGrace(signal, options.abortGraceMs ?? DEFAULT_ABORT_GRACE_MS);
  const running = runAttempt(
    options.judge || options.timeoutMs !== undefined
      ? {
          ...setup,
          definition: {
            ...evalDefinition,
            ...(options.judge ? { judge: options.judge } : {}),
            ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
          },
        }
      : setup,
    onlyCase,
    {
      runId: options.runId ?? `local-${Date.now().toString(36)}`,
      signal,
      // Alone, as in a run: an eval with no limit of its own gets the last-resort one, so an
      // adapter or judge that never settles errors the attempt instead of hanging.
      timeoutMs: options.timeoutMs ?? evalDefinition.timeoutMs ?? DEFAULT_CASE_TIMEOUT_MS,
      ...(options.onJudgment ? { onJudgment: options.onJudgment } : {}),
    },
  );
  // Once the signal aborts, an adapter or judge that ignores it is given up on after the grace.
  const given = grace.over.then((message) => crashed({ id: setup.evalId }, onlyCase, message));
  try {
    const record = await Promise.race([running, given]);
    // Cancelled while it ran, its verdict would judge the cut-short answer, and an error then is
    // most likely the abort (a fetch given ctx.signal): both errored as interrupted, as in a run.
    return keptRecord(record, { signal });
  } finally {
    grace.dispose();
  }
}

/**
 * What a score eval's own judge is called in its fingerprint: the model createCloseQAJudge (or
 * closeQAFromAiSdk) built it on, else the `model` it holds, else "custom" (a judge of the user's own).
 */
function judgeName(judge: object): string {
  const models = judgeModelsOf(judge);
  if (models.length > 0) return models.join(", ");
  return String((judge as { model?: unknown }).model ?? "custom");
}
