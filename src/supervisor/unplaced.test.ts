import { describe, expect, it } from "vitest";
import { type AttemptRecord, erroredRecord } from "../eval/record.js";
import { exitedAgain, Unplaced } from "./unplaced.js";

const error = { message: "the eval process exited with code 3", where: "t.eval.js:4:2" };
const errored = (message: string, interrupted = false): AttemptRecord => {
  const record = erroredRecord({ evalId: "ev", caseId: "c", message, where: "here" });
  return interrupted ? { ...record, error: { ...record.error!, interrupted: true } } : record;
};

/** An exit waiting for `left` attempts to run again alone, and how it was decided. */
function exitFor(left: number) {
  const decided: string[] = [];
  const unplaced = new Unplaced(error, left, {
    runError: (e) => decided.push(`run: ${e.message}`),
    open: () => decided.push("open"),
    owns: exitedAgain,
  });
  return { unplaced, decided };
}

describe("Unplaced", () => {
  it("is the run's when every attempt ran again alone and none owned it", () => {
    const { unplaced, decided } = exitFor(2);
    unplaced.settled(errored("a bug"));
    unplaced.settled(errored("another bug"));
    expect(decided).toEqual([`run: ${error.message}`]);
  });

  it("is the attempt's that ended the process again", () => {
    const { unplaced, decided } = exitFor(2);
    unplaced.settled(errored("the eval process exited with code 3 during this case; …"));
    unplaced.settled(errored("the run was stopped while this attempt ran", true));
    expect(decided).toEqual([]);
  });

  it("stays open when the run's stop cut off an attempt run again for it", () => {
    // Before, a rerun the stop cut off counted as one that ran alone and did not end it again.
    const { unplaced, decided } = exitFor(2);
    unplaced.settled(errored("a bug"));
    unplaced.settled(errored("this attempt was in flight when …", true));
    expect(decided).toEqual(["open"]);
  });

  it("stays open when the run's stop comes before its attempts all ran again", () => {
    const { unplaced, decided } = exitFor(2);
    unplaced.settled(errored("a bug"));
    unplaced.cutOff();
    unplaced.settled(errored("late"));
    expect(decided).toEqual(["open"]);
  });

  it("is decided as before when the stop comes after its attempts all ran again", () => {
    const { unplaced, decided } = exitFor(1);
    unplaced.settled(errored("a bug"));
    unplaced.cutOff();
    expect(decided).toEqual([`run: ${error.message}`]);
  });
});
