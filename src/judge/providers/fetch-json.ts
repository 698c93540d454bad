import { httpError, JudgeCallError } from "../call-error.js";

/**
 * POST a JSON body and read a JSON answer. Non-2xx answers, dropped connections and
 * unreadable bodies become classified JudgeCallErrors; an abort is rethrown as is.
 */
export async function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  signal: AbortSignal,
  where: string,
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...headers },
      body: JSON.stringify(body),
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw signal.reason ?? error;
    throw new JudgeCallError(
      `${where} could not be reached (${describe(error)}); check the base URL`,
      {
        retryable: true,
        cause: error,
      },
    );
  }
  if (!response.ok) throw await httpError(response, where);
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    if (signal.aborted) throw signal.reason ?? error;
    throw new JudgeCallError(`${where} dropped the answer mid-body (${describe(error)})`, {
      retryable: true,
      cause: error,
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new JudgeCallError(
      `${where} sent a body that is not JSON (${text.length} bytes): ${text.slice(0, 120)}`,
      {
        status: response.status,
        retryable: true,
      },
    );
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
  }
  return String(error);
}
