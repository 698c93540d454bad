// What niceeval prints for a terminal, read as a terminal and GitHub Actions' log read it: the
// console report and the comparison `run --baseline` and `compare` print. Nothing a case holds
// may drive the terminal (a control character, an escape sequence) or start a line of its own
// (which the runner would read as a workflow command).
import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareRuns } from "../../src/compare/compare-runs.js";
import { formatComparison } from "../../src/compare/format.js";
import { consoleReporter } from "../../src/report/console-reporter.js";
import { run, tempDir } from "../../src/report/test-support/runs.js";
import {
  BIDI,
  HOSTILE_BIDI_SHOWN,
  HOSTILE_EVAL_ID,
  HOSTILE_IDS,
  HOSTILE_RUNS,
  HOSTILE_SCORER,
  hostileStore,
  hostileSuite,
  THROWN_ID,
  UNICODE_ID_SHOWN,
} from "./hostile.js";
import { outputLines, workflowCommands } from "./workflow-commands.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

/** The lines of `text` that hold a control character a terminal would act on. */
const controlled = (text: string) => text.split("\n").filter((line) => CONTROL.test(line));

/** The lines of `text` that hold a bidirectional control, which would reorder what it shows. */
const reordered = (text: string) => text.split("\n").filter((line) => BIDI.test(line));

describe("text for a terminal, with hostile cases", () => {
  it("the console report keeps every case's text on its lines, inert", async () => {
    const file = join(tempDir(), "console.txt");
    const fd = openSync(file, "w");
    try {
      await run([{ eval: hostileSuite(true) }], [consoleReporter({ fd, color: false })]);
    } finally {
      closeSync(fd);
    }
    const text = readFileSync(file, "utf8");
    expect(workflowCommands(text)).toEqual([]);
    expect(controlled(text)).toEqual([]);
    expect(text).toContain(`! ${JSON.stringify(HOSTILE_IDS.blank)} errored`);
    expect(reordered(text)).toEqual([]);
    expect(text).toContain(`! ${UNICODE_ID_SHOWN} errored`);
    expect(text).toContain(HOSTILE_BIDI_SHOWN);
  });

  it("the comparison keeps each changed case's reasons and error on its lines, inert", async () => {
    const hostile = await hostileStore();
    let text: string;
    try {
      text = formatComparison(
        await compareRuns(hostile.store, HOSTILE_RUNS.base.runId, HOSTILE_RUNS.head.runId),
      );
    } finally {
      await hostile.cleanup();
    }
    expect(workflowCommands(text)).toEqual([]);
    expect(controlled(text)).toEqual([]);
    expect(reordered(text)).toEqual([]);
    expect(text).toContain(HOSTILE_BIDI_SHOWN);
    // Each of the five changes: its line, then one line per judgment (and the error's).
    const lines = outputLines(text);
    const changes = lines.filter((line) => line.startsWith("  became-errored "));
    expect(changes).toHaveLength(5);
    expect(changes).toContain(
      `  became-errored ${HOSTILE_EVAL_ID}/${JSON.stringify(HOSTILE_IDS.blank)}: 1/1 passed, score 1.000 → 0/1 passed`,
    );
    expect(changes).toContain(
      `  became-errored ${HOSTILE_EVAL_ID}/${UNICODE_ID_SHOWN}: 1/1 passed, score 1.000 → 0/1 passed`,
    );
    const thrown = lines.findIndex((line) => line.includes(`/${THROWN_ID}: `));
    expect(lines[thrown + 1]).toMatch(
      /^ {4}error: target of case "thrown" .*: first line \| with a pipe ⏎ ::error title=injected::/,
    );
    expect(lines[thrown + 2]).toMatch(
      new RegExp(`^ {4}gate ${literal(HOSTILE_SCORER)} \\(scorer\\)`),
    );
  });
});

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
