import { describe, expect, it } from "vitest";
import { decodeSegment, encodeSegment } from "./segment.js";

describe("encodeSegment", () => {
  it("keeps . and .. ids out of path resolution, and every id round-trips", () => {
    for (const id of ["..", ".", "~", "~..", "a/b", "q?x=1", "hash#frag", "%", "../etc", "plain"]) {
      const segment = encodeSegment(id);
      expect(segment).not.toMatch(/^\.\.?$/);
      expect(new URL(`http://h/api/runs/r/attempts/e/${segment}`).pathname).toBe(
        `/api/runs/r/attempts/e/${segment}`,
      );
      expect(decodeSegment(decodeURIComponent(segment))).toBe(id);
    }
    expect(encodeSegment("..")).toBe("~..");
    expect(encodeSegment("case-1")).toBe("case-1");
  });
});
