import { fileURLToPath } from "node:url";
import { builtFile } from "./package-files.js";

/**
 * Operational errors: each has a stable `code` and a message that names what was wrong,
 * where, and what to do. Programmer errors (a matcher built with NaN) throw these too,
 * at build time.
 */
export class NiceevalError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "NiceevalError";
    this.code = code;
  }
}

/** Issues a ToolInputError's message names; past these it counts the rest. */
const LISTED_ISSUES = 10;

/** Each issue of a tool's input, so one message shows every field to fix, not the first alone. */
function listIssues(issues: readonly { path: string; message: string }[]): string {
  if (issues.length === 0) return "rejected";
  const listed = issues
    .slice(0, LISTED_ISSUES)
    .map((issue) => `${issue.path || "(root)"}: ${issue.message}`)
    .join("; ");
  const rest = issues.length - LISTED_ISSUES;
  return rest > 0 ? `${listed}; and ${rest} more` : listed;
}

/** A value given to a tool failed the tool's input schema. */
export class ToolInputError extends NiceevalError {
  readonly toolId: string;
  readonly issues: readonly { path: string; message: string }[];
  constructor(toolId: string, issues: readonly { path: string; message: string }[]) {
    super(
      "TOOL_INPUT_INVALID",
      `invalid input for tool "${toolId}": ${listIssues(issues)}. Fix the value passed as \`input\` (or the binding's mapInput).`,
    );
    this.name = "ToolInputError";
    this.toolId = toolId;
    this.issues = issues;
  }
}

/** A tool implementation returned a value that fails the tool's output schema. */
export class ToolOutputError extends NiceevalError {
  readonly toolId: string;
  readonly issues: readonly { path: string; message: string }[];
  constructor(toolId: string, issues: readonly { path: string; message: string }[]) {
    const first = issues[0];
    super(
      "TOOL_OUTPUT_INVALID",
      `tool "${toolId}" returned an invalid result: ${first ? `${first.path || "(root)"}: ${first.message}` : "rejected"}. The implementation must return its outputSchema's shape.`,
    );
    this.name = "ToolOutputError";
    this.toolId = toolId;
    this.issues = issues;
  }
}

/**
 * No candidate driver implements the requested tool. `advice` says what to pass instead (the
 * driver niceeval ships for it, with its import); by default, a driver that implements it.
 */
export class ToolNotImplementedError extends NiceevalError {
  constructor(
    toolId: string,
    candidates: readonly string[],
    advice = "pass a driver that implements it in `candidates`",
  ) {
    super(
      "TOOL_NOT_IMPLEMENTED",
      `no candidate implements tool "${toolId}" (candidates: ${candidates.length ? candidates.join(", ") : "none"}); ${advice}`,
    );
    this.name = "ToolNotImplementedError";
  }
}

/** An eval was authored incorrectly (for example, `.gate()` called twice). */
export class AuthoringError extends NiceevalError {
  constructor(message: string) {
    super("AUTHORING", message);
    this.name = "AuthoringError";
  }
}

/** An eval defined so that it cannot run at all (no scorers): not a fault of its dataset. */
export class DefinitionError extends AuthoringError {
  constructor(message: string) {
    super(message);
    this.name = "DefinitionError";
  }
}

/**
 * What an Error without a message still tells: the messages of the errors it gathers (Node's
 * `fetch` to `localhost` fails with an AggregateError of one refusal per address), else its
 * `code` (ECONNREFUSED), else that it said nothing.
 */
function unsaid(error: Error): string {
  const gathered =
    error instanceof AggregateError && Array.isArray(error.errors) ? error.errors : [];
  const inner = gathered
    .map((item: unknown) =>
      item instanceof Error ? String(item.message) : typeof item === "string" ? item : "",
    )
    .filter((text) => text.trim() !== "");
  if (inner.length > 0)
    return inner.length > 2
      ? `${inner.slice(0, 2).join("; ")}; and ${inner.length - 2} more`
      : inner.join("; ");
  const { code } = error as { code?: unknown };
  if (typeof code === "string" && code.trim() !== "") return `${errorName(error)} ${code}`;
  return `${errorName(error)}${NO_MESSAGE}`;
}

/** How {@link errorMessage} ends for an error that says nothing. */
const NO_MESSAGE = " (no message)";

/**
 * Message of any thrown value, for reports. One that says nothing (`new Error()`, a thrown "")
 * is said to be so, by its kind, so a report never reads "target of case …: " with no reason.
 */
export function errorMessage(error: unknown): string {
  // Anything can be thrown: a message getter, a toString or a proxy trap that throws as well.
  try {
    if (error instanceof Error) {
      const message = String(error.message);
      return message.trim() === "" ? unsaid(error) : message;
    }
    if (typeof error === "string")
      return error.trim() === "" ? `an empty string${NO_MESSAGE}` : error;
    return JSON.stringify(error) ?? String(error);
  } catch {
    try {
      return String(error);
    } catch {
      return `a thrown ${typeof error} that cannot be printed (reading it threw)`;
    }
  }
}

