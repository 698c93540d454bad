// The viewer writes different values differently: "42" is never shown as 42.
import { describe, expect, it } from "vitest";
import { shownText, typeNote } from "../../viewer-app/src/shown.js";

describe("shownText", () => {
  it("quotes a string beside a value of another type, or one that reads as a JSON literal", () => {
    expect(shownText("42", [42])).toBe('"42"');
    expect(shownText(42, ["42"])).toBe("42");
    expect(shownText("true")).toBe('"true"');
    expect(shownText("null")).toBe('"null"');
    expect(shownText("hello", [{ a: 1 }])).toBe('"hello"');
  });

  it("keeps prose bare when both sides are strings", () => {
    const prose = 'line one\nline two: "quoted"';
    expect(shownText(prose, ["other text"])).toBe(prose);
    expect(shownText(prose)).toBe(prose);
  });
});

describe("typeNote", () => {
  it("says two values differ in type, and when their text is the same", () => {
    expect(typeNote("42", 42)).toBe('same text, different types: string "42" vs number 42');
    expect(typeNote("true", true)).toBe(
      'same text, different types: string "true" vs boolean true',
    );
    expect(typeNote("null", null)).toBe('same text, different types: string "null" vs null');
    expect(typeNote("a", 1)).toBe('different types: string "a" vs number 1');
    expect(typeNote("a", "b")).toBeNull();
  });
});
