import { spawn } from "node:child_process";
import { afterSpawn } from "../spawn-hook.js";
import { parentDeathLauncher } from "./spawn.js";

/**
 * The shell that ends this eval process's group, its parent's: every process of its group
 * (`kill -KILL 0`), itself included. Started so that the kernel sends it SIGTERM when its parent
 * ends, it waits for that; elsewhere it checks every second that its parent is still there.
 */
const ON_TERM = 'trap "kill -KILL 0" TERM; while :; do sleep 86400 & wait $!; done';
const POLLING = "while kill -0 $PPID 2>/dev/null; do sleep 1; done; kill -KILL 0";

/**
 * An eval process leads a process group (spawn.ts), which its supervisor kills once it ended. A
 * supervisor killed with SIGKILL (a CI runner's hard stop, `timeout -s KILL`) cannot, and the
 * kernel (`setpriv --pdeathsig KILL`) or the watching thread (orphan-watch.ts) ends the eval
 * process alone: the processes its targets started (a server, a shell's `sleep`) would outlive
 * both, as they did not when they shared the supervisor's group. So, once a target starts its
 * first process, a small shell joins this process's group and kills the group when this process
 * ends, however it ends. A run whose targets start no process pays nothing. Not on Windows (no
 * process groups).
 */
export function reapGroupWithThisProcess(): void {
  if (process.platform === "win32") return;
  let started = false;
  afterSpawn(() => {
    if (started) return;
    // Set first: the reaper's own start comes through here too.
    started = true;
    startReaper();
  });
}

function startReaper(): void {
  const launcher = parentDeathLauncher();
  try {
    const reaper = launcher
      ? spawn(launcher, ["--pdeathsig", "TERM", "--", "/bin/sh", "-c", ON_TERM], {
          stdio: "ignore",
        })
      : spawn("/bin/sh", ["-c", POLLING], { stdio: "ignore" });
    reaper.unref();
    reaper.on("error", () => {});
  } catch {
    // Not started (a system that refuses): the group is ended as before, by the supervisor alone.
  }
}
