// An endpoint is not tried again for 30 s only when no try of a call could connect to it. Before,
// one whose last try was refused was blocked although its earlier tries got answers (a server
// draining with 503s, then restarting): every judgment for 30 s was unavailable while the server
// was back up, and the reason only said to check the base URL.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, expect, it } from "vitest";
import { callJudge } from "../../src/judge/call.js";
import { configureJudges } from "../../src/judge/config.js";
import { openAICompatibleProvider } from "../../src/judge/providers/openai-compatible.js";
import { isolateJudges, judgeRequest } from "./judge-env.js";

/** How long the server stays down after its 503s, ms. */
const DOWN_MS = 1200;

let env: Awaited<ReturnType<typeof isolateJudges>>;
let server: Server;
beforeEach(async () => {
  env = await isolateJudges();
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await env.cleanup();
});

/**
 * A server that answers its first three requests 503, then stops listening for {@link DOWN_MS}
 * and comes back on the same port answering every request with a verdict. Resolves its port,
 * what it received, and a promise of its coming back.
 */
async function drainingServer() {
  let requests = 0;
  let back!: () => void;
  const up = new Promise<void>((resolve) => {
    back = resolve;
  });
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on("end", () => {
      requests++;
      if (requests <= 3) {
        res.writeHead(503, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "Service Unavailable (draining)" } }));
        if (requests === 3) restart();
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      const content = JSON.stringify({ value: 0.9, rationale: "back" });
      res.end(JSON.stringify({ choices: [{ message: { content }, finish_reason: "stop" }] }));
    });
  };
  const restart = () => {
    server.close();
    server.closeAllConnections();
    setTimeout(() => {
      server = createServer(handler).listen(port, "127.0.0.1", back);
    }, DOWN_MS);
  };
  server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return { port, up, requests: () => requests };
}

it("calls an endpoint again that answered 503s before its last try found it down, saying what the tries got", async () => {
  configureJudges({ maxRetries: 3, retryBaseMs: 5, retryMaxMs: 20 });
  const draining = await drainingServer();
  const provider = openAICompatibleProvider({ baseURL: `http://127.0.0.1:${draining.port}/v1` });
  const first = await callJudge({ provider, model: "m" }, judgeRequest);
  const reason = !first.ok ? first.reason : "";
  expect(reason).toMatch(
    /could not be reached \(.*\) \(gave up after 4 tries: HTTP 503 ×3, then no connection\)$/,
  );
  expect(reason).not.toContain("check the base URL");
  expect(draining.requests()).toBe(3);
  await draining.up;
  const second = await callJudge({ provider, model: "m" }, judgeRequest);
  expect(second.ok && second.response.text).toBe(JSON.stringify({ value: 0.9, rationale: "back" }));
  expect(draining.requests()).toBe(4);
});
