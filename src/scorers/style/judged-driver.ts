import { AuthoringError } from "../../errors.js";
import { judgingDriver } from "../../judge/judge-models.js";
import { markJudgePossible } from "../../judge/ledger.js";
import type { JudgeFn, JudgeVerdict } from "../../judge/types.js";
import type { Score } from "../../score/score.js";
import { type Driver, defineDriver, implementTool, type Tool } from "../../tool/index.js";
import { malformedVerdictScore, parseVerdict } from "./verdict.js";

/** How a model-backed style scorer asks its judge and turns a valid verdict into a score. */
export interface JudgedDriverSpec<Input> {
  /** The public factory's name, for build-time errors. */
  factory: string;
  driverId: string;
  tool: Tool<Input, Score>;
  label: string;
  ask: (input: Input) => Parameters<JudgeFn>[0];
  decide: (verdict: JudgeVerdict) => Score;
}

/**
 * Refuse what a driver factory that takes only its judge was given beside it (from JavaScript,
 * `makeOutlineFidelityDriver(judge, { threshold: 0.8 })` would be kept without a word while the
 * seed's fixed gate applies). `why` says why it takes nothing more.
 */
export function refuseMoreThanJudge(factory: string, extra: readonly unknown[], why: string): void {
  if (extra.length === 0) return;
  throw new AuthoringError(
    `${factory} takes only the judge, got ${extra.length} more ${extra.length === 1 ? "argument" : "arguments"}: ${why}`,
  );
}

/**
 * Build a driver around an injected judge: the raw answer is validated with parseVerdict, and a
 * malformed one fails the score, errored (the judge is at fault, never the output). A judge that
 * throws rejects the call (errored, not failed).
 */
export function makeJudgedDriver<Input>(judge: JudgeFn, spec: JudgedDriverSpec<Input>): Driver {
  if (typeof judge !== "function") {
    throw new TypeError(`${spec.factory}(judge): judge must be a JudgeFn (an async function)`);
  }
  markJudgePossible();
  const implementation = implementTool(spec.tool, async (input): Promise<Score> => {
    const raw: unknown = await judge(spec.ask(input));
    const verdict = parseVerdict(raw);
    return verdict ? spec.decide(verdict) : malformedVerdictScore(spec.label, raw);
  });
  return judgingDriver(
    defineDriver({ id: spec.driverId, implementations: [implementation] }),
    judge,
  );
}
