// The viewer's line diff decides equality on whole texts and counts what it leaves out.
import { describe, expect, it } from "vitest";
import { lineDiff } from "../../viewer-app/src/diff.js";

const text = (n: number, changed?: number) =>
  Array.from({ length: n }, (_, i) => (i === changed ? `line ${i} changed` : `line ${i}`)).join(
    "\n",
  );

describe("lineDiff", () => {
  it("finds a change past line 1,500 of 5,000-line texts, with the equal lines around it counted", () => {
    const d = lineDiff(text(5000), text(5000, 4500), 1500);
    expect(d.equal).toBe(false);
    expect(d.lines.filter((l) => l.kind !== "same")).toEqual([
      { kind: "del", text: "line 4500" },
      { kind: "add", text: "line 4500 changed" },
    ]);
    expect(d.sameBefore + d.lines.filter((l) => l.kind === "same").length + d.sameAfter).toBe(4999);
    expect(d.leftOut).toEqual({ a: 0, b: 0 });
  });

  it("is equal only when the whole texts are", () => {
    expect(lineDiff(text(5000), text(5000)).equal).toBe(true);
    expect(lineDiff(text(20_000), text(20_000, 19_999), 10).equal).toBe(false);
  });

  it("counts the lines of a long change it does not compare", () => {
    const a = Array.from({ length: 3000 }, (_, i) => `a${i}`).join("\n");
    const b = Array.from({ length: 2000 }, (_, i) => `b${i}`).join("\n");
    const d = lineDiff(a, b, 1500);
    expect(d.equal).toBe(false);
    expect(d.leftOut).toEqual({ a: 1500, b: 500 });
    expect(d.lines).toHaveLength(3000);
    expect(d.sameAfter).toBe(0);
  });
});
