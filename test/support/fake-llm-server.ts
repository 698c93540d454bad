import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** What the fake model does with one request. */
export type FakeAnswer =
  /**
   * A structured answer: OpenAI content as JSON text, Anthropic a tool_use block with this input;
   * `usage: false` answers it without token counts (no `usage` block), as many servers do.
   */
  | { kind: "json"; value: unknown; usage?: false }
  /** Raw model text (prose around JSON, truncated JSON…); Anthropic answers it as a text block. */
  | { kind: "text"; text: string }
  /** An HTTP error in the provider's own error shape, with optional headers (Retry-After). */
  | {
      kind: "status";
      status: number;
      message?: string;
      errorType?: string;
      headers?: Record<string, string>;
    }
  /** Never answer (until the client gives up or the server closes). */
  | { kind: "hang" }
  /** Close the connection once the request is read, with no answer (a proxy or server reset). */
  | { kind: "drop" }
  /** A 200 whose body is cut in the middle of its JSON. */
  | { kind: "truncated-body" }
  /** The model declines: OpenAI's `message.refusal`, Anthropic's `stop_reason: "refusal"`. */
  | { kind: "refusal"; text: string }
  /** Cut off at the output limit: OpenAI's `finish_reason: "length"`, Anthropic's `"max_tokens"`. */
  | { kind: "cut-off"; text: string }
  /** OpenAI only: a tool call (`tool_calls`, no content) instead of an answer. */
  | { kind: "tool-call"; name: string }
  /**
   * The content filter withheld the answer: OpenAI's `finish_reason: "content_filter"` with no
   * content, the AI SDK gateway's finish reason "content-filter" with no content.
   */
  | { kind: "content-filter" }
  /**
   * A 200 whose body is an error: OpenAI's `{ error: { code, message } }`, as OpenRouter answers
   * when the model failed after the request was accepted; Anthropic's
   * `{ type: "error", error: { type, message } }` (`errorType`, default invalid_request_error).
   */
  | { kind: "error-in-body"; code: number; message: string; errorType?: string | undefined }
  /**
   * A 200 that reports usage but holds no answer: OpenAI's empty `choices`, Anthropic's message
   * without `content`. Billed all the same.
   */
  | { kind: "billed-empty"; inputTokens: number; outputTokens: number; usage: boolean }
  /**
   * OpenAI only: the content as an array of parts (a reasoning part, then the text), as
   * reasoning models behind some compatible servers answer.
   */
  | { kind: "content-parts"; value: unknown }
  /**
   * Anthropic only: the verdict's tool called with this input, but the model's context window
   * filled before it was done (`stop_reason: "model_context_window_exceeded"`).
   */
  | { kind: "context-window"; value: unknown }
  /**
   * An answer sent as server-sent events (`text/event-stream`), as a server or proxy that streams
   * by default does; `unlessAskedNot`: a plain JSON answer when the request says `stream: false`.
   */
  | { kind: "streamed"; value: unknown; unlessAskedNot: boolean };

