// The JUnit report of hostile cases, read by a real XML parser (xmllint): valid against the JUnit
// schema, and each testcase's name and failure read back as the text the report meant.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { junitReporter } from "../../src/report/junit-reporter.js";
import { run, tempDir } from "../../src/report/test-support/runs.js";
import { ensureCommand } from "../support/debian.js";
import {
  BIDI,
  HOSTILE_BIDI_SHOWN,
  HOSTILE_EVAL_ID,
  HOSTILE_IDS,
  hostileSuite,
  THROWN_ID,
  UNICODE_ID_SHOWN,
} from "./hostile.js";

const XSD = fileURLToPath(new URL("../fixtures/junit/junit.xsd", import.meta.url));

const xmllint = (...args: string[]) => {
  const result = spawnSync("xmllint", args, { encoding: "utf8" });
  return { ok: result.status === 0, out: result.stdout, err: result.stderr };
};

beforeAll(() => ensureCommand("xmllint", "libxml2-utils"), 600_000);

describe("the JUnit report of hostile cases, read by xmllint", () => {
  it("validates, and names each case and its failure as the report meant", async () => {
    const file = join(tempDir(), "junit.xml");
    await run([{ eval: hostileSuite(true), file: "evals/a | b.eval.ts" }], [junitReporter(file)]);
    const valid = xmllint("--noout", "--schema", XSD, file);
    expect(valid.err).toContain("validates");
    // xmllint ends what it prints with a line break of its own.
    const read = (xpath: string) =>
      xmllint("--xpath", `string(${xpath})`, file).out.replace(/\n$/, "");
    expect(read("//testsuite[1]/@name")).toBe(HOSTILE_EVAL_ID);
    const names = [...Object.values(HOSTILE_IDS), THROWN_ID].map((_, i) =>
      read(`//testsuite[1]/testcase[${i + 1}]/@name`),
    );
    expect(names).toEqual([
      HOSTILE_IDS.punctuation,
      JSON.stringify(HOSTILE_IDS.blank),
      UNICODE_ID_SHOWN,
      HOSTILE_IDS.long,
      THROWN_ID,
    ]);
    const thrown = read("//testsuite[1]/testcase[5]/error/@message");
    expect(thrown).toContain("first line | with a pipe ⏎ ::error title=injected::from an error");
    expect(thrown).toContain("<script>window.__hostile=1</script> <!-- x ]]> &amp; 50%");
    const body = read("//testsuite[1]/testcase[1]/error");
    expect(body).toContain("<script>window.__hostile=1</script> <!-- x ]]> &amp; 50%");
    // Bidirectional controls are shown as symbols, in names and text alike.
    expect(readFileSync(file, "utf8")).not.toMatch(BIDI);
    expect(body).toContain(HOSTILE_BIDI_SHOWN);
  });
});
