import { statSync } from "node:fs";
import { resolve } from "node:path";

// Which file a store's connection opened, told apart from one put at its path later
// (moved-file.ts). Kept apart from moved-file.ts, which needs better-sqlite3's types: this one is
// in the published declarations (store.ts's AppenderOptions), which must read without them.

/**
 * The file a connection opened, by device and inode, and its path resolved then, as SQLite
 * resolved it: a working folder changed later moves nothing.
 */
export interface OpenedFile {
  readonly path: string;
  readonly dev: number;
  readonly ino: number;
}

/** The file at `path` now, or undefined when there is none. */
export function openedFile(path: string): OpenedFile | undefined {
  try {
    const { dev, ino } = statSync(path);
    return { path: resolve(path), dev, ino };
  } catch {
    return undefined;
  }
}

/** Whether the file's path still names it. */
export function stillAt(file: OpenedFile): boolean {
  const now = openedFile(file.path);
  return now !== undefined && now.dev === file.dev && now.ino === file.ino;
}
