import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { sortedModels } from "../judge/judge-models.js";
import type { RunEntry } from "../runner/entry.js";
import { trialsOf } from "../runner/source.js";
import { hashValue } from "../store/hash.js";
import type { RunManifest } from "../store/types.js";

/** What the CLI knows about a run before it starts. */
export interface ManifestInput {
  runId: string;
  cwd: string;
  /** The checkout's state (git-state.ts); undefined outside a git repository. */
  git: RunManifest["git"];
  entries: readonly RunEntry[];
  files: readonly string[];
  argv: readonly string[];
  name?: string;
  tags: Record<string, string>;
  trials: number;
  concurrency: number;
  niceevalVersion: string;
  /** Judge models every eval may use without naming one (the default closeQA judge), when known. */
  judgeModels: string[];
}

/** The manifest a run is stored with: versions, git state, file and configuration hashes. */
export function buildManifest(input: ManifestInput): RunManifest {
  const { git } = input;
  return {
    runId: input.runId,
    ...(input.name !== undefined ? { name: input.name } : {}),
    tags: input.tags,
    niceevalVersion: input.niceevalVersion,
    nodeVersion: process.version,
    ...(git ? { git } : {}),
    command: [...input.argv],
    files: input.files.map((file) => ({
      path: relative(input.cwd, file) || file,
      hash: fileHash(file),
    })),
    evals: input.entries.map(({ eval: runnable, file }) => {
      // The models its scorers were built with, and the run's defaults.
      const judgeModels = sortedModels([...(runnable.judgeModels?.() ?? []), ...input.judgeModels]);
      return {
        evalId: runnable.id,
        style: runnable.style,
        ...(runnable.passFail ? { passFail: true as const } : {}),
        ...(file ? { file: relative(input.cwd, file) || file } : {}),
        configHash: hashValue({ fingerprint: runnable.fingerprint?.() ?? null, judgeModels }),
        judgeModels,
        trials: trialsOf(runnable.trials ?? input.trials),
      };
    }),
    trials: input.trials,
    concurrency: input.concurrency,
    startedAt: new Date().toISOString(),
  };
}

/** A short hash of a file's contents ("unreadable" when it cannot be read). */
export function fileHash(file: string): string {
  try {
    return createHash("sha256").update(readFileSync(file)).digest("hex").slice(0, 16);
  } catch {
    return "unreadable";
  }
}
