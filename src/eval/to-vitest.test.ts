import { describe, expect, it } from "vitest";
import { createScorer } from "../scorers/create-scorer.js";
import {
  evalScorersProvider,
  exactMatchTool,
  latencyBudgetTool,
} from "../scorers/deterministic/index.js";
import { bindScorer, defineSuite, type TypedEvalSuite } from "./suite.js";
import { toVitest, type VitestHooks, type VitestTestContext } from "./to-vitest.js";
import { caseLimit } from "./vitest-limit.js";

interface Answer {
  text: string;
}

const exact = bindScorer<Answer, { actual: string; expected: string }>({
  id: "exact",
  tool: exactMatchTool,
  driver: evalScorersProvider,
  mapInput: ({ output, expected }) => ({ actual: output.text, expected: String(expected) }),
});
// Stands for a latency budget: five characters "take" one unit each against a budget of 5.
const short = bindScorer<Answer, { durationMs: number; budgetMs: number }>({
  id: "short",
  tool: latencyBudgetTool,
  driver: evalScorersProvider,
  mapInput: ({ output }) => ({ durationMs: output.text.length, budgetMs: 5 }),
});

const suite: TypedEvalSuite<{ prompt: string }, Answer> = {
  id: "echo",
  cases: [
    { id: "a", input: { prompt: "hello" }, expected: "hello" },
    { id: "b", input: { prompt: "world" }, expected: "world" },
  ],
  scorers: [exact, short],
};

/** Hooks that record what toVitest registers, so each test body can be run and inspected. */
function recordingHooks() {
  const describes: string[] = [];
  const tests: {
    name: string;
    timeout: number | undefined;
    fn: (context: VitestTestContext) => Promise<void>;
  }[] = [];
  const hooks: VitestHooks = {
    describe: (name, factory) => {
      describes.push(name);
      factory();
    },
    it: (name, fn, timeout) => {
      tests.push({ name, fn, timeout });
    },
  };
  return { hooks, describes, tests };
}

describe("toVitest", () => {
  it("registers describe(suite.id) with one it(caseId) per case, with the timeout", () => {
    const recorded = recordingHooks();
    toVitest(suite, { target: ({ prompt }) => ({ text: prompt }), timeout: 1234 }, recorded.hooks);
    expect(recorded.describes).toEqual(["echo"]);
    expect(recorded.tests.map((t) => [t.name, t.timeout])).toEqual([
      ["a", 1234],
      ["b", 1234],
    ]);
  });

  it("passes a case whose scorers all pass", async () => {
    const recorded = recordingHooks();
    toVitest(suite, { target: ({ prompt }) => ({ text: prompt }) }, recorded.hooks);
    for (const test of recorded.tests) await expect(test.fn({})).resolves.toBeUndefined();
  });

  it("names each failed scorer with its value and rationale, and not the passing ones", async () => {
    const recorded = recordingHooks();
    toVitest(
      suite,
      { target: ({ prompt }) => ({ text: prompt === "world" ? "worlds!" : prompt }) },
      recorded.hooks,
    );
    const failure = await recorded.tests[1]!.fn({}).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    const message = (failure as Error).message;
    expect(message).toMatch(/^case "b" of "echo" failed\n/);
    expect(message).toMatch(/\n {2}exact: mismatched, value 0 \(.+\)/);
    expect(message).toMatch(/\n {2}short: mismatched, value 0\.6 \(.+\)/);
    expect((failure as Error).cause).toBeUndefined();
  });

  it("reports a throwing target as an errored case with the error and where it happened", async () => {
    const recorded = recordingHooks();
    const thrown = new Error("no model");
    toVitest(
      suite,
      {
        target: () => {
          throw thrown;
        },
      },
      recorded.hooks,
    );
    const failure = (await recorded.tests[0]!.fn({}).catch((error: Error) => error)) as Error;
    expect(failure.message).toBe(
      'case "a" of "echo" errored\n  target of case "a" in eval "echo": no model',
    );
    // The target's own error, stack and all, is the failure's cause.
    expect(failure.cause).toBe(thrown);
  });

  it("hands the target a signal that follows the test's", async () => {
    const recorded = recordingHooks();
    const controller = new AbortController();
    toVitest(
      suite,
      {
        // Answers once its signal aborts, and says why.
        target: (_input, { signal }) =>
          new Promise<Answer>((resolve) =>
            signal.addEventListener("abort", () => resolve({ text: String(signal.reason) })),
          ),
      },
      recorded.hooks,
    );
    const running = recorded.tests[0]!.fn({ signal: controller.signal });
    controller.abort("test cancelled");
    await expect(running).rejects.toThrow('actual "test cancelled"');
  });

  it("stops a target at a limit a little under the test's timeout, naming both", async () => {
    const recorded = recordingHooks();
    let seen: AbortSignal | undefined;
    toVitest(
      suite,
      {
        target: (_input, { signal }) => {
          seen = signal;
          return new Promise<Answer>(() => {});
        },
      },
      recorded.hooks,
    );
    const failure = (await recorded.tests[0]!.fn({ task: { timeout: 50 } }).catch(
      (error: Error) => error,
    )) as Error;
    expect(seen?.aborted).toBe(true);
    expect(failure.message).toBe(
      'case "a" of "echo" errored\n  target of case "a" in eval "echo": the target timed out after 45 ms (the test\'s timeout, 50 ms, less 5 ms for niceeval to report it); raise the timeout or make it faster',
    );
  });
});

