import { describe, expect, it } from "vitest";
import { defineSuite } from "../eval/suite.js";
import { createScorer } from "../scorers/create-scorer.js";
import { noEvalMessage } from "./eval-exports.js";

const same = createScorer({ name: "same", score: () => ({ score: 1 }) });
const suite = (id: string) =>
  defineSuite({ id, cases: [{ id: "a", input: 1 }], target: (x: number) => x, scorers: [same] });

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