/** Ready-made answers and faults. */
export const fake = {
  json: (value: unknown): FakeAnswer => ({ kind: "json", value }),
  /** A structured answer that reports no usage (no token counts). */
  unmetered: (value: unknown): FakeAnswer => ({ kind: "json", value, usage: false }),
  text: (text: string): FakeAnswer => ({ kind: "text", text }),
  rateLimited: (retryAfterSeconds: number): FakeAnswer => ({
    kind: "status",
    status: 429,
    errorType: "rate_limit_error",
    message: "rate limited by the fake server",
    headers: { "retry-after": String(retryAfterSeconds) },
  }),
  overloaded: (): FakeAnswer => ({
    kind: "status",
    status: 503,
    message: "fake server overloaded",
  }),
  serverError: (): FakeAnswer => ({
    kind: "status",
    status: 500,
    errorType: "api_error",
    message: "fake server error",
  }),
  hang: (): FakeAnswer => ({ kind: "hang" }),
  drop: (): FakeAnswer => ({ kind: "drop" }),
  truncatedBody: (): FakeAnswer => ({ kind: "truncated-body" }),
  refusal: (text: string): FakeAnswer => ({ kind: "refusal", text }),
  cutOff: (text: string): FakeAnswer => ({ kind: "cut-off", text }),
  /** A call of another tool: OpenAI a tool_calls message, Anthropic a tool_use block of that name. */
  toolCall: (name: string): FakeAnswer => ({ kind: "tool-call", name }),
  contentFilter: (): FakeAnswer => ({ kind: "content-filter" }),
  errorInBody: (code: number, message: string, errorType?: string): FakeAnswer => ({
    kind: "error-in-body",
    code,
    message,
    errorType,
  }),
  billedEmpty: (inputTokens: number, outputTokens: number): FakeAnswer => ({
    kind: "billed-empty",
    inputTokens,
    outputTokens,
    usage: true,
  }),
  /** The same without a usage block: nothing said of what the try cost. */
  emptyUnmetered: (): FakeAnswer => ({
    kind: "billed-empty",
    inputTokens: 0,
    outputTokens: 0,
    usage: false,
  }),
  contentParts: (value: unknown): FakeAnswer => ({ kind: "content-parts", value }),
  contextWindow: (value: unknown): FakeAnswer => ({ kind: "context-window", value }),
  /** Streamed unless the request says `stream: false` (a server that streams by default). */
  streamedByDefault: (value: unknown): FakeAnswer => ({
    kind: "streamed",
    value,
    unlessAskedNot: true,
  }),
  /** Streamed whatever the request says. */
  streamedAlways: (value: unknown): FakeAnswer => ({
    kind: "streamed",
    value,
    unlessAskedNot: false,
  }),
};

/**
 * The wire protocols the fake server speaks: OpenAI chat completions, Anthropic Messages, and the
 * AI SDK's gateway (`createGateway({ baseURL })`: a real AI SDK provider whose base URL is chosen).
 */
export type FakeProtocol = "openai" | "anthropic" | "ai-gateway";

/** One request the fake server received. */
export interface RecordedRequest {
  protocol: FakeProtocol;
  path: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown>;
}

/** Options of {@link startFakeLlmServer}. */
export interface FakeLlmServerOptions {
  /** Answers served in order, one per request. */
  answers?: FakeAnswer[];
  /** Called when the queue is empty (default: a 500 saying nothing was scripted). */
  respond?: (request: RecordedRequest) => FakeAnswer;
  /** Required key: OpenAI `Authorization: Bearer`, Anthropic `x-api-key`. */
  apiKey?: string;
  /**
   * Allow this many requests per fixed window and answer 429 beyond it, with `retry-after-ms`
   * and a whole-second `Retry-After` (`headers: "seconds"`: the whole seconds only, as many
   * real providers send).
   */
  rateLimit?: { perWindow: number; windowMs: number; headers?: "seconds" | "both" };
  /** Delay before each answer, ms. */
  latencyMs?: number;
}

/** A running fake server. */
export interface FakeLlmServer {
  url: string;
  /** Base URL for OpenAI-compatible clients (`…/v1`). */
  openaiBaseURL: string;
  /** Base URL for Anthropic clients (they append `/v1/messages`). */
  anthropicBaseURL: string;
  /** Base URL for the AI SDK's `createGateway` (it appends `/language-model`). */
  gatewayBaseURL: string;
  requests: RecordedRequest[];
  /** How many requests the rate limit turned away. */
  rejected: number;
  /** Every request in arrival order, turned away or not, with its last message's text. */
  arrivals: { rejected: boolean; lastMessage: string }[];
  /** The most requests the server was handling at once. */
  maxInFlight: number;
  enqueue(...answers: FakeAnswer[]): void;
  close(): Promise<void>;
}

/**
 * Start a real HTTP server on 127.0.0.1 (port 0) that speaks OpenAI chat completions
 * (`POST /v1/chat/completions`), Anthropic Messages (`POST /v1/messages`) and the AI SDK gateway
 * (`POST /v3/ai/language-model`, JSON answers and HTTP errors only) with scripted answers.
 */
