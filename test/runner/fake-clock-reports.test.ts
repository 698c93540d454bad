// An attempt may keep fake timers installed while it waits (runner/globals.ts, holdGlobals):
// the reports written meanwhile for other attempts, in the same process, keep the real time.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ndjsonReporter } from "../../src/report/ndjson-reporter.js";
import type { EvalEvent } from "../../src/runner/events.js";
import { runEvals } from "../../src/runner/run.js";
import { arrayTelemetry } from "../../src/runner/telemetry.js";
import { fakingSuite } from "../support/faking-suite.js";

describe("reports written while an attempt fakes the clock (real @sinonjs/fake-timers)", () => {
  it("stamp the NDJSON lines and telemetry events of the attempts that end meanwhile with the real time", async () => {
    const dir = await mkdtemp(join(tmpdir(), "niceeval-fake-clock-"));
    try {
      // b and c end while case "fakes" holds fake timers, so their reports are written meanwhile.
      const { suite: faking, othersEnded } = fakingSuite([
        "setTimeout",
        "clearTimeout",
        "setInterval",
        "clearInterval",
        "Date",
      ]);
      const file = join(dir, "run.ndjson");
      const telemetry = arrayTelemetry<EvalEvent>();
      const started = Date.now();
      const summary = await runEvals([{ eval: faking }], {
        concurrency: 3,
        telemetry: [telemetry],
        reporters: [
          ndjsonReporter(file),
          {
            label: "others",
            onCaseFinished: othersEnded,
          },
        ],
      });
      const ended = Date.now();
      expect(summary.totals.passed).toBe(3);
      const lines = (await readFile(file, "utf8")).trim().split("\n");
      const stamps = [
        ...lines.map((line) => (JSON.parse(line) as { at: string }).at),
        ...telemetry.events.map((event) => event.timestamp),
      ];
      expect(stamps.length).toBeGreaterThan(6);
      for (const stamp of stamps) {
        expect(Date.parse(stamp), stamp).toBeGreaterThanOrEqual(Math.floor(started / 1000) * 1000);
        expect(Date.parse(stamp), stamp).toBeLessThanOrEqual(ended + 1000);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
