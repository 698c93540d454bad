import { describe, expect, it } from "vitest";
import { defineAdapter } from "../adapter/define-adapter.js";
import { defineSuite } from "../eval/suite.js";
import { createScorer } from "../scorers/create-scorer.js";
import {
  collectEvals,
  EvalIds,
  misexportCandidates,
  misexportErrors,
  noEvalMessage,
} from "./eval-exports.js";

const same = createScorer({ name: "same", score: () => ({ score: 1 }) });
const suite = (id: string) =>
  defineSuite({ id, cases: [{ id: "a", input: 1 }], target: (x: number) => x, scorers: [same] });

describe("EvalIds", () => {
  const dup = defineAdapter({ name: "dup", create: () => ({}) });
  const made = (description: string) => dup.defineScoreEval({ description, test() {} });

  it("says two different descriptions slug to one derived id, and to pass id", () => {
    const { kept, errors } = new EvalIds().admit("slug.eval.ts", [
      { runnable: made("Same thing"), name: "one" },
      { runnable: made("same   thing!"), name: "two" },
    ]);
    expect(kept.map((e) => e.id)).toEqual(["dup.same-thing"]);
    expect(errors).toEqual([
      {
        file: "slug.eval.ts",
        leftOut: ["two"],
        message:
          'export "two" was left out: it has the eval id "dup.same-thing" of export "one" of this file; give each eval a unique id: this id is derived from the adapter name "dup" and the description, and the descriptions "Same thing" and "same   thing!" both slug to it; pass `id` to defineScoreEval({ id, … }) of one of them',
      },
    ]);
  });

  it("leaves out an eval whose id holds half a character (a lone surrogate), naming it", () => {
    // Cut from text inside an emoji: SQLite keeps it as other bytes, so the viewer cannot find it.
    const cut = "qa 👩".slice(0, -1);
    const { kept, errors } = new EvalIds().admit("cut.eval.ts", [
      { runnable: suite(cut), name: "cut" },
      { runnable: suite("whole 👩"), name: "whole" },
    ]);
    expect(kept.map((e) => e.id)).toEqual(["whole 👩"]);
    expect(errors).toEqual([
      {
        file: "cut.eval.ts",
        leftOut: ["cut"],
        message:
          'export "cut" was left out: its eval id "qa \\ud83d" holds a lone surrogate (U+D83D), half of a character (text cut inside an emoji?), which a store cannot keep as it is; use whole characters',
      },
    ]);
  });

  it("keeps saying a function that makes evals needs an id parameter when the description is the same", () => {
    const { errors } = new EvalIds().admit("f.eval.ts", [
      { runnable: made("Same thing"), name: "a" },
      { runnable: made("Same thing"), name: "b" },
    ]);
    expect(errors[0]?.message).toMatch(
      /the same for every eval one function makes, so give that function an id parameter and pass it to defineScoreEval\(\{ id, … \}\)$/,
    );
  });
});

describe("noEvalMessage", () => {
  it("says a suite object made without defineSuite is one, target or not", () => {
    const target = (x: number) => x;
    expect(noEvalMessage({ plain: { id: "p", cases: [], target, scorers: [same] } })).toBe(
      'export "plain" is a plain object, not an eval; wrap it: export const plain = defineSuite({ ... })',
    );
    expect(noEvalMessage({ bare: { id: "p", cases: [], scorers: [] } })).toBe(
      'export "bare" is a suite without a target; export defineSuite({ ...bare, target }) instead',
    );
  });

  it("names the evals an exported object holds, and an exported function", () => {
    expect(noEvalMessage({ default: { a: suite("a"), b: suite("b") } })).toBe(
      'export "default" is an object holding the evals "a", "b"; niceeval runs the evals a file exports itself: export each by name (export const a = ...)',
    );
    expect(noEvalMessage({ default: () => suite("f") })).toMatch(
      /^exports no eval: export "default" is a function; export the eval it makes/,
    );
    expect(noEvalMessage({ nothing: 1 })).toBe(
      "exports no eval; export the result of defineSuite(...) or adapter.defineScoreEval(...)",
    );
  });

  it("never runs a getter of the user's, nor throws", () => {
    const env = {
      get KEY(): string {
        throw new Error("KEY is not set");
      },
    };
    expect(noEvalMessage({ env })).toBe(
      "exports no eval; export the result of defineSuite(...) or adapter.defineScoreEval(...)",
    );
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error("no keys");
        },
      },
    );
    expect(noEvalMessage({ hostile })).toMatch(/^exports no eval;/);
  });
});

describe("misexportErrors", () => {
  const target = (x: number) => x;
  const errorsOf = (module: Record<string, unknown>, otherIds: string[] = []) => {
    const ids = new Set([
      ...collectEvals(module, undefined).map((e) => e.runnable.id),
      ...otherIds,
    ]);
    return misexportErrors(misexportCandidates(module, "mix.eval.ts"), ids);
  };

  it("names the exports of a file with evals that look like evals that will not run", () => {
    const good = suite("good");
    const shared = suite("shared");
    const module = {
      good,
      shared,
      forgotten: { id: "f", cases: [], target, scorers: [same] },
      grouped: { failing: suite("failing") },
      // Evals the file exports by name as well are run; helpers and data are no evals.
      all: { shared },
      cases: [{ id: "a", input: 1 }],
      schema: { type: "object" },
      make: () => suite("made"),
    };
    expect(errorsOf(module)).toEqual([
      {
        file: "mix.eval.ts",
        leftOut: ["forgotten"],
        message:
          'export "forgotten" is a plain object, not an eval; wrap it: export const forgotten = defineSuite({ ... })',
      },
      {
        file: "mix.eval.ts",
        leftOut: ["grouped"],
        message:
          'export "grouped" is an object holding the eval "failing"; niceeval runs the evals a file exports itself: export it by name (export const failing = ...)',
      },
    ]);
  });

  it("leaves alone the definition of a suite the run has, and evals another file of the run exports", () => {
    const cases = [{ id: "a", input: 1 }];
    const definition = { id: "qa", cases, scorers: [same], target };
    const base = { id: "base", cases, scorers: [same] };
    const module = {
      definition,
      qa: defineSuite(definition),
      base,
      withTarget: defineSuite({ ...base, target }),
      // A namespace of another eval file, re-exported: its evals run from their own file.
      others: { ok: suite("ok") },
    };
    expect(errorsOf(module, ["ok"])).toEqual([]);
    // Without that file in the run, they would not run: said.
    expect(errorsOf(module).map((error) => error.leftOut)).toEqual([["others"]]);
  });
});
