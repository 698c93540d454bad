import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { repoRoot } from "../support/project.js";

const built = join(repoRoot, "dist/viewer-app/manifest.json");
const lock = join(repoRoot, "dist/.viewer-app.lock");

function newestSource(): number {
  const files = [
    join(repoRoot, "vite.viewer.config.ts"),
    ...readdirSync(join(repoRoot, "viewer-app"), { recursive: true, encoding: "utf8" }).map((f) =>
      join(repoRoot, "viewer-app", f),
    ),
  ];
  return Math.max(...files.map((f) => statSync(f).mtimeMs));
}

const fresh = () => existsSync(built) && statSync(built).mtimeMs >= newestSource();

/**
 * Build the front end with Vite (as `npm run build` does) when dist/viewer-app is missing or older
 * than its sources, so `vitest run test/viewer` tests what ships. Test files run in parallel:
 * one builds under a lock, the others wait for it.
 */
export async function ensureViewerApp(): Promise<void> {
  while (!fresh()) {
    mkdirSync(join(repoRoot, "dist"), { recursive: true });
    try {
      mkdirSync(lock);
    } catch {
      // Another worker is building; a lock older than two minutes is left over from a crash.
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > 120_000)
        rmSync(lock, { recursive: true, force: true });
      await sleep(200);
      continue;
    }
    try {
      if (!fresh())
        execFileSync(
          join(repoRoot, "node_modules/.bin/vite"),
          ["build", "-c", "vite.viewer.config.ts"],
          { cwd: repoRoot, stdio: "pipe" },
        );
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}
