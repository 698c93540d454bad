import { describe, expect, it } from "vitest";
import { IdSet } from "./ids.js";

describe("IdSet", () => {
  it("answers as a Set of the same ids would", () => {
    let seed = 11;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return Math.floor((seed / 2 ** 31) * n);
    };
    const shapes = [
      () => `case-${random(50)}`,
      () => `case-${random(5)}-${random(4)}`,
      () => `case-0${random(9)}`,
      () => `case-${(1 << 22) - 1 + random(3)}`,
      () => `case-${10_000_000 + random(3)}`,
      () => `q${random(50)}`,
      () => `${random(50)}`,
      () => "case-",
      () => "",
      () => `x-${random(3)}y`,
    ];
    for (let round = 0; round < 300; round++) {
      const ours = new IdSet();
      const plain = new Set<string>();
      for (let i = 0; i < 40; i++) {
        const id = shapes[random(shapes.length)]!();
        if (random(3) === 0) expect(ours.has(id)).toBe(plain.has(id));
        const size = plain.size;
        plain.add(id);
        expect(ours.add(id)).toBe(plain.size !== size);
      }
      for (const shape of shapes) {
        const id = shape();
        expect(ours.has(id)).toBe(plain.has(id));
      }
    }
  });
});
