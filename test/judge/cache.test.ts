import { execFile } from "node:child_process";
import { appendFile, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JUDGE_CACHE_VERSION, JudgeAnswerStore, judgeCacheKey } from "../../src/judge/cache.js";
import type { JudgeChatRequest } from "../../src/judge/chat.js";

const target = { provider: "p", model: "m", endpoint: "e" };
const request: JudgeChatRequest = {
  system: "s",
  messages: [{ role: "user", content: "q" }],
  answer: { name: "a", description: "d", schema: {} },
  temperature: 0,
  maxOutputTokens: 10,
};

let dir: string;
let opened: JudgeAnswerStore[] = [];
/** A store closed after the test, so no file handle is left for the garbage collector. */
const storeAt = (folder: string) => {
  const store = new JudgeAnswerStore(folder);
  opened.push(store);
  return store;
};
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "niceeval-cache-"));
});
afterEach(async () => {
  await Promise.all(opened.map((store) => store.close()));
  opened = [];
  await rm(dir, { recursive: true, force: true });
});

describe("judge cache", () => {
  it("keys on provider, endpoint, model and every field of the request", () => {
    const key = judgeCacheKey(target, request);
    expect(judgeCacheKey({ ...target }, { ...request })).toBe(key);
    expect(judgeCacheKey({ ...target, model: "n" }, request)).not.toBe(key);
    expect(judgeCacheKey({ ...target, provider: "q" }, request)).not.toBe(key);
    expect(judgeCacheKey({ ...target, endpoint: "f" }, request)).not.toBe(key);
    expect(judgeCacheKey(target, { ...request, maxOutputTokens: 11 })).not.toBe(key);
    expect(
      judgeCacheKey(target, { ...request, messages: [{ role: "user", content: "Q" }] }),
    ).not.toBe(key);
  });

  it("does not serve an answer cut off at the output token limit that an earlier version cached", async () => {
    const key = judgeCacheKey(target, request);
    const cut = judgeCacheKey(target, { ...request, maxOutputTokens: 5 });
    await storeAt(dir).put(key, target, { text: "whole", inputTokens: 1, outputTokens: 1 });
    await storeAt(dir).put(cut, target, {
      text: '{"value":0.9}',
      ended: 'the answer was cut off at the output token limit (stop_reason "max_tokens")',
      inputTokens: 1,
      outputTokens: 5,
    });
    const fresh = storeAt(dir);
    expect((await fresh.get(key))?.text).toBe("whole");
    expect(await fresh.get(cut)).toBeUndefined();
  });

  it("persists answers for a later process (a fresh store reads them from disk)", async () => {
    const key = judgeCacheKey(target, request);
    await storeAt(dir).put(key, target, {
      text: "answer",
      inputTokens: 3,
      outputTokens: 4,
    });
    expect(await storeAt(dir).get(key)).toEqual({
      text: "answer",
      inputTokens: 3,
      outputTokens: 4,
    });
    expect(
      (await readdir(dir)).every((name) => name.startsWith(`judge-v${JUDGE_CACHE_VERSION}-`)),
    ).toBe(true);
  });

  it("skips a line cut short by a crash and keeps the entries after it", async () => {
    const store = storeAt(dir);
    await store.put("a-first", target, { text: "one", inputTokens: 0, outputTokens: 0 });
    await appendFile(join(dir, `judge-v${JUDGE_CACHE_VERSION}-a.jsonl`), '\n{"key":"a-cut","respo');
    await store.put("a-second", target, { text: "two", inputTokens: 0, outputTokens: 0 });
    const fresh = storeAt(dir);
    expect((await fresh.get("a-first"))?.text).toBe("one");
    expect((await fresh.get("a-second"))?.text).toBe("two");
    expect(await fresh.get("a-cut")).toBeUndefined();
  });

  it("loses no entry when several processes write at once", async () => {
    const run = promisify(execFile);
    const writer = join(import.meta.dirname, "cache-writer.ts");
    await Promise.all(
      ["w1", "w2", "w3", "w4"].map((tag) =>
        run(process.execPath, ["--import", "tsx", writer, dir, tag, "150"]),
      ),
    );
    const store = storeAt(dir);
    for (const tag of ["w1", "w2", "w3", "w4"]) {
      for (let i = 0; i < 150; i++) {
        const entry = await store.get(`${(i % 16).toString(16)}-${tag}-${i}`);
        expect(entry?.text.startsWith(`${tag}:${i}:`)).toBe(true);
        expect(entry?.text.length).toBe(`${tag}:${i}:`.length + 2000);
      }
    }
  });
});
