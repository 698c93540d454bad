import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

/** Debian's Chromium: what works on these machines (a test tool's own download does not). */
export const CHROMIUM = "/usr/bin/chromium";

/** Install Debian's chromium package when it is missing, so `npm test` runs on a fresh machine. */
export function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  const apt = (args: string[]) =>
    execFileSync("apt-get", args, {
      stdio: "ignore",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  try {
    apt(["install", "-y", "chromium"]);
  } catch {
    apt(["update"]);
    apt(["install", "-y", "chromium"]);
  }
  if (!existsSync(CHROMIUM))
    throw new Error(`apt-get install chromium did not provide ${CHROMIUM}`);
}

/** A headless Chromium with a fresh profile, closed (and its profile removed) by `close`. */
export async function launchChromium(): Promise<{
  context: BrowserContext;
  close(): Promise<void>;
}> {
  ensureChromium();
  const profile = await mkdtemp(join(tmpdir(), "niceeval-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