describe("caseLimit", () => {
  it("keeps 10% of the test's timeout, at most 100 ms, and none without a timeout", () => {
    expect(caseLimit(200)).toEqual({ ms: 180, testTimeout: 200 });
    expect(caseLimit(5_000)).toEqual({ ms: 4_900, testTimeout: 5_000 });
    expect(caseLimit(5)).toEqual({ ms: 4, testTimeout: 5 });
    expect(caseLimit(1)).toBeUndefined();
    expect(caseLimit(0)).toBeUndefined();
    expect(caseLimit(undefined)).toBeUndefined();
  });

  it("registers one failing test, not passing cases, for a suite with no scorers or no cases", async () => {
    for (const [broken, message] of [
      [{ ...suite, scorers: [] }, 'suite "echo" has no scorers, so no case can pass or fail'],
      [{ ...suite, cases: [] }, 'suite "echo" has no cases; give it at least one'],
    ] as const) {
      const recorded = recordingHooks();
      toVitest(broken, { target: ({ prompt }) => ({ text: prompt }) }, recorded.hooks);
      expect(recorded.tests.map((t) => t.name)).toEqual(["(cases)"]);
      await expect(recorded.tests[0]!.fn({})).rejects.toThrow(message);
    }
  });

  it("fails the second case of a duplicated id, naming both indexes, and runs the first", async () => {
    const recorded = recordingHooks();
    const twice = { ...suite, cases: [suite.cases[0]!, suite.cases[0]!, suite.cases[1]!] };
    toVitest(twice, { target: ({ prompt }) => ({ text: prompt }) }, recorded.hooks);
    expect(recorded.tests.map((t) => t.name)).toEqual(["a", "a", "b"]);
    await expect(recorded.tests[0]!.fn({})).resolves.toBeUndefined();
    await expect(recorded.tests[1]!.fn({})).rejects.toThrow(
      'case id "a" appears twice in suite "echo" (at index 0 and 1); give each case a unique id',
    );
  });

  it("rejects an unknown or misspelt key of the suite or the options, and an eval for a suite, naming the suite", () => {
    const target = ({ prompt }: { prompt: string }) => ({ text: prompt });
    const cases: [() => void, string][] = [
      [
        () =>
          toVitest({ ...suite, tiemout: 5 } as typeof suite, { target }, recordingHooks().hooks),
        'toVitest("echo"): unknown key "suite.tiemout"; known keys: suite.id, suite.cases, suite.scorers',
      ],
      [
        () =>
          toVitest(
            { ...suite, gates: ["exact"] } as typeof suite,
            { target },
            recordingHooks().hooks,
          ),
        'toVitest("echo"): "suite.gates" is a setting of defineSuite, which a plain { id, cases, scorers } suite does not have; toVitest holds each case to every scorer at the default threshold',
      ],
      [
        () =>
          toVitest(
            suite,
            { target, timout: 10 } as { target: typeof target },
            recordingHooks().hooks,
          ),
        'toVitest("echo"): unknown key "options.timout" (did you mean "options.timeout"?); known keys: options.target, options.timeout',
      ],
      [
        () =>
          toVitest(
            defineSuite({ ...suite, target }) as unknown as typeof suite,
            { target },
            recordingHooks().hooks,
          ),
        'toVitest("echo"): this is an eval (from defineSuite or an adapter), which toVitest does not take',
      ],
    ];
    for (const [register, message] of cases) expect(register).toThrow(message);
  });

  it("refuses a timeout past the bound of every timeout given from code, naming the suite", () => {
    const target = ({ prompt }: { prompt: string }) => ({ text: prompt });
    expect(() =>
      toVitest(suite, { target, timeout: 2_147_483_647 }, recordingHooks().hooks),
    ).toThrow(
      'toVitest("echo"): `timeout` must be a whole number of milliseconds from 1 to 2147482647, got 2147483647',
    );
  });

  // The user wrote toVitest: its messages name that call, never defineSuite, nor `gates` or
  // compare, which a toVitest suite does not have.
  it("names the toVitest call when a scorer is not one or two share a name", () => {
    const target = ({ prompt }: { prompt: string }) => ({ text: prompt });
    const eq = (score: number) =>
      createScorer<Answer, unknown>({ name: "eq", score: () => ({ score }) });
    const plain = ({ output }: { output: Answer }) => ({ name: "exact", score: output ? 1 : 0 });
    const cases: [unknown[], string][] = [
      [
        [plain],
        'toVitest("echo"): scorers[0] is not a scorer (got a function); pass bindScorer(...) or createScorer(...) results (a plain function returning { name, score } is a scorer for evaluate only: wrap it, createScorer({ name, score: fn }))',
      ],
      [
        [exact, undefined],
        'toVitest("echo"): scorers[1] is not a scorer (got nothing); pass bindScorer(...) or createScorer(...) results',
      ],
      [
        [eq(1), eq(0)],
        'toVitest("echo"): scorers[0] and scorers[1] are both named "eq"; a failed case\'s message tells its judgments apart by name, so give each its own (createScorer({ name: "eq 2", … }), bindScorer({ id: … }), or a helper that puts what it checks in the name)',
      ],
    ];
    for (const [scorers, message] of cases) {
      const register = () =>
        toVitest({ ...suite, scorers } as typeof suite, { target }, recordingHooks().hooks);
      expect(register).toThrow(message);
      expect(register).not.toThrow(/defineSuite|gates|compare/);
    }
  });

  it("refuses cases that are not an array, naming what they are and how to run them", () => {
    const target = ({ prompt }: { prompt: string }) => ({ text: prompt });
    async function* streamed() {
      yield* suite.cases;
    }
    const given: [unknown, string][] = [
      [async () => suite.cases, "a function"],
      [streamed(), "an async iterable"],
      [new Set(suite.cases), "an iterable"],
      [Promise.resolve(suite.cases), "a promise"],
      [undefined, "missing"],
    ];
    for (const [cases, kind] of given) {
      const register = () =>
        toVitest({ ...suite, cases } as typeof suite, { target }, recordingHooks().hooks);
      expect(register).toThrow(
        `toVitest("echo"): \`cases\` is ${kind}, not an array; toVitest registers one Vitest test per case as Vitest collects the file, so it takes an array of cases.`,
      );
      expect(register).toThrow(/with runEval, or as an eval in `niceeval run`$/);
    }
  });

  it("asks for Vitest's describe and it when the hooks are left out or lack one", () => {
    const target = ({ prompt }: { prompt: string }) => ({ text: prompt });
    const register = (hooks: unknown) => () => toVitest(suite, { target }, hooks as VitestHooks);
    expect(register(undefined)).toThrow(
      'toVitest("echo"): pass { describe, it } from "vitest" as the third argument; got nothing',
    );
    expect(register({ describe })).toThrow(
      'toVitest("echo"): pass { describe, it } from "vitest" as the third argument; its `it` is not a function (got nothing)',
    );
  });

  it("rejects a missing target when the suite is registered", () => {
    const recorded = recordingHooks();
    expect(() =>
      toVitest(suite, {} as unknown as { target: () => Answer }, recorded.hooks),
    ).toThrow('toVitest: suite "echo" needs `options.target`, a function');
  });
});

// The real Vitest hooks: these cases register and pass as tests of this file.
toVitest(suite, { target: ({ prompt }) => ({ text: prompt }) }, { describe, it, expect });
