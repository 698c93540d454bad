import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LineWriter } from "./output.js";

describe("LineWriter", () => {
  it("writes what it buffered within its delay, without waiting for the buffer to fill", async () => {
    const dir = mkdtempSync(join(tmpdir(), "niceeval-out-"));
    const file = join(dir, "out.txt");
    const fd = openSync(file, "w");
    try {
      const out = new LineWriter(fd, 64 * 1024, 20);
      out.line("first case");
      expect(readFileSync(file, "utf8")).toBe("");
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(readFileSync(file, "utf8")).toBe("first case\n");
      out.line("second");
      out.flush();
      expect(readFileSync(file, "utf8")).toBe("first case\nsecond\n");
    } finally {
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
