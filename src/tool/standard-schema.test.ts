import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { formatIssues } from "./issues.js";
import { isStandardSchema, issuePointer } from "./standard-schema.js";

describe("isStandardSchema", () => {
  it("knows zod, valibot and arktype schemas, arktype's callable ones included", () => {
    expect(typeof type("string")).toBe("function");
    for (const schema of [z.string(), v.string(), type("string"), type({ n: "number" })]) {
      expect(isStandardSchema(schema)).toBe(true);
    }
  });

  it("refuses JSON Schemas, plain functions, null and a throwing ~standard getter", () => {
    const throwing = Object.defineProperty({}, "~standard", {
      get() {
        throw new Error("no");
      },
    });
    for (const value of [{ type: "string" }, () => 1, null, true, "x", throwing]) {
      expect(isStandardSchema(value)).toBe(false);
    }
    expect(isStandardSchema({ "~standard": { validate: 1 } })).toBe(false);
  });
});

describe("issue paths", () => {
  it("say (root) for an issue at the root, for every library", () => {
    const issues = [
      z.string()["~standard"].validate(1),
      v.string()["~standard"].validate(1),
      type("string")["~standard"].validate(1),
    ].map((result) => ("issues" in result ? result.issues?.[0] : undefined));
    for (const issue of issues) {
      expect(issue && issuePointer(issue)).toBe("(root)");
      expect(issue && formatIssues([issue])[0]?.path).toBe("(root)");
    }
  });

  it("write nested paths as a JSON Pointer and as a dotted path", () => {
    const issue = { message: "m", path: ["items", 0, { key: "a/b" }] };
    expect(issuePointer(issue)).toBe("/items/0/a~1b");
    expect(formatIssues([issue])).toEqual([{ path: "items[0].a/b", message: "m" }]);
    expect(formatIssues([{ message: "m", path: [0] }])[0]?.path).toBe("[0]");
  });
});
