import { execFileSync, spawnSync } from "node:child_process";

/**
 * Install Debian's `pkg` when `command` does not run, so `npm test` runs on a fresh machine
 * (the tools a test reads its reports with: xmllint, jq, python3). Throws, naming the package,
 * when it still does not run.
 */
export function ensureCommand(command: string, pkg: string, probe = ["--version"]): void {
  const runs = () => spawnSync(command, probe, { stdio: "ignore" }).status === 0;
  if (runs()) return;
  const apt = (args: string[]) =>
    execFileSync("apt-get", args, {
      stdio: "ignore",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  try {
    apt(["install", "-y", "--no-install-recommends", pkg]);
  } catch {
    try {
      apt(["update"]);
      apt(["install", "-y", "--no-install-recommends", pkg]);
    } catch {}
  }
  if (!runs())
    throw new Error(
      `${command} is missing and apt-get could not install it: apt-get install -y ${pkg}`,
    );
}
