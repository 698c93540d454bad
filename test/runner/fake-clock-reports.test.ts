// An attempt may keep fake timers installed while it waits (runner/globals.ts, holdGlobals):
// the reports written meanwhile for other attempts, in the same process, keep the real time.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import FakeTimers from "@sinonjs/fake-timers";
import { describe, expect, it } from "vitest";
import { defineSuite } from "../../src/eval/suite.js";
import { ndjsonReporter } from "../../src/report/ndjson-reporter.js";
import type { EvalEvent } from "../../src/runner/events.js";
import { runEvals } from "../../src/runner/run.js";
import { arrayTelemetry } from "../../src/runner/telemetry.js";
import { createScorer } from "../../src/scorers/create-scorer.js";

const same = createScorer<string, string>({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

describe("reports written while an attempt fakes the clock (real @sinonjs/fake-timers)", () => {
  it("stamp the NDJSON lines and telemetry events of the attempts that end meanwhile with the real time", async () => {
    const dir = await mkdtemp(join(tmpdir(), "niceeval-fake-clock-"));
    try {
      let installed!: () => void;
      const clockFaked = new Promise<void>((resolve) => {
        installed = resolve;
      });
      let othersReported!: () => void;
      const reported = new Promise<void>((resolve) => {
        othersReported = resolve;
      });
      // b and c end while case "fakes" holds fake timers (between a test's install and its
      // uninstall; the fake clock starts at 1970), so their reports are written meanwhile.
      const faking = defineSuite<string, string>({
        id: "faking",
        cases: ["b", "c", "fakes"].map((id) => ({ id, input: id, expected: id })),
        target: async (input) => {
          if (input !== "fakes") {
            await clockFaked;
            return input;
          }
          const clock = FakeTimers.install({
            toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
          });
          try {
            installed();
            await reported;
            return input;
          } finally {
            clock.uninstall();
          }
        },
        scorers: [same],
      });
      let seen = 0;
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
            onCaseFinished: (record) => {
              if (record.caseId !== "fakes" && ++seen === 2) othersReported();
            },
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
