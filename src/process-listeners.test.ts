import { describe, expect, it } from "vitest";
import { keepListener, restoreListeners } from "./process-listeners.js";

// Node's types give `listeners` a signal's name only; `process` is an EventEmitter all the same.
const emitter: NodeJS.EventEmitter = process;

describe("restoreListeners", () => {
  it("puts back a kept listener however it was removed, and names it", () => {
    const listener = () => {};
    const release = keepListener("niceeval-test", listener);
    const others = emitter.listeners("removeListener");
    try {
      restoreListeners();
      expect(restoreListeners()).toBeUndefined();

      process.off("niceeval-test", listener);
      expect(restoreListeners()).toEqual([{ event: "niceeval-test", node: false }]);
      expect(emitter.listeners("niceeval-test")).toEqual([listener]);

      process.removeAllListeners("niceeval-test");
      expect(restoreListeners()).toEqual([{ event: "niceeval-test", node: false }]);

      // The one removal no listener is told of: the `removeListener` listeners themselves.
      process.removeAllListeners("removeListener");
      process.off("niceeval-test", listener);
      expect(restoreListeners()?.map((r) => r.event)).toContain("niceeval-test");
      expect(emitter.listeners("niceeval-test")).toEqual([listener]);
      expect(restoreListeners()).toBeUndefined();
    } finally {
      for (const other of others)
        if (!emitter.listeners("removeListener").includes(other))
          emitter.on("removeListener", other as () => void);
      release();
    }
  });
});
