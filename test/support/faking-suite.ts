import FakeTimers from "@sinonjs/fake-timers";
import type { AttemptRecord } from "../../src/eval/record.js";
import { defineSuite } from "../../src/eval/suite.js";
import { createScorer } from "../../src/scorers/create-scorer.js";

type FakedMethods = NonNullable<NonNullable<Parameters<typeof FakeTimers.install>[0]>["toFake"]>;

const same = createScorer<string, string>({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

/**
 * A suite whose cases b and c end while case "fakes" holds fake timers (real
 * @sinonjs/fake-timers, between a test's install and its uninstall; the fake clock starts at
 * 1970): run it with concurrency 3 and give `othersEnded` every finished record (a reporter's
 * `onAttemptFinished` or `onCaseFinished`), so what is written for b and c is written meanwhile.
 */
export function fakingSuite(toFake: FakedMethods) {
  let installed!: () => void;
  const clockFaked = new Promise<void>((resolve) => {
    installed = resolve;
  });
  let othersReported!: () => void;
  const reported = new Promise<void>((resolve) => {
    othersReported = resolve;
  });
  let seen = 0;
  const suite = defineSuite<string, string>({
    id: "faking",
    cases: ["b", "c", "fakes"].map((id) => ({ id, input: id, expected: id })),
    target: async (input) => {
      if (input !== "fakes") {
        await clockFaked;
        return input;
      }
      const clock = FakeTimers.install({ toFake });
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
  const othersEnded = (record: AttemptRecord) => {
    if (record.caseId !== "fakes" && ++seen === 2) othersReported();
  };
  return { suite, othersEnded };
}
