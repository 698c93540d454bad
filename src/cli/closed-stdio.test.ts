import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "niceeval-closed-stdio-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Runs test-support/stdio-writer.ts with piped stdout and stderr whose readers are destroyed as
 * soon as it is ready (unless `closed-fds`: it closes them itself). Killed after `boundMs`.
 */
function runWriter(
  flags: readonly string[],
  boundMs = 60_000,
): Promise<{ code: number | null; killed: boolean; result: { uncaught: number; writes: number } }> {
  const file = join(dir, `${flags.join("-") || "guarded"}.json`);
  const script = fileURLToPath(new URL("./test-support/stdio-writer.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", script, file, ...flags], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let ready = 0;
  for (const stream of [child.stdout, child.stderr])
    stream.once("data", () => {
      if (++ready < 2 || flags.includes("closed-fds")) return;
      child.stdout.destroy();
      child.stderr.destroy();
    });
  let killed = false;
  const bound = setTimeout(() => {
    killed = true;
    child.kill("SIGKILL");
  }, boundMs);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(bound);
      resolve({ code, killed, result: JSON.parse(readFileSync(file, "utf8")) });
    });
  });
}

describe("standard streams whose output is gone", () => {
  it("take writes as no-ops once their readers left (EPIPE): no uncaught error, no loop", async () => {
    const run = await runWriter([]);
    expect(run).toEqual({ code: 0, killed: false, result: { uncaught: 0, writes: 100 } });
  }, 90_000);

  it("take writes as no-ops once their descriptors are closed (EBADF)", async () => {
    const run = await runWriter(["closed-fds"]);
    expect(run).toEqual({ code: 0, killed: false, result: { uncaught: 0, writes: 100 } });
  }, 90_000);
});
