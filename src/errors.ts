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

/** A value given to a tool failed the tool's input schema. */
export class ToolInputError extends NiceevalError {
  readonly toolId: string;
  readonly issues: readonly { path: string; message: string }[];
  constructor(toolId: string, issues: readonly { path: string; message: string }[]) {
    const first = issues[0];
    super(
      "TOOL_INPUT_INVALID",
      `invalid input for tool "${toolId}": ${first ? `${first.path || "(root)"}: ${first.message}` : "rejected"}` +
        (issues.length > 1 ? ` (and ${issues.length - 1} more)` : "") +
        ". Fix the value passed as `input` (or the binding's mapInput).",
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

/** No candidate driver implements the requested tool. */
export class ToolNotImplementedError extends NiceevalError {
  constructor(toolId: string, candidates: readonly string[]) {
    super(
      "TOOL_NOT_IMPLEMENTED",
      `no candidate implements tool "${toolId}" (candidates: ${candidates.length ? candidates.join(", ") : "none"}). Pass a driver that implements it in \`candidates\`.`,
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

/** Message of any thrown value, for reports. */
export function errorMessage(error: unknown): string {
  // Anything can be thrown: a message getter, a toString or a proxy trap that throws as well.
  try {
    if (error instanceof Error) return String(error.message);
    if (typeof error === "string") return error;
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
    if (next && !said.includes(next)) text += ` (cause: ${next})`;
    said = next;
    current = cause;
  }
  return text;
}

/** Whether `error` is a write to a pipe or socket whose reader is gone (EPIPE, as after `| head`). */
export function isClosedPipe(error: unknown): boolean {
  const { code, syscall } = (error ?? {}) as { code?: unknown; syscall?: unknown };
  return code === "EPIPE" && syscall === "write";
}
