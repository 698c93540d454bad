import { describe, expect, it } from "vitest";
import {
  errorMessage,
  isClosedOutput,
  NiceevalError,
  thrownMessage,
  thrownWhere,
} from "./errors.js";

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

  it("says that an error or a thrown string had no message, by its kind, never an empty text", () => {
    expect(errorMessage(new Error())).toBe("Error (no message)");
    expect(errorMessage(new Error("  "))).toBe("Error (no message)");
    expect(errorMessage(new TypeError(""))).toBe("TypeError (no message)");
    expect(errorMessage("")).toBe("an empty string (no message)");
    const nameless = new Error("");
    nameless.name = "";
    expect(errorMessage(nameless)).toBe("Error (no message)");
  });

  it("reads an error without a message for what it still tells: the errors it gathers, its code", () => {
    // Node's fetch to localhost: one refusal per address, gathered without a message.
    const both = new AggregateError(
      [
        new Error("connect ECONNREFUSED ::1:3000"),
        new Error("connect ECONNREFUSED 127.0.0.1:3000"),
      ],
      "",
    );
    expect(errorMessage(both)).toBe(
      "connect ECONNREFUSED ::1:3000; connect ECONNREFUSED 127.0.0.1:3000",
    );
    expect(errorMessage(new AggregateError(["a", "b", "c", new Error("d")], ""))).toBe(
      "a; b; and 2 more",
    );
    expect(errorMessage(Object.assign(new Error(""), { code: "ECONNRESET" }))).toBe(
      "Error ECONNRESET",
    );
    expect(thrownMessage(new TypeError("fetch failed", { cause: both }))).toBe(
      "TypeError: fetch failed (cause: connect ECONNREFUSED ::1:3000; connect ECONNREFUSED 127.0.0.1:3000)",
    );
    // A cause that says nothing adds nothing, as before an empty message was named.
    expect(thrownMessage(new Error("failed", { cause: new Error() }))).toBe("failed");
  });
});

describe("thrownMessage", () => {
  it("adds what caused the error, up to three deep, without repeating a message", () => {
    const refused = new Error("connect ECONNREFUSED 127.0.0.1:1");
    expect(thrownMessage(new TypeError("fetch failed", { cause: refused }))).toBe(
      "TypeError: fetch failed (cause: connect ECONNREFUSED 127.0.0.1:1)",
    );
    const deep = new Error("a", {
      cause: new Error("b", { cause: new Error("c", { cause: new Error("d", { cause: "e" }) }) }),
    });
    expect(thrownMessage(deep)).toBe("a (cause: b) (cause: c) (cause: d)");
    expect(thrownMessage(new Error("wrapped: inner", { cause: new Error("inner") }))).toBe(
      "wrapped: inner",
    );
    const looped = new Error("loop");
    (looped as { cause?: unknown }).cause = looped;
    expect(thrownMessage(looped)).toBe("loop");
    expect(thrownMessage("plain")).toBe("plain");
  });

  it("names the kind of an error without a message once, and a cause that has one", () => {
    expect(thrownMessage(new Error())).toBe("Error (no message)");
    expect(thrownMessage(new TypeError(""))).toBe("TypeError (no message)");
    expect(thrownMessage("")).toBe("an empty string (no message)");
    expect(thrownMessage(new Error("", { cause: new Error("refused") }))).toBe(
      "Error (no message) (cause: refused)",
    );
  });
});

describe("thrownWhere", () => {
  it("says a plain Error's or niceeval's own message alone, and a thrown value as it is", () => {
    expect(thrownWhere(new NiceevalError("USAGE", "bad"))).toBe("bad");
    expect(thrownWhere("plain")).toBe("plain");
    expect(thrownMessage(new Error("boom"))).toBe("boom");
  });

  it("says where the user's error that niceeval's own wraps was thrown", () => {
    const cause = new Error("no key");
    cause.stack = "Error: no key\n    at makeClient (/app/scorers.ts:7:11)";
    const wrapped = new NiceevalError("SCORER_FACTORY", "the config factory threw: no key", {
      cause,
    });
    expect(thrownWhere(wrapped)).toBe(
      "the config factory threw: no key (at makeClient (/app/scorers.ts:7:11))",
    );
  });
});

describe("isClosedOutput", () => {
  const failed = (code: string, syscall?: string) =>
    Object.assign(new Error(code), { code, syscall });
  it("is a write whose reader left, to a closed descriptor, or to a destroyed stream", () => {
    expect(isClosedOutput(failed("EPIPE", "write"))).toBe(true);
    expect(isClosedOutput(failed("EBADF", "write"))).toBe(true);
    expect(isClosedOutput(failed("ERR_STREAM_DESTROYED"))).toBe(true);
  });
  it("is not another failure, nor the same code from something other than a write", () => {
    expect(isClosedOutput(failed("ENOSPC", "write"))).toBe(false);
    expect(isClosedOutput(failed("EBADF", "read"))).toBe(false);
    expect(isClosedOutput(failed("EPIPE", "connect"))).toBe(false);
    expect(isClosedOutput(undefined)).toBe(false);
    expect(isClosedOutput("EPIPE")).toBe(false);
  });
});
