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

describe("what create returns, and the names of assertions", () => {
  it("refuses facts that are not an object, and an assertion named as a fact", () => {
    // @ts-expect-error facts are an object of named facts
    defineAdapter({ name: "number", create: () => 5 });
    // @ts-expect-error facts are an object of named facts
    defineAdapter({ name: "text", create: async () => "facts" });
    defineAdapter({
      name: "clash",
      create: () => ({ said: 1, heard: 2 }),
      // @ts-expect-error t.said would be the assertion, and the fact could not be read
      assertions: () => ({ said: () => 1 }),
    });
    defineAdapter({
      name: "beside",
      create: () => ({ said: 1 }),
      assertions: () => ({ saidOnce: () => 1 }),
    });
  });
});
