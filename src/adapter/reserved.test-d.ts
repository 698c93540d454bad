import { describe, it } from "vitest";
import { defineAdapter } from "./define-adapter.js";

describe("facts named as a test tool", () => {
  it("fail to compile", () => {
    defineAdapter({
      name: "shadow",
      // @ts-expect-error elapsedMs is t's own timing; the fact would be replaced by it
      create: () => ({ elapsedMs: 90_000, answer: "ok" }),
    });
    defineAdapter({ name: "fine", create: () => ({ appElapsedMs: 90_000 }) });
  });
});
