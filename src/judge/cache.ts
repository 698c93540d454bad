import { createHash, randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { JudgeChatRequest, JudgeChatResponse, JudgeTarget } from "./chat.js";

/** Bump when the cached shape or the prompts change meaning: old entries are then ignored. */
export const JUDGE_CACHE_VERSION = 1;

/** The cache key of one request: provider, endpoint, model, the full request and the cache version. */
export function judgeCacheKey(target: JudgeTarget, request: JudgeChatRequest): string {
  const material = JSON.stringify({
    version: JUDGE_CACHE_VERSION,
    provider: target.provider,
    endpoint: target.endpoint,
    model: target.model,
    request,
  });
  return createHash("sha256").update(material).digest("hex");
}

const entryPath = (dir: string, key: string) => join(dir, key.slice(0, 2), `${key}.json`);

/** A cached answer, or undefined (missing, unreadable or from another cache version). */
export async function readCachedAnswer(
  dir: string,
  key: string,
): Promise<JudgeChatResponse | undefined> {
  let text: string;
  try {
    text = await readFile(entryPath(dir, key), "utf8");
  } catch {
    return undefined;
  }
  try {
    const entry = JSON.parse(text) as { version?: unknown; response?: JudgeChatResponse };
    if (entry.version !== JUDGE_CACHE_VERSION || typeof entry.response?.text !== "string")
      return undefined;
    return entry.response;
  } catch {
    return undefined;
  }
}

/**
 * Store an answer: one file per key, written to a unique temp file then renamed into place,
 * so concurrent writers (workers, parallel runs) never leave a half-written entry.
 */
export async function writeCachedAnswer(
  dir: string,
  key: string,
  target: JudgeTarget,
  response: JudgeChatResponse,
): Promise<void> {
  const path = entryPath(dir, key);
  const temp = `${path}.${process.pid}.${randomUUID()}.tmp`;
  const entry = {
    version: JUDGE_CACHE_VERSION,
    provider: target.provider,
    model: target.model,
    response,
  };
  try {
    await mkdir(join(dir, key.slice(0, 2)), { recursive: true });
    await writeFile(temp, JSON.stringify(entry));
    await rename(temp, path);
  } catch {
    // A cache that cannot be written costs a future call, never this judgment.
    await rm(temp, { force: true }).catch(() => {});
  }
}