export async function startFakeLlmServer(
  options: FakeLlmServerOptions = {},
): Promise<FakeLlmServer> {
  const queue = [...(options.answers ?? [])];
  const requests: RecordedRequest[] = [];
  const arrivals: FakeLlmServer["arrivals"] = [];
  let windowStart = Date.now();
  let inWindow = 0;
  const state = { rejected: 0, inFlight: 0, maxInFlight: 0 };

  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const protocol = ROUTES[req.url ?? ""];
    if (req.method !== "POST" || !protocol)
      return send(res, 404, {
        error: { type: "not_found_error", message: `no route ${req.method} ${req.url}` },
      });
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return sendError(res, protocol, 400, "invalid_request_error", "body is not JSON");
    }
    const auth = authProblem(protocol, req.headers, options.apiKey);
    if (auth) return sendError(res, protocol, auth.status, auth.type, auth.message);
    const messages = (body.messages ?? []) as { content?: unknown }[];
    const last = messages.at(-1)?.content;
    const arrival = { rejected: false, lastMessage: typeof last === "string" ? last : "" };
    arrivals.push(arrival);
    if (options.rateLimit) {
      const now = Date.now();
      if (now - windowStart >= options.rateLimit.windowMs) {
        windowStart = now - ((now - windowStart) % options.rateLimit.windowMs);
        inWindow = 0;
      }
      if (inWindow >= options.rateLimit.perWindow) {
        state.rejected++;
        arrival.rejected = true;
        const waitMs = Math.max(1, windowStart + options.rateLimit.windowMs - now);
        return sendError(res, protocol, 429, "rate_limit_error", "rate limit reached", {
          "retry-after": String(Math.ceil(waitMs / 1000)),
          ...(options.rateLimit.headers === "seconds" ? {} : { "retry-after-ms": String(waitMs) }),
        });
      }
      inWindow++;
    }
    const recorded: RecordedRequest = { protocol, path: req.url ?? "", headers: req.headers, body };
    requests.push(recorded);
    const answer = queue.shift() ??
      options.respond?.(recorded) ?? {
        kind: "status",
        status: 500,
        message: "the fake server has no scripted answer left",
      };
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    res.on("close", () => state.inFlight--);
    if (options.latencyMs) await new Promise((resolve) => setTimeout(resolve, options.latencyMs));
    answerWith(res, protocol, body, answer, raw.length);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    openaiBaseURL: `${url}/v1`,
    anthropicBaseURL: url,
    gatewayBaseURL: `${url}/v3/ai`,
    requests,
    arrivals,
    get rejected() {
      return state.rejected;
    },
    get maxInFlight() {
      return state.maxInFlight;
    },
    enqueue: (...answers) => queue.push(...answers),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const ROUTES: Record<string, FakeProtocol | undefined> = {
  "/v1/messages": "anthropic",
  "/v1/chat/completions": "openai",
  "/v3/ai/language-model": "ai-gateway",
};

