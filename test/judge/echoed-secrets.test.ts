// A server that quotes back what niceeval sent it (a 401 naming the key it refused, a gateway
// echoing its headers, a model repeating its request) must not put a secret in a judgment's
// reason, which the console, the JSON report and the store all show. Every secret a call sent
// (the API key, an Authorization token, a basic-auth password, any header given to the
// provider, a key in the query string) is masked as `***` wherever the server's text is quoted.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callJudge } from "../../src/judge/call.js";
import { configureJudges } from "../../src/judge/config.js";
import { anthropicProvider } from "../../src/judge/providers/anthropic.js";
import { openAICompatibleProvider } from "../../src/judge/providers/openai-compatible.js";
import { openAiEmbed } from "../../src/scorers/style/openai-embed.js";
import { isolateJudges, judgeRequest } from "./judge-env.js";

const ANTHROPIC_KEY = "sk-ant-api03-TOPSECRET";
const OPENAI_KEY = "sk-proj-BEARERSECRET";
const HEADER_VALUE = "azure-HEADERSECRET";
const QUERY_KEY = "QUERYSECRET99";
const PASSWORD = "s3cret@pw-BASIC";

/** What the server sends: a status and a body made from the request it got. */
type Echo = (request: { headers: IncomingMessage["headers"]; url: string }) => {
  status: number;
  body: string;
};

let echo: Echo;
let base: string;
let close: () => Promise<void>;
let env: Awaited<ReturnType<typeof isolateJudges>>;
beforeEach(async () => {
  env = await isolateJudges();
  configureJudges({ maxRetries: 0 });
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on("end", () => {
      const { status, body } = echo({ headers: req.headers, url: req.url ?? "" });
      res.writeHead(status, { "content-type": "application/json" });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
});
afterEach(async () => {
  await close();
  await env.cleanup();
});

const request = judgeRequest;

/** Everything the request carried, as a server that quotes it all would say it. */
const everything = ({ headers, url }: { headers: IncomingMessage["headers"]; url: string }) => {
  const basic = /^Basic (.*)$/.exec(headers.authorization ?? "")?.[1];
  const password = basic ? Buffer.from(basic, "base64").toString() : "none";
  return `got x-api-key ${headers["x-api-key"]}, authorization ${headers.authorization}, api-key ${headers["api-key"]}, url ${url}, password ${password}`;
};

describe("a secret the endpoint quotes back", () => {
  it("is masked in an Anthropic 401 that quotes the x-api-key it refused", async () => {
    echo = ({ headers }) => ({
      status: 401,
      body: JSON.stringify({
        type: "error",
        error: {
          type: "authentication_error",
          message: `invalid x-api-key ${headers["x-api-key"]}`,
        },
      }),
    });
    const provider = anthropicProvider({ apiKey: ANTHROPIC_KEY, baseURL: base });
    const result = await callJudge({ provider, model: "claude-haiku-4.5" }, request);
    expect(!result.ok && result.reason).toContain("answered HTTP 401: invalid x-api-key ***");
    expect(JSON.stringify(result)).not.toContain("TOPSECRET");
  });

  it("is masked in an OpenAI-compatible error quoting the bearer token, a header given and a query key", async () => {
    echo = (sent) => ({
      status: 403,
      body: JSON.stringify({ error: { message: everything(sent) } }),
    });
    const provider = openAICompatibleProvider({
      baseURL: `${base}/v1?api-version=1&api-key=${QUERY_KEY}`,
      apiKey: OPENAI_KEY,
      headers: { "api-key": HEADER_VALUE },
    });
    const result = await callJudge({ provider, model: "m" }, request);
    const reason = !result.ok ? result.reason : "";
    expect(reason).toContain("answered HTTP 403: got x-api-key undefined, authorization ***");
    expect(reason).toContain("api-key ***");
    expect(reason).toContain("api-key=***");
    for (const secret of [OPENAI_KEY, HEADER_VALUE, QUERY_KEY])
      expect(reason).not.toContain(secret);
  });

  it("is masked in a body that is not JSON, a refusal and an error sent in a 200", async () => {
    const provider = openAICompatibleProvider({
      baseURL: `${base.replace("http://", `http://bob:${encodeURIComponent(PASSWORD)}@`)}/v1`,
    });
    const reasons: string[] = [];
    const bodies: Echo[] = [
      (sent) => ({ status: 200, body: `<html>${everything(sent)}</html>` }),
      (sent) => ({
        status: 200,
        body: JSON.stringify({ choices: [{ message: { refusal: everything(sent) } }] }),
      }),
      (sent) => ({ status: 200, body: JSON.stringify({ error: { message: everything(sent) } }) }),
    ];
    for (const body of bodies) {
      echo = body;
      const result = await callJudge({ provider, model: "m" }, { ...request, temperature: 1 });
      reasons.push(!result.ok ? result.reason : "answered");
    }
    expect(reasons[0]).toContain("is not JSON");
    expect(reasons[1]).toContain("the model refused to judge");
    expect(reasons[2]).toContain("with an error instead of an answer");
    for (const reason of reasons) {
      expect(reason).toContain("password bob:***");
      expect(reason).not.toContain(PASSWORD);
    }
  });

  it("is masked in the reason of an embedding call", async () => {
    echo = (sent) => ({
      status: 401,
      body: JSON.stringify({ error: { message: everything(sent) } }),
    });
    const embed = openAiEmbed({ baseUrl: `${base}/v1`, apiKey: OPENAI_KEY, model: "e" });
    const error = await embed(["a text"]).then(
      () => undefined,
      (thrown: unknown) => thrown as Error,
    );
    expect(error?.message).toContain("authorization ***");
    expect(error?.message).not.toContain(OPENAI_KEY);
  });
});
