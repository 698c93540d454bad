import { describe, expect, it } from "vitest";
import { AuthoringError } from "../../errors.js";
import type { AttemptRecord } from "../../eval/record.js";
import { defineSuite } from "../../eval/suite.js";
import { runEvals } from "../../runner/run.js";
import { createScorer } from "../create-scorer.js";
import { type AgentRun, calls, type ExpectedCalls } from "./calls.js";

const run = (...names: string[]): AgentRun => ({
  text: "done",
  calls: names.map((toolName) => ({ toolName, input: {}, output: null })),
});

describe("calls", () => {
  it("scores 1 when every rule is kept and lists the tools used", () => {
    expect(
      calls(run("search", "restart"), {
        mustCall: ["search"],
        mustNotCall: ["delete_all"],
        atMostOnce: ["restart"],
      }),
    ).toEqual({
      score: 1,
      reason: 'every call rule kept. Tools used, in order: "search", "restart"',
    });
  });

  it("lists every broken rule, then every tool used, in order", () => {
    expect(
      calls(run("search", "restart", "delete_all", "restart"), {
        mustCall: ["search", "fetch"],
        mustNotCall: ["delete_all"],
        atMostOnce: ["restart"],
      }),
    ).toEqual({
      score: 0,
      reason:
        'missing required call: "fetch"; called forbidden tool: "delete_all"; "restart" called 2 times (at most once). Tools used, in order: "search", "restart", "delete_all", "restart"',
    });
  });

  it("matches the issue's example wording", () => {
    expect(
      calls(run("restart", "delete_all", "restart"), {
        mustCall: ["search"],
        mustNotCall: ["delete_all"],
        atMostOnce: ["restart"],
      }).reason,
    ).toBe(
      'missing required call: "search"; called forbidden tool: "delete_all"; "restart" called 2 times (at most once). Tools used, in order: "restart", "delete_all", "restart"',
    );
  });

  it("counts a forbidden tool called several times", () => {
    expect(calls(run("rm", "rm", "rm"), { mustNotCall: ["rm"] }).reason).toBe(
      'called forbidden tool: "rm" (3 times). Tools used, in order: "rm", "rm", "rm"',
    );
  });

  it("lists the first 50 calls, then counts the rest by tool, so 100,000 calls make a short reason", () => {
    const names = Array.from({ length: 100_000 }, (_, i) =>
      i === 99_999 ? "restart" : i % 2 ? "fetch" : "search",
    );
    const mark = calls(run(...names), { mustCall: ["search"] });
    const first = names
      .slice(0, 50)
      .map((name) => `"${name}"`)
      .join(", ");
    expect(mark).toEqual({
      score: 1,
      reason: `every call rule kept. Tools used, in order: ${first}, then 99950 more calls: "search" ×49975, "fetch" ×49974, "restart" ×1`,
    });
    expect(calls(run(...names.slice(0, 50)), {}).reason).toBe(
      `every call rule kept. Tools used, in order: ${first}`,
    );
  });

  it("quotes tool names, so a name with a space or a comma reads as itself", () => {
    expect(calls(run("search ", "a, b"), { mustCall: ["search"] }).reason).toBe(
      'missing required call: "search". Tools used, in order: "search ", "a, b"',
    );
  });

  it("keeps the reason short for names of 2 MB, 100,000 distinct tools or 100,000 broken rules", () => {
    const big = "x".repeat(2_000_000);
    const long = calls(run(big), { mustCall: [`${big}y`], mustNotCall: [big] }).reason;
    expect(long).toBe(
      `missing required call: "${"x".repeat(59)}…; called forbidden tool: "${"x".repeat(59)}…. Tools used, in order: "${"x".repeat(59)}…`,
    );
    const distinct = Array.from({ length: 100_000 }, (_, i) => `tool${i}`);
    const many = calls(run(...distinct), { mustCall: distinct.map((name) => `${name}!`) }).reason;
    expect(many).toContain('missing required call: "tool19!"; and 99980 more broken rules.');
    expect(many).toContain('"tool149" ×1 and 99850 other tools');
    expect(many.length).toBeLessThan(4_000);
  });

  it("says (none) for a run without tool calls", () => {
    expect(calls({ calls: [] }, { mustCall: ["search"] })).toEqual({
      score: 0,
      reason: 'missing required call: "search". Tools used, in order: (none)',
    });
    expect(calls({ calls: [] }, {})).toEqual({
      score: 1,
      reason: "every call rule kept. Tools used, in order: (none)",
    });
  });

  it("allows a tool listed in atMostOnce to be called once or never", () => {
    expect(calls(run("restart"), { atMostOnce: ["restart"] }).score).toBe(1);
    expect(calls(run(), { atMostOnce: ["restart"] }).score).toBe(1);
  });

  it("treats tool names as exact and case sensitive", () => {
    expect(calls(run("Search"), { mustCall: ["search"] }).score).toBe(0);
  });
});