function answerWith(
  res: ServerResponse,
  protocol: FakeProtocol,
  body: Record<string, unknown>,
  answer: FakeAnswer,
  requestBytes: number,
): void {
  if (
    protocol === "ai-gateway" &&
    !["json", "text", "status", "hang", "drop", "content-filter"].includes(answer.kind)
  ) {
    sendError(res, protocol, 500, "api_error", `no ${answer.kind} answer for the gateway`);
    return;
  }
  switch (answer.kind) {
    case "hang":
      return;
    case "drop":
      res.socket?.destroy();
      return;
    case "status":
      sendError(
        res,
        protocol,
        answer.status,
        answer.errorType ?? "api_error",
        answer.message ?? `status ${answer.status}`,
        answer.headers,
      );
      return;
    case "truncated-body": {
      const full = JSON.stringify(
        success(protocol, body, { kind: "text", text: "{}" }, requestBytes),
      );
      res.writeHead(200, { "content-type": "application/json" });
      res.end(full.slice(0, Math.floor(full.length / 2)));
      return;
    }
    case "refusal":
      send(res, 200, refusal(protocol, body, answer.text, requestBytes));
      return;
    case "cut-off":
      send(res, 200, cutOff(protocol, body, answer.text, requestBytes));
      return;
    case "tool-call": {
      if (protocol === "anthropic") {
        const called = success(protocol, body, { kind: "text", text: "" }, requestBytes) as {
          content: unknown[];
          stop_reason: string;
        };
        called.content = [{ type: "tool_use", id: "toolu_fake", name: answer.name, input: {} }];
        called.stop_reason = "tool_use";
        send(res, 200, called);
        return;
      }
      const called = success(protocol, body, { kind: "text", text: "" }, requestBytes) as {
        choices: Record<string, unknown>[];
      };
      called.choices[0] = {
        index: 0,
        message: {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_fake", type: "function", function: { name: answer.name, arguments: "{}" } },
          ],
        },
        finish_reason: "tool_calls",
      };
      send(res, 200, called);
      return;
    }
    case "content-filter":
      if (protocol === "ai-gateway") {
        send(res, 200, {
          content: [],
          finishReason: { unified: "content-filter", raw: "refusal" },
          usage: {
            inputTokens: { total: Math.ceil(requestBytes / 4) },
            outputTokens: { total: 1 },
          },
          warnings: [],
        });
        return;
      }
      send(
        res,
        200,
        endedAs(protocol, body, "", requestBytes, "refusal", (choice) => {
          choice.message = { role: "assistant", content: null, refusal: null };
          choice.finish_reason = "content_filter";
        }),
      );
      return;
    case "error-in-body":
      send(
        res,
        200,
        protocol === "anthropic"
          ? {
              type: "error",
              error: { type: answer.errorType ?? "invalid_request_error", message: answer.message },
            }
          : { error: { code: answer.code, message: answer.message } },
      );
      return;
    case "billed-empty":
      send(
        res,
        200,
        protocol === "anthropic"
          ? {
              id: "msg_empty",
              type: "message",
              role: "assistant",
              ...(answer.usage
                ? {
                    usage: { input_tokens: answer.inputTokens, output_tokens: answer.outputTokens },
                  }
                : {}),
            }
          : {
              id: "chatcmpl-empty",
              object: "chat.completion",
              choices: [],
              ...(answer.usage
                ? {
                    usage: {
                      prompt_tokens: answer.inputTokens,
                      completion_tokens: answer.outputTokens,
                      total_tokens: answer.inputTokens + answer.outputTokens,
                    },
                  }
                : {}),
            },
      );
      return;
    case "context-window": {
      const filled = success(protocol, body, { kind: "json", value: answer.value }, requestBytes);
      send(res, 200, { ...(filled as object), stop_reason: "model_context_window_exceeded" });
      return;
    }
    case "streamed": {
      if (answer.unlessAskedNot && body.stream === false) {
        send(
          res,
          200,
          success(protocol, body, { kind: "json", value: answer.value }, requestBytes),
        );
        return;
      }
      const text = JSON.stringify(answer.value);
      const events =
        protocol === "anthropic"
          ? [
              { type: "message_start", message: { id: "msg_fake", content: [] } },
              { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } },
              { type: "message_stop" },
            ]
          : [{ choices: [{ index: 0, delta: { content: text } }] }];
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(
        `${events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join("")}${protocol === "openai" ? "data: [DONE]\n\n" : ""}`,
      );
      return;
    }
    case "content-parts":
      send(
        res,
        200,
        endedAs(protocol, body, "", requestBytes, "end_turn", (choice) => {
          choice.message = {
            role: "assistant",
            content: [
              { type: "thinking", thinking: [{ type: "text", text: "weighing {the} reply" }] },
              { type: "text", text: JSON.stringify(answer.value) },
            ],
          };
        }),
      );
      return;
    default:
      send(res, 200, success(protocol, body, answer, requestBytes));
  }
}

/** A 200 that declines to answer, billed like an answer, in the provider's own shape. */
const refusal = (
  protocol: FakeProtocol,
  body: Record<string, unknown>,
  text: string,
  requestBytes: number,
) =>
  endedAs(protocol, body, text, requestBytes, "refusal", (choice) => {
    choice.message = { role: "assistant", content: null, refusal: text };
  });

/** A 200 whose answer stopped at the output token limit. */
const cutOff = (
  protocol: FakeProtocol,
  body: Record<string, unknown>,
  text: string,
  requestBytes: number,
) =>
  endedAs(protocol, body, text, requestBytes, "max_tokens", (choice) => {
    choice.finish_reason = "length";
  });

