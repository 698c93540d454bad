import { describe, expect, it } from "vitest";
import { show } from "./preview.js";

describe("show", () => {
  it("shows what JSON would write as null as it is", () => {
    expect(show({ value: Number.NaN, rationale: "oops" })).toBe('{"value":NaN,"rationale":"oops"}');
    expect(show([Number.NEGATIVE_INFINITY, undefined, null])).toBe("[-Infinity,undefined,null]");
    expect(show(Number.NaN)).toBe("NaN");
  });
});
