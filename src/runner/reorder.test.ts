import { describe, expect, it } from "vitest";
import { ReorderBuffer } from "./reorder.js";

describe("ReorderBuffer", () => {
  it("releases in reserved order whatever the completion order, past its ring size", () => {
    const released: number[] = [];
    const buffer = new ReorderBuffer<number>(4, (item) => released.push(item));
    // More reserved at once than the window (workers reserve after waiting for room).
    const seqs = Array.from({ length: 100 }, () => buffer.reserve());
    // A fixed shuffle: every seventh position first, then the rest backwards.
    const order = [
      ...seqs.filter((s) => s % 7 === 0),
      ...seqs.filter((s) => s % 7 !== 0).reverse(),
    ];
    for (const seq of order) buffer.complete(seq, seq * 10);
    expect(released).toEqual(seqs.map((s) => s * 10));
    // And it keeps going once drained.
    const later = [buffer.reserve(), buffer.reserve()];
    buffer.complete(later[1]!, 1);
    expect(released).toHaveLength(100);
    buffer.complete(later[0]!, 0);
    expect(released.slice(100)).toEqual([0, 1]);
  });

  it("has room again once the oldest item is released", async () => {
    const buffer = new ReorderBuffer<string>(2, () => {});
    const a = buffer.reserve();
    buffer.reserve();
    const room = buffer.room();
    expect(room).toBeInstanceOf(Promise);
    buffer.complete(a, "a");
    await room;
    expect(buffer.room()).toBeUndefined();
  });
});
