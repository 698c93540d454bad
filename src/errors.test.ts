import { describe, expect, it } from "vitest";
import { errorMessage } from "./errors.js";

describe("errorMessage", () => {
  it("says something for whatever was thrown, even a value whose every reading throws", () => {
    expect(errorMessage(new Error("boom"))).toBe("boom");
    expect(errorMessage("plain")).toBe("plain");
    expect(errorMessage({ code: 7 })).toBe('{"code":7}');
    expect(errorMessage(undefined)).toBe("undefined");
    expect(errorMessage(Symbol("s"))).toBe("Symbol(s)");
    const hostile = {
      get message(): string {
        throw new Error("message getter");
      },
      toString(): string {
        throw new Error("toString");
      },
    };
    expect(errorMessage(hostile)).toBe("a thrown object that cannot be printed (reading it threw)");
    const trap = () => {
      throw new Error("trap");
    };
    const proxy = new Proxy({}, { get: trap, getPrototypeOf: trap, ownKeys: trap });
    expect(errorMessage(proxy)).toBe("a thrown object that cannot be printed (reading it threw)");
  });
});