/** A text answer that ended otherwise: `choice` changed for OpenAI, Anthropic's `stop_reason`. */
function endedAs(
  protocol: FakeProtocol,
  body: Record<string, unknown>,
  text: string,
  requestBytes: number,
  stopReason: string,
  choice: (choice: Record<string, unknown>) => void,
): unknown {
  const answer = success(protocol, body, { kind: "text", text }, requestBytes) as Record<
    string,
    unknown
  >;
  if (protocol === "anthropic") return { ...answer, stop_reason: stopReason };
  choice((answer.choices as Record<string, unknown>[])[0]!);
  return answer;
}

function success(
  protocol: FakeProtocol,
  body: Record<string, unknown>,
  answer: { kind: "json"; value: unknown; usage?: false } | { kind: "text"; text: string },
  requestBytes: number,
): unknown {
  const text = answer.kind === "json" ? JSON.stringify(answer.value) : answer.text;
  const inputTokens = Math.ceil(requestBytes / 4);
  const outputTokens = Math.max(1, Math.ceil(text.length / 4));
  const metered = !(answer.kind === "json" && answer.usage === false);
  const answered = withUsage(protocol, body, text, answer, { inputTokens, outputTokens });
  if (metered) return answered;
  const { usage: _left, ...unmetered } = answered;
  // The AI SDK's own providers give a usage with no counts when the server sent none.
  return protocol === "ai-gateway"
    ? { ...unmetered, usage: { inputTokens: {}, outputTokens: {} } }
    : unmetered;
}

function withUsage(
  protocol: FakeProtocol,
  body: Record<string, unknown>,
  text: string,
  answer: { kind: "json"; value: unknown } | { kind: "text"; text: string },
  { inputTokens, outputTokens }: { inputTokens: number; outputTokens: number },
): Record<string, unknown> {
  if (protocol === "ai-gateway") {
    // A LanguageModelV3 generate result, which the gateway provider returns as it came.
    return {
      content: [{ type: "text", text }],
      finishReason: { unified: "stop", raw: "stop" },
      usage: { inputTokens: { total: inputTokens }, outputTokens: { total: outputTokens } },
      warnings: [],
    };
  }
  if (protocol === "openai") {
    return {
      id: "chatcmpl-fake",
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: text, refusal: null },
          finish_reason: "stop",
        },
      ],
      usage: {
        prompt_tokens: inputTokens,
        completion_tokens: outputTokens,
        total_tokens: inputTokens + outputTokens,
      },
    };
  }
  const toolName = (body.tool_choice as { name?: string } | undefined)?.name;
  const content =
    answer.kind === "json" && toolName
      ? [{ type: "tool_use", id: "toolu_fake", name: toolName, input: answer.value }]
      : [{ type: "text", text }];
  return {
    id: "msg_fake",
    type: "message",
    role: "assistant",
    model: body.model,
    content,
    stop_reason: content[0]?.type === "tool_use" ? "tool_use" : "end_turn",
    usage: { input_tokens: inputTokens, output_tokens: outputTokens },
  };
}

function authProblem(
  protocol: FakeProtocol,
  headers: IncomingMessage["headers"],
  apiKey: string | undefined,
): { status: number; type: string; message: string } | undefined {
  if (protocol === "anthropic") {
    if (!headers["anthropic-version"])
      return {
        status: 400,
        type: "invalid_request_error",
        message: "anthropic-version header is required",
      };
    if (apiKey !== undefined && headers["x-api-key"] !== apiKey)
      return { status: 401, type: "authentication_error", message: "invalid x-api-key" };
    return undefined;
  }
  if (apiKey !== undefined && headers.authorization !== `Bearer ${apiKey}`) {
    return { status: 401, type: "invalid_request_error", message: "Incorrect API key provided" };
  }
  return undefined;
}

function sendError(
  res: ServerResponse,
  protocol: FakeProtocol,
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body =
    protocol === "anthropic"
      ? { type: "error", error: { type, message }, request_id: "req_fake" }
      : { error: { message, type, param: null, code: null } };
  send(res, status, body, headers);
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
