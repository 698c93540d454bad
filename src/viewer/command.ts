import { spawn } from "node:child_process";
import { writeSync } from "node:fs";
import { resolve } from "node:path";
import type { ExportArgs, ViewArgs } from "../cli/args.js";
import type { CliIO } from "../cli/io.js";
import { NiceevalError } from "../errors.js";
import type { Store } from "../store/types.js";
import { exportHtml } from "./export.js";
import { startViewer } from "./server.js";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

/** `niceeval view`: serve the viewer until interrupted (SIGINT, SIGTERM) or `signal` aborts. */
export async function viewCommand(
  args: ViewArgs,
  store: Store,
  io: CliIO,
  signal?: AbortSignal,
): Promise<number> {
  if (!LOOPBACK.has(args.host)) {
    io.stderr(
      `niceeval: warning: serving on ${args.host}: other machines on the network can reach the viewer (the session token still guards it)\n`,
    );
  }
  const viewer = await startViewer({ store, host: args.host, port: args.port });
  writeSync(
    io.stdoutFd,
    `niceeval viewer of ${store.location}\n  ${viewer.url}\n(Ctrl-C stops it)\n`,
  );
  if (args.open) openBrowser(viewer.url);
  await new Promise<void>((done) => {
    const stop = () => done();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    signal?.addEventListener("abort", stop, { once: true });
  });
  await viewer.close();
  return 0;
}

function openBrowser(url: string): void {
  const [command, ...rest] =
    process.platform === "darwin"
      ? ["open"]
      : process.platform === "win32"
        ? ["cmd", "/c", "start", '""']
        : ["xdg-open"];
  try {
    const child = spawn(command!, [...rest, url], { stdio: "ignore", detached: true });
    child.on("error", () => {});
    child.unref();
  } catch {
    // No opener: the URL is printed anyway.
  }
}

/** `niceeval export <run> --html <file> [--baseline <run>]` and `--ndjson <file>`. */
export async function exportCommand(args: ExportArgs, store: Store, io: CliIO): Promise<number> {
  if (args.ndjson !== undefined) {
    const { exportNdjson } = await import("../cli/commands/merge.js");
    await exportNdjson(args.run, args.ndjson, store, io);
  }
  if (args.html === undefined) return 0;
  const file = resolve(io.cwd, args.html);
  let result: Awaited<ReturnType<typeof exportHtml>>;
  try {
    result = await exportHtml({
      store,
      run: args.run,
      file,
      ...(args.baseline !== undefined ? { baseline: args.baseline } : {}),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code !== "string" || !/^E[A-Z]+$/.test(code)) throw error;
    throw new NiceevalError(
      "USAGE",
      `--html: cannot write ${args.html} (${code}); pass a file path in an existing, writable folder`,
    );
  }
  writeSync(
    io.stdoutFd,
    `wrote ${file}: run ${result.runId.slice(0, 8)}, ${result.attempts} attempts${result.baselineId ? `, compared with ${result.baselineId.slice(0, 8)}` : ""}, ${(result.bytes / 2 ** 20).toFixed(1)} MiB\n`,
  );
  return 0;
}
