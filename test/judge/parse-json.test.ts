import { describe, expect, it } from "vitest";
import { boundAudit } from "../../src/judge/audit.js";
import { parseRetryAfter } from "../../src/judge/call-error.js";
import { parseJsonAnswer } from "../../src/judge/parse-json.js";

describe("parseJsonAnswer", () => {
  it("reads plain, fenced and prose-wrapped JSON", () => {
    expect(parseJsonAnswer('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseJsonAnswer('```json\n{"a":2}\n```')).toEqual({ ok: true, value: { a: 2 } });
    expect(parseJsonAnswer('I think {"a":"b}"} is right.')).toEqual({
      ok: true,
      value: { a: "b}" },
    });
    expect(parseJsonAnswer('Note {not json} then {"a":3}.')).toEqual({ ok: true, value: { a: 3 } });
    // The same object twice (stated, then repeated) is one answer.
    expect(parseJsonAnswer('{"a":4} so: {"a": 4}')).toEqual({ ok: true, value: { a: 4 } });
  });

  it("leaves out the reasoning before the answer, and never picks among several objects", () => {
    const thinking =
      '<think>A draft would be {"value":1} but the reply never gives the amount, so no.</think>\n{"value":0,"reason":"no amount"}';
    expect(parseJsonAnswer(thinking)).toEqual({
      ok: true,
      value: { value: 0, reason: "no amount" },
    });
    const several = parseJsonAnswer('Example: {"value":1}. My verdict: {"value":0}');
    expect(several).toEqual({
      ok: false,
      error: "the answer holds 2 different JSON objects: which one is the verdict is not clear",
    });
    expect(parseJsonAnswer('```json\n{"v":1}\n```\nor\n```json\n{"v":2}\n```').ok).toBe(false);
  });

  it("refuses truncated or missing JSON instead of guessing", () => {
    expect(parseJsonAnswer('{"checks":[{"id":1,"met":tr').ok).toBe(false);
    expect(parseJsonAnswer("").ok).toBe(false);
    expect(parseJsonAnswer("all good").ok).toBe(false);
  });
});

describe("parseRetryAfter", () => {
  it("reads retry-after-ms, seconds and HTTP dates", () => {
    expect(parseRetryAfter(new Headers({ "retry-after-ms": "250", "retry-after": "9" }))).toBe(250);
    expect(parseRetryAfter(new Headers({ "retry-after": "2" }))).toBe(2000);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(
      parseRetryAfter(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:03 GMT" }), now),
    ).toBe(3000);
    expect(parseRetryAfter(new Headers())).toBeUndefined();
  });
});

describe("boundAudit", () => {
  it("keeps a small audit whole and cuts the longest text of a large one to fit", () => {
    const small = { request: "q", answers: ["a"] };
    expect(boundAudit(small, 1000)).toBe(small);
    const large = {
      request: "x".repeat(5000),
      answers: ['{"verdict":"satisfied"}'],
      verdict: { verdict: "satisfied" },
    };
    const bounded = boundAudit(large, 1000) as typeof large & { truncated: unknown };
    expect(Buffer.byteLength(JSON.stringify(bounded))).toBeLessThanOrEqual(1000);
    expect(bounded.answers).toEqual(large.answers);
    expect(bounded.request).toMatch(/…\[cut \d+ characters\]$/);
    expect(bounded.truncated).toEqual({
      originalBytes: Buffer.byteLength(JSON.stringify(large)),
      maxBytes: 1000,
    });
  });
});
