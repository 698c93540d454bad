import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createReporter, parseReporterFlag } from "./reporter-flag.js";
import { mixedSuite, run, tempDir } from "./test-support/runs.js";

describe("parseReporterFlag", () => {
  it("reads every form", () => {
    expect(parseReporterFlag("console")).toEqual({ kind: "console" });
    expect(parseReporterFlag("github")).toEqual({ kind: "github" });
    expect(parseReporterFlag("json=out/run.json")).toEqual({ kind: "json", file: "out/run.json" });
    expect(parseReporterFlag("ndjson=-")).toEqual({ kind: "ndjson", target: "-" });
    expect(parseReporterFlag("ndjson=run.ndjson")).toEqual({
      kind: "ndjson",
      target: "run.ndjson",
    });
    expect(parseReporterFlag("junit=a=b.xml")).toEqual({ kind: "junit", file: "a=b.xml" });
    expect(parseReporterFlag("markdown=summary.md")).toEqual({
      kind: "markdown",
      file: "summary.md",
    });
  });

  it.each([
    ["html=x", /unknown reporter "html"/],
    ["", /unknown reporter/],
    ["junit", /junit needs a file, as junit=<file>/],
    ["json=", /json needs a file/],
    ["ndjson", /ndjson needs a file, or - for standard output/],
    ["github=yes", /github takes no value/],
  ])("rejects %j with a message listing the valid forms", (value, reason) => {
    let error: unknown;
    try {
      parseReporterFlag(value);
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: "USAGE", message: expect.stringMatching(reason) });
    expect((error as Error).message).toContain(
      "Valid forms: console, json=<file>, ndjson=<file or ->, junit=<file>, markdown=<file>, github",
    );
  });
});

describe("createReporter", () => {
  it("builds the reporter a spec names, with paths relative to cwd", async () => {
    const cwd = tempDir();
    const reporters = [
      "json=run.json",
      "ndjson=run.ndjson",
      "junit=junit.xml",
      "markdown=summary.md",
    ].map((flag) => createReporter(parseReporterFlag(flag), { cwd, comparison: () => "compared" }));
    await run([{ eval: mixedSuite() }], reporters);
    for (const file of ["run.json", "run.ndjson", "junit.xml", "summary.md"])
      expect(existsSync(join(cwd, file))).toBe(true);
    const json = JSON.parse(readFileSync(join(cwd, "run.json"), "utf8"));
    expect(json.summary.evals[0].figures.passRate).toMatchObject({ n: 4, passed: 2 });
    expect(readFileSync(join(cwd, "summary.md"), "utf8")).toContain("compared");
    // Outside GitHub Actions the github reporter has no hooks, only its name.
    expect(createReporter({ kind: "github" }, { env: {} })).toEqual({
      label: "the github reporter",
    });
    // A report that fails is named by its kind and destination.
    expect(reporters.map((reporter) => reporter.label)).toEqual([
      "the json report (run.json)",
      "the ndjson report (run.ndjson)",
      "the junit report (junit.xml)",
      "the markdown report (summary.md)",
    ]);
  });
});