describe("calls: rules written wrong are the author's error, never a pass", () => {
  it("throws, naming the field, when a rule is a string or holds a non-string", () => {
    const run: AgentRun = { calls: [{ toolName: "delete" }] };
    expect(() => calls(run, { mustNotCall: "delete" } as unknown as ExpectedCalls)).toThrow(
      'calls: expected.mustNotCall must be a list of tool names (got "delete"); write mustNotCall: ["delete"]',
    );
    expect(() => calls(run, { mustCall: "search" } as unknown as ExpectedCalls)).toThrow(
      /expected\.mustCall must be a list/,
    );
    expect(() => calls(run, { atMostOnce: ["a", 3] } as unknown as ExpectedCalls)).toThrow(
      "calls: expected.atMostOnce[1] must be a tool name, a string (got 3)",
    );
    expect(() => calls(run, { mustNotCall: ["delete", ""] })).toThrow(
      "calls: expected.mustNotCall[1] is blank: remove it, or write the tool name it stands for",
    );
    expect(() => calls(run, null as unknown as ExpectedCalls)).toThrow(
      /expected must be an object/,
    );
    expect(() => calls(run, { mustNotCall: "delete" } as unknown as ExpectedCalls)).toThrow(
      AuthoringError,
    );
  });
});

describe("calls: a tool both required and forbidden is the author's error, never a 0 no run escapes", () => {
  it("throws an AuthoringError naming the tool and both options", () => {
    expect(() => calls({ calls: [] }, { mustCall: ["a"], mustNotCall: ["a"] })).toThrow(
      AuthoringError,
    );
    expect(() => calls({ calls: [] }, { mustCall: ["a"], mustNotCall: ["a"] })).toThrow(
      'calls: "a" is in both expected.mustCall and expected.mustNotCall, so no run can pass; remove it from the list it does not belong in',
    );
    expect(() =>
      calls(run("a"), { mustCall: ["a", "b", "c", "b"], mustNotCall: ["b", "a", "d"] }),
    ).toThrow('calls: "a" and "b" are in both expected.mustCall and expected.mustNotCall');
  });

  it("keeps taking a tool required in one list and limited in atMostOnce", () => {
    expect(calls(run("a"), { mustCall: ["a"], atMostOnce: ["a"], mustNotCall: ["b"] }).score).toBe(
      1,
    );
  });
});

describe("calls: a misspelt rule is the author's error, never a silent pass", () => {
  const misspelt = { mustcall: ["search"] } as unknown as ExpectedCalls;
  const said =
    'calls: unknown key "expected.mustcall" (did you mean "expected.mustCall"?); known keys: expected.mustCall, expected.mustNotCall, expected.atMostOnce';

  it("throws an AuthoringError that names the key meant", () => {
    expect(() => calls({ calls: [] }, misspelt)).toThrow(AuthoringError);
    expect(() => calls({ calls: [] }, misspelt)).toThrow(said);
  });

  it("leaves alone a key that is no misspelling (a wider expected object)", () => {
    const wider = { mustCall: ["search"], should: ["says it"] } as ExpectedCalls;
    expect(calls(run("search"), wider).score).toBe(1);
  });

  it("is an errored judgment in a suite", async () => {
    const toolCalls = createScorer<AgentRun, unknown>({
      name: "tool-calls",
      score: ({ output }) => ({ score: calls(output, misspelt).score }),
    });
    const suite = defineSuite<AgentRun, AgentRun>({
      id: "typo",
      cases: [{ id: "none", input: { calls: [] } }],
      target: (run) => run,
      scorers: [toolCalls],
    });
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], { onRecord: (record) => records.push(record) });
    expect(records[0]).toMatchObject({ verdict: "errored" });
    expect(records[0]?.judgments[0]?.reason).toBe(`scorer "tool-calls" threw: ${said}`);
  });
});

describe("calls: a run of another shape is the author's error, never a failed 0", () => {
  const named = {
    text: "hi",
    calls: [{ toolName: "a" }, { name: "lookup" }],
  } as unknown as AgentRun;
  const bare = { text: "hi" } as unknown as AgentRun;
  const noCallsArray =
    "calls: the run has no `calls` array: pass { calls: [{ toolName }, …] } (empty when no tool ran)";
  const noToolName =
    'calls: call 2 of the run has no `toolName` (a string; got {"name":"lookup"}): pass { calls: [{ toolName }, …] }';

  it("throws, naming the call, when a call has no toolName or the run no calls array", () => {
    expect(() => calls(named, { mustNotCall: ["delete_db"] })).toThrow(noToolName);
    expect(() => calls(bare, { mustNotCall: ["delete_db"] })).toThrow(noCallsArray);
    expect(() => calls(bare, {})).toThrow(AuthoringError);
  });

  it("is an errored judgment with that reason in a createScorer scorer of a suite", async () => {
    const toolCalls = createScorer<AgentRun, unknown>({
      name: "tool-calls",
      score: ({ output }) => {
        const mark = calls(output, { mustNotCall: ["delete_db"] });
        return { score: mark.score, metadata: { reason: mark.reason } };
      },
    });
    const records: AttemptRecord[] = [];
    await runEvals(
      [
        {
          eval: defineSuite<AgentRun, AgentRun>({
            id: "tool-calls",
            cases: [
              { id: "name-shape", input: named },
              { id: "no-calls", input: bare },
            ],
            target: (run) => run,
            scorers: [toolCalls],
          }),
        },
      ],
      { onRecord: (record) => records.push(record) },
    );
    expect(records.map((r) => [r.caseId, r.verdict, r.judgments[0]?.state])).toEqual([
      ["name-shape", "errored", "errored"],
      ["no-calls", "errored", "errored"],
    ]);
    expect(records[0]?.judgments[0]).toMatchObject({ earned: null, points: 1 });
    expect(records[0]?.judgments[0]?.reason).toBe(`scorer "tool-calls" threw: ${noToolName}`);
    expect(records[1]?.judgments[0]?.reason).toBe(`scorer "tool-calls" threw: ${noCallsArray}`);
  });
});
