import { beforeAll, describe, expect, it } from "vitest";
import { type FixtureRun, runFixture } from "./run-fixture.js";

describe("toVitest under real Vitest (seed 002, as a CI gate)", () => {
  let run: FixtureRun;
  beforeAll(async () => {
    run = await runFixture("vitest-to-vitest");
  }, 60_000);

  it("registers one test per case inside describe(suite.id)", () => {
    expect(run.fileMessages).toEqual([]);
    expect(run.tests.map((t) => `${t.ancestorTitles.join(" > ")} > ${t.title}`)).toEqual([
      "greeting-suite > hello",
      "greeting-suite > world",
      "greeting-suite (regressed) > hello",
      "greeting-suite (regressed) > world",
      "greeting-suite (crashing) > hello",
    ]);
  });

  it("passes the seed example's cases and fails the regressed and crashing ones", () => {
    expect(run.test("greeting-suite", "hello").status).toBe("passed");
    expect(run.test("greeting-suite", "world").status).toBe("passed");
    expect(run.test("greeting-suite (regressed)", "hello").status).toBe("passed");
    expect(run.numPassedTests).toBe(3);
    expect(run.numFailedTests).toBe(2);
    expect(run.exitCode).not.toBe(0);
  });

  it("names each failed scorer with its value and rationale", () => {
    const [message] = run.test("greeting-suite (regressed)", "world").failureMessages;
    expect(message).toContain('case "world" of "greeting-suite (regressed)" failed');
    expect(message).toMatch(/exact: mismatched, value 0 \(.*"wrold".*\)/);
    expect(message).toMatch(/latency: mismatched, value 0 \(.*250.*\)/);
  });

  it("reports a throwing target as that case's error", () => {
    const [message] = run.test("greeting-suite (crashing)", "hello").failureMessages;
    expect(message).toContain('case "hello" of "greeting-suite (crashing)" errored');
    expect(message).toContain("upstream model unavailable");
  });
});
