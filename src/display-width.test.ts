import { describe, expect, it } from "vitest";
import { displayWidth, padToWidth } from "./display-width.js";

describe("displayWidth", () => {
  it("counts the columns a terminal gives text: wide characters and emoji two, marks none", () => {
    expect(displayWidth("nightly")).toBe(7);
    expect(displayWidth("run 🚀")).toBe(6);
    expect(displayWidth("評価")).toBe(4);
    expect(displayWidth("ｅｖａｌ")).toBe(8);
    expect(displayWidth("e\u0301")).toBe(1);
    expect(displayWidth("👩‍👩‍👧")).toBe(2);
    expect(displayWidth("🇫🇷")).toBe(2);
    expect(displayWidth("❤️")).toBe(2);
    expect(displayWidth("é")).toBe(1);
  });

  it("pads to a width in columns", () => {
    expect(padToWidth("🚀", 4)).toBe("🚀  ");
    expect(padToWidth("abcdef", 4)).toBe("abcdef");
  });
});
