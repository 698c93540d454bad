import { createHash } from "node:crypto";
import { type FileHandle, mkdir, open, readFile } from "node:fs/promises";
import { join } from "node:path";
import { errorMessage } from "../errors.js";
import { processWide } from "../process-wide.js";
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

// 16 append-only shards per cache version: a run loads only the shards its keys fall in.
const shardOf = (key: string) => key.slice(0, 1);
const shardFile = (dir: string, shard: string) =>
  join(dir, `judge-v${JUDGE_CACHE_VERSION}-${shard}.jsonl`);

interface Shard {
  entries: Promise<Map<string, JudgeChatResponse>>;
  writer?: Promise<FileHandle> | undefined;
}

/**
 * Judge answers on disk as append-only JSON lines. Each entry is written by one `write` to a
 * file opened in append mode, framed by newlines, so concurrent writers (workers, parallel runs)
 * never corrupt each other's entries, and a line cut by a crash is skipped when read.
 */
export class JudgeAnswerStore {
  private readonly shards = new Map<string, Shard>();
  constructor(readonly dir: string) {}

  /** A cached answer, or undefined. */
  async get(key: string): Promise<JudgeChatResponse | undefined> {
    return (await this.shard(shardOf(key)).entries).get(key);
  }

  /** Whether this process said that answers cannot be written here (said once). */
  private saidUnwritable = false;

  /**
   * Store an answer; a cache that cannot be written costs a future call, never this judgment,
   * and is said once on stderr with why and what to do.
   */
  async put(key: string, target: JudgeTarget, response: JudgeChatResponse): Promise<void> {
    const shard = this.shard(shardOf(key));
    (await shard.entries).set(key, response);
    const line = `\n${JSON.stringify({ key, provider: target.provider, model: target.model, response })}\n`;
    try {
      shard.writer ??= mkdir(this.dir, { recursive: true }).then(() =>
        open(shardFile(this.dir, shardOf(key)), "a"),
      );
      await (await shard.writer).write(line);
    } catch (error) {
      shard.writer = undefined;
      this.sayUnwritable(error);
    }
  }

  private sayUnwritable(error: unknown): void {
    if (this.saidUnwritable) return;
    this.saidUnwritable = true;
    process.stderr.write(
      `niceeval: judge answers cannot be cached in ${this.dir} (${errorMessage(error)}); the judgments stand, but the next run asks the judges again: make that folder writable, or move it with configureJudges({ cacheDir })\n`,
    );
  }

  /** Close the shard files this store appends to. */
  async close(): Promise<void> {
    const writers = [...this.shards.values()].map((shard) => shard.writer);
    this.shards.clear();
    await Promise.all(
      writers.map(async (writer) => (await writer?.catch(() => undefined))?.close()),
    );
  }

  private shard(name: string): Shard {
    let shard = this.shards.get(name);
    if (!shard) {
      shard = { entries: load(shardFile(this.dir, name)) };
      this.shards.set(name, shard);
    }
    return shard;
  }
}

async function load(file: string): Promise<Map<string, JudgeChatResponse>> {
  const entries = new Map<string, JudgeChatResponse>();
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return entries;
  }
  for (const line of text.split("\n")) {
    if (!line) continue;
    try {
      const entry = JSON.parse(line) as { key?: unknown; response?: JudgeChatResponse };
      if (typeof entry.key === "string" && typeof entry.response?.text === "string") {
        // An answer cut off at the output token limit, which an earlier niceeval cached when what
        // came parsed, is not served: it is asked again.
        if (
          entry.response.cutOff ||
          /cut off at the output token limit/.test(entry.response.ended ?? "")
        )
          continue;
        entries.set(entry.key, entry.response);
      }
    } catch {
      // A line cut short by a crash: skip it.
    }
  }
  return entries;
}

const stores = processWide("judge.cache-stores", () => new Map<string, JudgeAnswerStore>());

/** The store of a cache folder (one per folder per process). */
export function answerStore(dir: string): JudgeAnswerStore {
  let store = stores.get(dir);
  if (!store) {
    store = new JudgeAnswerStore(dir);
    stores.set(dir, store);
  }
  return store;
}

/** Close every open cache file and forget loaded entries (tests, long-lived hosts changing cacheDir). */
export async function closeAnswerStores(): Promise<void> {
  const open = [...stores.values()];
  stores.clear();
  await Promise.all(open.map((store) => store.close()));
}
