import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defineSuite } from "../eval/suite.js";
import { escapeData, escapeProperty, githubReporter } from "./github-reporter.js";
import {
  crashingSuite,
  leftOutSecond,
  mixedSuite,
  ran,
  run,
  tempDir,
} from "./test-support/runs.js";

describe("githubReporter", () => {
  it("does nothing and says nothing outside GitHub Actions", async () => {
    const dir = tempDir();
    const summaryFile = join(dir, "summary.md");
    const written: string[] = [];
    const reporter = githubReporter({
      env: { GITHUB_STEP_SUMMARY: summaryFile },
      write: (text) => written.push(text),
    });
    await run([{ eval: mixedSuite() }], [reporter]);
    expect(written).toEqual([]);
    expect(existsSync(summaryFile)).toBe(false);
  });

  it("appends the summary to $GITHUB_STEP_SUMMARY and annotates failing cases", async () => {
    const dir = tempDir();
    const summaryFile = join(dir, "summary.md");
    writeFileSync(summaryFile, "# an earlier step\n");
    const written: string[] = [];
    const reporter = githubReporter({
      env: { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: summaryFile, GITHUB_WORKSPACE: "/repo" },
      write: (text) => written.push(text),
      comparison: () => "### Compared with main",
    });
    await run([{ eval: mixedSuite(), file: "/repo/evals/qa, v2.eval.ts" }], [reporter]);
    const md = readFileSync(summaryFile, "utf8");
    expect(md.startsWith("# an earlier step\n## niceeval ❌ failed")).toBe(true);
    expect(md).toContain("50% (n=4, 15–85%)");
    expect(md).toContain("### Compared with main");
    const lines = written.join("").split("\n").filter(Boolean);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(
      '::error file=evals/qa%2C v2.eval.ts,title=qa › wrong <&>" failed::exact <answer> (gate · 1 pt): mismatched — 0 < threshold 0.5',
    );
    expect(lines[1]).toMatch(
      /^::error file=evals\/qa%2C v2\.eval\.ts,title=qa › boom errored::target of case "boom"/,
    );
  });

  it("annotates each file that failed to load, on the file", async () => {
    const written: string[] = [];
    await run(
      [{ eval: mixedSuite(), file: "evals/qa.eval.ts" }],
      [githubReporter({ env: { GITHUB_ACTIONS: "true" }, write: (text) => written.push(text) })],
      {
        loadErrors: [{ file: "evals/broken.eval.ts", message: "SyntaxError: 50% done\nat line 2" }],
      },
    );
    const lines = written.join("").split("\n");
    expect(lines[0]).toBe(
      "::error file=evals/broken.eval.ts,title=niceeval%3A failed to load::SyntaxError: 50%25 done%0Aat line 2",
    );
  });

  it("drops ANSI colours and control characters from a load error, as from a case's", async () => {
    const written: string[] = [];
    await run(
      [{ eval: mixedSuite(), file: "evals/qa.eval.ts" }],
      [githubReporter({ env: { GITHUB_ACTIONS: "true" }, write: (text) => written.push(text) })],
      {
        loadErrors: [
          {
            file: "evals/broken.eval.ts",
            message: "\u001b[31mboom\u001b[0m at\u0000 import\nline 2",
          },
        ],
      },
    );
    expect(written.join("").split("\n")[0]).toBe(
      "::error file=evals/broken.eval.ts,title=niceeval%3A failed to load::boom at import%0Aline 2",
    );
  });

  it("annotates each eval left out on its file, not as a file that failed to load", async () => {
    const written: string[] = [];
    await run(
      [{ eval: mixedSuite(), file: "evals/qa.eval.ts" }],
      [githubReporter({ env: { GITHUB_ACTIONS: "true" }, write: (text) => written.push(text) })],
      {
        loadErrors: [leftOutSecond],
      },
    );
    expect(written.join("").split("\n")[0]).toBe(
      '::error file=evals/qa.eval.ts,title=niceeval%3A left out::export "second" was left out: it has the eval id "qa" of export "first" of this file',
    );
  });

  it("bounds the annotations and says how many were left out", async () => {
    const written: string[] = [];
    const suite = crashingSuite("many", 25, "50% down\nsee logs");
    await run(
      [{ eval: suite }],
      [githubReporter({ env: { GITHUB_ACTIONS: "true" }, write: (text) => written.push(text) })],
    );
    const lines = written.join("").split("\n").filter(Boolean);
    expect(lines.filter((l) => l.startsWith("::error "))).toHaveLength(10);
    expect(lines[0]).toContain("50%25 down ⏎ see logs");
    expect(lines[0]).not.toContain("file=");
    expect(lines[10]).toBe(
      "::warning title=niceeval::15 more failing cases are not annotated; see the step summary or the report",
    );
  });

  /** The title of the annotation of an eval's one case, which errors. */
  const titleOf = async (evalId: string, caseId: string): Promise<string> => {
    const written: string[] = [];
    const failing = defineSuite<string, string>({
      id: evalId,
      cases: [{ id: caseId, input: "x" }],
      target: () => {
        throw new Error("boom");
      },
      scorers: [ran],
    });
    await run(
      [{ eval: failing }],
      [githubReporter({ env: { GITHUB_ACTIONS: "true" }, write: (text) => written.push(text) })],
    );
    return written.join("").match(/title=(.*?)::/)![1]!;
  };

  it("cuts a long title between characters, never inside an emoji", async () => {
    // "qa › " is five characters: the 255th falls on an emoji's first half.
    const title = await titleOf("qa", `${"👩".repeat(300)}x`);
    expect(title.length).toBeLessThanOrEqual(255);
    expect(title).toMatch(/^qa › (👩)+… errored$/);
  });

  it("cuts a long eval id first, so the case stays in the title", async () => {
    const title = await titleOf(`e${"x".repeat(400)}`, "case-7");
    expect(title.length).toBeLessThanOrEqual(255);
    expect(title).toMatch(/^ex+… › case-7 errored$/);
  });

  it("escapes data and properties by the workflow-command rules", () => {
    expect(escapeData("50%\r\nnext: a, b")).toBe("50%25%0D%0Anext: a, b");
    expect(escapeProperty("50%\r\nnext: a, b")).toBe("50%25%0D%0Anext%3A a%2C b");
  });
});
