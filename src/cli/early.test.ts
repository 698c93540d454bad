import { describe, expect, it } from "vitest";
import { mayStartEvalProcess } from "./early.js";

describe("starting the eval process before the CLI loads", () => {
  it("does for a run that may be supervised, not for other commands or runs elsewhere", () => {
    expect(mayStartEvalProcess(["run"])).toBe(true);
    expect(mayStartEvalProcess(["run", "evals", "--concurrency", "4"])).toBe(true);
    for (const argv of [
      [],
      ["runs"],
      ["show", "latest"],
      ["run", "--no-supervise"],
      ["run", "--queue", "redis://127.0.0.1"],
      ["run", "--queue=redis://127.0.0.1"],
      ["run", "--resume"],
      ["run", "--retry-errors", "latest"],
      ["run", "--help"],
    ])
      expect(mayStartEvalProcess(argv), argv.join(" ")).toBe(false);
  });
});

describe("NICEEVAL_QUEUE and the early eval process", () => {
  it("a run that NICEEVAL_QUEUE sends to the queue starts none, unless --no-queue keeps it here", () => {
    const env = { NICEEVAL_QUEUE: "redis://127.0.0.1:6379" };
    expect(mayStartEvalProcess(["run"], env)).toBe(false);
    expect(mayStartEvalProcess(["run", "--no-queue"], env)).toBe(true);
    expect(mayStartEvalProcess(["run"], { NICEEVAL_QUEUE: "" })).toBe(true);
  });
});