/**
 * What code under test threw, for its record: the message, then what caused it (`error.cause`,
 * up to three deep), since the message alone often hides it ("fetch failed" for a refused
 * connection, a DNS or TLS failure).
 * @example
 * thrownMessage(new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED") }));
 * // "fetch failed (cause: connect ECONNREFUSED)"
 */
export function thrownMessage(error: unknown): string {
  let said = errorMessage(error);
  const kind = errorKind(error);
  if (kind !== undefined && !said.startsWith(kind)) said = `${kind}: ${said}`;
  let text = said;
  let current: unknown = error;
  for (let depth = 0; depth < 3; depth++) {
    let cause: unknown;
    try {
      cause = current instanceof Error ? current.cause : undefined;
    } catch {
      break;
    }
    if (cause === undefined || cause === null || cause === current) break;
    // A message that already quotes its cause's says it once.
    const next = errorMessage(cause);
    // A cause that says nothing adds nothing (its own cause may).
    if (next && !said.includes(next) && !next.endsWith(NO_MESSAGE)) text += ` (cause: ${next})`;
    said = next;
    current = cause;
  }
  return text;
}

/** An error's name as its stack would start with it: "Error" when it has none of its own. */
function errorName(error: Error): string {
  try {
    const { name } = error;
    return typeof name === "string" && name.trim() !== "" ? name : "Error";
  } catch {
    return "Error";
  }
}

/**
 * The type of an error thrown by user code when it says something (a `TypeError`, a subclass of
 * the user's own): undefined for a plain Error, a non-Error value, or niceeval's own errors,
 * whose messages already say what happened.
 */
function errorKind(error: unknown): string | undefined {
  try {
    if (!(error instanceof Error) || error instanceof NiceevalError) return undefined;
    const { name } = error;
    return typeof name === "string" && name !== "Error" && name !== "" ? name : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A thrown value niceeval can look at: the value itself, or, for one that throws when asked what
 * it is (a Proxy whose traps throw, so even `instanceof` on it throws), an Error saying so with
 * what asking threw.
 */
export function readableThrown(error: unknown): unknown {
  if (error === null || (typeof error !== "object" && typeof error !== "function")) return error;
  try {
    Object.getPrototypeOf(error);
    void (error as { code?: unknown }).code;
    return error;
  } catch (asked) {
    return new Error(
      `a thrown ${typeof error} that cannot be read (asking what it is threw: ${errorMessage(asked)})`,
    );
  }
}

/** {@link thrownMessage} with where user code threw it, when its stack shows that. */
export function thrownWhere(thrown: unknown): string {
  const error = readableThrown(thrown);
  const at = thrownAt(userThrown(error));
  return at === undefined ? thrownMessage(error) : `${thrownMessage(error)} (at ${at})`;
}

/**
 * What user code threw, as far as `error` tells: the error itself, or, for niceeval's own error,
 * the cause it wraps (a createScorer factory's error); undefined when niceeval's error wraps
 * nothing, since it says where already (a time limit, a tool's schema).
 */
export function userThrown(error: unknown): unknown {
  let current = error;
  // Bounded: a chain of causes may loop back on itself.
  for (let depth = 0; depth < 8; depth++) {
    if (!(current instanceof NiceevalError)) return current;
    try {
      current = current.cause;
    } catch {
      return undefined;
    }
    if (current === undefined) return undefined;
    current = readableThrown(current);
  }
  return undefined;
}

/** niceeval's own files, as URLs and paths (their frames are not where user code threw). */
let ownFiles: string[] | undefined;

/**
 * Where user code threw `error`: the first frame of its stack in a file of the user's (outside
 * Node's own modules, niceeval and node_modules), as "file:line:column" (a function's name first
 * when it has one), or undefined when the stack shows none.
 */
export function thrownAt(error: unknown): string | undefined {
  ownFiles ??= [builtFile("").href, fileURLToPath(builtFile(""))];
  let stack = "";
  try {
    stack = error instanceof Error ? String(error.stack ?? "") : "";
  } catch {}
  for (const line of stack.split("\n")) {
    const frame = line.trim();
    // Node's own modules, and frames with no file (`<anonymous>`, native code), say nothing.
    if (!frame.startsWith("at ") || frame.includes("node:") || !/:\d+:\d+\)?$/.test(frame))
      continue;
    // A library's frames neither: the user's code that called it is where to look.
    if (/[\\/]node_modules[\\/]/.test(frame) || ownFiles.some((own) => frame.includes(own)))
      continue;
    // Top-level code has no function name to give: its place alone.
    return frame.slice(3).replace(/^<anonymous> \((.*)\)$/, "$1");
  }
  return undefined;
}

/**
 * Whether `error` is a write to an output that is gone: a pipe or socket whose reader left
 * (EPIPE, as after `| head`), a descriptor that was closed (EBADF), or a stream that was destroyed.
 * That is the reader's doing, never a failure of the run or of the code under test.
 */
export function isClosedOutput(error: unknown): boolean {
  const { code, syscall } = (error ?? {}) as { code?: unknown; syscall?: unknown };
  if (code === "ERR_STREAM_DESTROYED") return true;
  return (code === "EPIPE" || code === "EBADF") && syscall === "write";
}
