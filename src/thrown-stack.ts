import { readableThrown, userThrown } from "./errors.js";

/** Frames of a thrown error's stack kept in its record; the rest are counted. */
export const MAX_STACK_FRAMES = 50;
/** Characters of one frame kept (a frame of minified or generated code can be a long line). */
const MAX_FRAME_CHARS = 500;

/**
 * The stack frames of what user code threw, for its record: every `at …` line of its stack, as
 * Node gives it (source-mapped, as the one frame its message names), up to
 * {@link MAX_STACK_FRAMES} frames of at most 500 characters each, then how many were left out.
 * Undefined for niceeval's own errors (a time limit, a tool's schema: their message says where)
 * and for a value without frames; one that wraps what user code threw (a createScorer factory's
 * error, its `cause`) gives the frames of that.
 * @example
 * thrownStack(new Error("no answer")); // "at parseReply (src/parse.ts:4:46)\nat planStep (src/agent.ts:2:52)…"
 */
export function thrownStack(thrown: unknown): string | undefined {
  const error = userThrown(readableThrown(thrown));
  if (!(error instanceof Error)) return undefined;
  let stack: unknown;
  try {
    stack = error.stack;
  } catch {
    return undefined;
  }
  if (typeof stack !== "string") return undefined;
  const frames: string[] = [];
  let more = 0;
  for (const line of stack.split("\n")) {
    const frame = line.trim();
    if (!frame.startsWith("at ")) continue;
    if (frames.length === MAX_STACK_FRAMES) more++;
    else
      frames.push(frame.length > MAX_FRAME_CHARS ? `${frame.slice(0, MAX_FRAME_CHARS)}…` : frame);
  }
  if (frames.length === 0) return undefined;
  if (more > 0) frames.push(`… ${more} more frame${more === 1 ? "" : "s"}`);
  return frames.join("\n");
}
