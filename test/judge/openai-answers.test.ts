// Answers of the OpenAI chat-completions protocol beyond a plain string content: content in parts,
// a content filter that withheld the answer, and an error sent in a 200's body. Each is judged,
// or reported unavailable with what the endpoint said, never thrown as a TypeError or left vague.
import { describe, expect, it } from "vitest";
import { JudgeUnavailableError } from "../../src/judge/unavailable.js";
import { expectations } from "../../src/scorers/judged/expectations.js";
import { fake, startFakeLlmServer } from "../support/fake-llm-server.js";
import { fakeJudgeServer } from "./judge-env.js";

const run = { text: "The site example.org is down.", calls: [] };
const judged = (line = "names the site") =>
  expectations("Is the site up?", run, { should: [line] }, "m");

const server = fakeJudgeServer();

describe("OpenAI-compatible answers", () => {
  it("reads the text parts of a content given as an array, leaving reasoning parts out", async () => {
    server().enqueue(fake.contentParts({ checks: [{ id: 1, met: true, why: "names it" }] }));
    await expect(judged()).resolves.toEqual({ score: 1, reason: "all 1 expectations met" });
    expect(server().requests).toHaveLength(1);
  });

  it("reports an answer the content filter withheld as unavailable, saying so, without a repair turn", async () => {
    server().enqueue(fake.contentFilter(), fake.contentFilter());
    const error = await judged().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JudgeUnavailableError);
    expect((error as Error).message).toContain('finish_reason "content_filter"');
    expect(server().requests).toHaveLength(1);
  });

  it("reports the message of an error sent in a 200's body, and tries again when its code is worth it", async () => {
    server().enqueue(
      fake.errorInBody(502, "Upstream provider returned an invalid response"),
      fake.json({ checks: [{ id: 1, met: false, why: "no site named" }] }),
    );
    await expect(judged()).resolves.toMatchObject({ score: 0 });
    expect(server().requests).toHaveLength(2);

    server().enqueue(fake.errorInBody(400, "Provider rejected the schema"));
    const error = await judged("says since when").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JudgeUnavailableError);
    expect((error as Error).message).toContain("Provider rejected the schema");
    expect((error as Error).message).toContain("code 400");
    expect(server().requests).toHaveLength(3);
  });
});

describe("server errors worth another try", () => {
  it("retries a proxy's 5xx beyond the usual ones (Cloudflare's 520 and 524), not a 501", async () => {
    server().enqueue(
      { kind: "status", status: 524, message: "a timeout occurred" },
      { kind: "status", status: 520, message: "unknown error" },
      fake.json({ checks: [{ id: 1, met: true, why: "names it" }] }),
    );
    await expect(judged()).resolves.toMatchObject({ score: 1 });
    expect(server().requests).toHaveLength(3);

    server().enqueue({ kind: "status", status: 501, message: "not implemented" });
    await expect(judged("says since when")).rejects.toThrow("answered HTTP 501: not implemented");
    expect(server().requests).toHaveLength(4);
  });
});

describe("a server that refuses the verdict's JSON schema", () => {
  it("reads prose JSON from then on when it names the schema it refuses as Gemini does", async () => {
    const refusal =
      "Invalid JSON payload received. Unknown name \"additionalProperties\" at 'generation_config.response_schema.properties[0].value.items': Cannot find field.";
    const strict = await startFakeLlmServer({
      respond: (request) =>
        "response_format" in request.body
          ? { kind: "status", status: 400, errorType: "INVALID_ARGUMENT", message: refusal }
          : fake.text('{"checks": [{"id": 1, "met": true, "why": "names it"}]}'),
    });
    try {
      process.env.NICEEVAL_JUDGE_BASE_URL = strict.openaiBaseURL;
      await expect(judged()).resolves.toMatchObject({ score: 1 });
      expect(strict.requests.map((r) => "response_format" in r.body)).toEqual([true, false]);
    } finally {
      await strict.close();
    }
  });
});
