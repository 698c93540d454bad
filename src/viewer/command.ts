import { spawn } from "node:child_process";
import { writeSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { resolve } from "node:path";
import type { ExportArgs, ViewArgs } from "../cli/args.js";
import { findComparedRuns, nothingOnBranch } from "../cli/compared-runs.js";
import type { CliIO } from "../cli/io.js";
import { ReportTargets } from "../cli/report-targets.js";
import { latestShardNote } from "../cli/shard-command.js";
import { storeLocation, storeSource } from "../cli/store.js";
import { NiceevalError } from "../errors.js";
import { resolveRunRef } from "../store/resolve.js";
import type { Store, StoredRun } from "../store/types.js";
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
  // Runs to compare that the store does not hold are said now, as `compare` says them, not
  // only by the page once it is open.
  if (args.compare)
    await findComparedRuns(store, args.compare.base, args.compare.head, () => {}, {
      command: "view --base/--head",
      example: "niceeval view --base branch:main --head latest",
      names: { base: "--base", head: "--head" },
    });
  const viewer = await listen(args, store);
  const page = args.compare ? comparePage(args.compare) : "";
  const [url, ...network] = servedUrls(viewer.url, args.host).map((served) => `${served}${page}`);
  const elsewhere = network.map((served) => `  on the network: ${served}\n`).join("");
  writeSync(
    io.stdoutFd,
    `niceeval viewer of ${store.location}\n  ${url}\n${elsewhere}(Ctrl-C stops it)\n`,
  );
  if (args.open) openBrowser(url!);
  await new Promise<void>((done) => {
    const stop = () => done();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    signal?.addEventListener("abort", stop, { once: true });
  });
  await viewer.close();
  return 0;
}

/**
 * The viewer's URL as a reader can open it. Served on every address (`0.0.0.0`, `::`), a URL
 * naming that address opens nowhere else: this machine's loopback comes first, then one URL per
 * address other machines reach it at.
 */
function servedUrls(url: string, host: string): string[] {
  const v6 = host === "::" || host === "[::]";
  if (host !== "0.0.0.0" && !v6) return [url];
  const at = (address: string) => {
    const served = new URL(url);
    served.hostname = address.includes(":") ? `[${address}]` : address;
    return served.href;
  };
  const network = Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && !a.internal && (a.family === "IPv4" || v6))
    .filter((a) => !a!.address.toLowerCase().startsWith("fe80:"))
    .map((a) => at(a!.address));
  return [at(v6 ? "::1" : "127.0.0.1"), ...network];
}

/**
 * The web app's page of a comparison, as a URL fragment: the app reads it after the token's
 * redirect (a redirect keeps the fragment), and resolves the runs as `niceeval compare` does.
 */
function comparePage(runs: { base: string; head: string }): string {
  const q = new URLSearchParams({ base: runs.base, head: runs.head });
  return `#/compare?${q}`;
}

/** The viewer, or a usage error that says why it cannot listen (a port in use, a host not here). */
async function listen(args: ViewArgs, store: Store) {
  try {
    return await startViewer({
      store,
      host: args.host,
      port: args.port,
      ...(args.store === undefined ? {} : { storeFlag: args.store }),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const where = `${args.host}:${args.port}`;
    if (code === "EADDRINUSE")
      throw new NiceevalError(
        "USAGE",
        `view: port ${args.port} on ${args.host} is in use (another viewer?); pass --port <n>, or --port 0 for any free port`,
      );
    if (code === "EACCES")
      throw new NiceevalError(
        "USAGE",
        `view: not allowed to listen on ${where}; pass --port above 1023, or --port 0 for any free port`,
      );
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EAI_AGAIN")
      throw new NiceevalError(
        "USAGE",
        `view: cannot listen on ${args.host} (${code}): it is not an address of this machine; pass --host 127.0.0.1`,
      );
    throw error;
  }
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

/**
 * `niceeval export <run> --html <file> [--baseline <run or branch:NAME>]` and `--ndjson <file>`.
 */
export async function exportCommand(args: ExportArgs, store: Store, io: CliIO): Promise<number> {
  if (args.run.startsWith("branch:"))
    throw new NiceevalError(
      "USAGE",
      `export takes the run to export by id, id prefix, name or latest~N, not ${args.run}: branch:NAME names only the run --baseline compares it with (${BRANCH_EXAMPLE})`,
    );
  // Neither export may be written over the other or over the store it is read from.
  const targets = new ReportTargets(io.cwd, io.stdoutFd);
  targets.protectStore(storeLocation(args.store, io.env), storeSource(args.store, io.env));
  if (args.ndjson !== undefined) targets.claim(args.ndjson, "--ndjson");
  if (args.html !== undefined) targets.claim(args.html, "--html", false);
  if (args.ndjson !== undefined) {
    const { exportNdjson } = await import("../cli/commands/merge.js");
    await exportNdjson(args.run, args.ndjson, store, io);
  }
  if (args.html === undefined) return 0;
  const file = resolve(io.cwd, args.html);
  const runs = await exportedRuns(args, store, io);
  let result: Awaited<ReturnType<typeof exportHtml>>;
  try {
    result = await exportHtml({
      store,
      file,
      ...runs,
      ...(args.store === undefined ? {} : { storeFlag: args.store }),
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
  // A page that looks like a report of a whole run, taken mid-run (the page says so too).
  if (result.status === "running")
    io.stderr(
      `niceeval: warning: run ${result.runId.slice(0, 8)} is still running: the export holds the ${result.attempts} attempts stored so far; export it again once the run has finished\n`,
    );
  return 0;
}

/**
 * The runs an HTML export names (by id): the run by reference, the baseline as `compare` finds
 * its base (`branch:NAME` too: a branch with no such run yet exports the run alone, saying so),
 * with what `show` and `compare` say on stderr when `latest` or `latest~N` names one shard of a
 * sharded run.
 */
async function exportedRuns(
  args: ExportArgs,
  store: Store,
  io: CliIO,
): Promise<{ run: string; baseline?: string }> {
  const run = await resolveRunRef(store, args.run);
  const refs: [string, StoredRun | undefined][] = [[args.run, run]];
  let base: StoredRun | undefined;
  if (args.baseline !== undefined) {
    // The run is found already: only a baseline that names no run gets the branch:NAME hint.
    const by = {
      command: "export --baseline",
      example: BRANCH_EXAMPLE,
      names: { base: "--baseline", head: "the exported run" },
    };
    ({ base } = await findComparedRuns(store, args.baseline, run.runId, io.stderr, by));
    refs.push([args.baseline, base]);
  }
  for (const [ref, found] of refs) {
    const note = found && (await latestShardNote(store, ref, found, args.store));
    if (note) io.stderr(note);
  }
  if (args.baseline !== undefined && !base)
    io.stderr(
      `niceeval: ${nothingOnBranch(args.baseline, run)} yet: nothing to compare; the page holds run ${run.runId.slice(0, 8)} alone\n`,
    );
  return { run: run.runId, ...(base ? { baseline: base.runId } : {}) };
}

const BRANCH_EXAMPLE = "niceeval export latest --html report.html --baseline branch:main";
