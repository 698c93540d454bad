import { describe, expect, it } from "vitest";
import { closest, editDistance } from "./suggest.js";

describe("editDistance", () => {
  it("counts insertions, deletions, substitutions and swaps of neighbours", () => {
    expect(editDistance("concurrency", "concurrency")).toBe(0);
    expect(editDistance("concurency", "concurrency")).toBe(1);
    expect(editDistance("concurrrency", "concurrency")).toBe(1);
    expect(editDistance("concurrencx", "concurrency")).toBe(1);
    expect(editDistance("cnocurrency", "concurrency")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("kitten", "sitting")).toBe(3);
  });

  it("stops at its limit", () => {
    expect(editDistance("a", "abcdefgh", 3)).toBe(3);
    expect(editDistance("abcdef", "uvwxyz", 2)).toBe(2);
  });
});

describe("closest", () => {
  const options = ["concurrency", "timeout", "trials", "no-store", "store", "tag"];

  it("names the option a typo most likely meant", () => {
    expect(closest("concurency", options)).toBe("concurrency");
    expect(closest("timout", options)).toBe("timeout");
    expect(closest("no-stor", options)).toBe("no-store");
  });

  it("offers nothing when no name is close, and little for short names", () => {
    expect(closest("verbose", options)).toBeUndefined();
    expect(closest("x", options)).toBeUndefined();
    expect(closest("tg", options)).toBe("tag");
    expect(closest("tx", options)).toBeUndefined();
  });
});
