import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import FakeTimers from "@sinonjs/fake-timers";
import { describe, expect, it } from "vitest";
import { flushLineWriters, LineWriter, part } from "./output.js";

/** What `write` puts in a file through a LineWriter of that file, read back when it is done. */
function written(write: (out: LineWriter) => void, limit?: number): string {
  const dir = mkdtempSync(join(tmpdir(), "niceeval-out-"));
  const file = join(dir, "out.txt");
  const fd = openSync(file, "w");
  try {
    const out = new LineWriter(fd, limit);
    write(out);
    out.flush();
    return readFileSync(file, "utf8");
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("LineWriter", () => {
  // An attempt may keep fake timers installed while it waits (runner/globals.ts, holdGlobals), and
  // in process (--no-supervise, runEvals) the reports of the attempts that end meanwhile are
  // written then: their lines must still go out within the delay, then and after.
  it("writes within its delay while the global timers are faked, and after they are uninstalled", async () => {
    const dir = mkdtempSync(join(tmpdir(), "niceeval-out-"));
    const file = join(dir, "out.txt");
    const fd = openSync(file, "w");
    const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    try {
      const out = new LineWriter(fd, 64 * 1024, 20);
      out.line("while faked");
      // The real clock (node:timers/promises is not faked): 10 times the delay.
      await sleep(200);
      expect(readFileSync(file, "utf8")).toBe("while faked\n");
      clock.uninstall();
      out.line("after");
      await sleep(200);
      expect(readFileSync(file, "utf8")).toBe("while faked\nafter\n");
    } finally {
      clock.uninstall();
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    }
  });

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
      // A line put together from parts goes out within the delay too.
      out.putPart(part("third "));
      out.putText("case");
      out.putPart(part("\n"));
      out.endLine();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(readFileSync(file, "utf8")).toBe("first case\nsecond\nthird case\n");
    } finally {
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("lets another writer of its descriptor go after what it holds (flushLineWriters)", () => {
    const text = written((out) => {
      out.line("held in the buffer");
      flushLineWriters(out.fd);
      writeSync(out.fd, "written directly\n");
      out.line("after");
    });
    expect(text).toBe("held in the buffer\nwritten directly\nafter\n");
  });

  it("puts parts, text and lines in the order given, joined parts as they were", () => {
    const passed = part("  ✓ ");
    const failed = part("  ✗ ");
    const rest = part(" passed · 4/4\n");
    const judgmentLine = part("      ✓ exact — equal\n");
    const expected: string[] = [];
    const text = written((out) => {
      for (let i = 0; i < 2000; i++) {
        const mark = i % 10 === 0 ? failed : passed;
        out.putPart(mark);
        const id = i % 7 === 0 ? `cas-é-😀-\ud800-${i}` : `case-${i}`;
        out.putText(id);
        out.putPart(rest);
        out.putPart(judgmentLine);
        if (i % 3 === 0) out.line(`      ! line ${i}`);
        out.endLine();
        expected.push(
          `${i % 10 === 0 ? "  ✗ " : "  ✓ "}${id} passed · 4/4\n      ✓ exact — equal\n`,
          i % 3 === 0 ? `      ! line ${i}\n` : "",
        );
      }
    });
    // A lone surrogate is written as UTF-8 writes it (U+FFFD), as a Buffer does.
    expect(text).toBe(Buffer.from(expected.join("")).toString());
  });

  it("writes text of any length and parts of any number, with a limit of 0 and of 64 KB", () => {
    for (const limit of [0, 64 * 1024]) {
      const long = "é".repeat(30_000);
      const expected: string[] = [];
      const text = written((out) => {
        // Parts that follow each other twice are joined: many of them, so joins are forgotten too.
        for (let i = 0; i < 3000; i++) {
          const a = part(`${i}:${"a".repeat(400)}`);
          const b = part(`${"b".repeat(400)}\n`);
          for (let k = 0; k < 3; k++) {
            out.putPart(a);
            out.putPart(b);
            out.endLine();
            expected.push(`${i}:${"a".repeat(400)}${"b".repeat(400)}\n`);
          }
        }
        out.putText(long);
        out.putText("x".repeat(2000));
        out.putPart(part(`${"c".repeat(100_000)}\n`));
        out.endLine();
        expected.push(long, "x".repeat(2000), `${"c".repeat(100_000)}\n`);
      }, limit);
      expect(text).toBe(expected.join(""));
    }
  });
});
