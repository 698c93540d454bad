import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isolateJudges } from "../../test/judge/judge-env.js";
import {
  type FakeLlmServer,
  fake,
  startFakeLlmServer,
} from "../../test/support/fake-llm-server.js";
import { createCloseQAJudge } from "./close-qa.js";
import { configureJudges } from "./config.js";
import { withJudgeLedger } from "./ledger.js";
import { resolveCloseQAJudge, setDefaultCloseQAJudge } from "./registry.js";

let server: FakeLlmServer;
let env: Awaited<ReturnType<typeof isolateJudges>>;
beforeEach(async () => {
  env = await isolateJudges();
  server = await startFakeLlmServer();
  process.env.OPENAI_API_KEY = "k";
  process.env.OPENAI_BASE_URL = server.openaiBaseURL;
});
afterEach(async () => {
  setDefaultCloseQAJudge(undefined);
  await server.close();
  await env.cleanup();
});

const ask = (maxAuditBytes?: number) =>
  createCloseQAJudge("openai/gpt-4.1-mini")({
    material: "A: where is the station?\nB: second left, then straight on.",
    question: "Does the conversation give enough information to find the station?",
    ...(maxAuditBytes !== undefined ? { maxAuditBytes } : {}),
  });

describe("closeQA judge", () => {
  it.each([
    ["satisfied", "satisfied"],
    ["not-satisfied", "not-satisfied"],
    ["insufficient", "insufficient"],
  ] as const)("passes the judge's %s through", async (verdict, state) => {
    server.enqueue(fake.json({ verdict, reason: "because" }));
    const { result: answer, usage } = await withJudgeLedger(() => ask());
    expect(answer.state).toBe(state);
    expect(answer.reason).toBe("because");
    expect(answer.usage).toMatchObject({ calls: 1 });
    expect(usage.calls).toBe(1);
    expect(answer.audit).toMatchObject({
      model: "openai/gpt-4.1-mini",
      answers: [JSON.stringify({ verdict, reason: "because" })],
      verdict: { verdict, reason: "because" },
    });
    expect(JSON.stringify(answer.audit)).toContain("second left, then straight on.");
  });

  it("is unavailable with the reason when the judge cannot answer", async () => {
    delete process.env.OPENAI_API_KEY;
    const answer = await ask();
    expect(answer.state).toBe("unavailable");
    expect(answer.reason).toContain("set OPENAI_API_KEY");
  });

  it("is unavailable when the verdict stays outside the three states", async () => {
    server.enqueue(fake.json({ verdict: "yes", reason: "" }), fake.text("yes, clearly"));
    const answer = await ask();
    expect(answer.state).toBe("unavailable");
    expect(answer.reason).toContain("unusable twice");
    expect((answer.audit as { answers: string[] }).answers).toHaveLength(2);
  });

  it("bounds the audit by maxAuditBytes", async () => {
    server.enqueue(fake.json({ verdict: "satisfied", reason: "r".repeat(3000) }));
    const answer = await ask(800);
    expect(Buffer.byteLength(JSON.stringify(answer.audit))).toBeLessThanOrEqual(800);
    expect(answer.audit).toMatchObject({ truncated: { maxBytes: 800 } });
  });

  it("is found by resolveCloseQAJudge from NICEEVAL_JUDGE_MODEL or configureJudges", async () => {
    expect(resolveCloseQAJudge()).toBeUndefined();
    process.env.NICEEVAL_JUDGE_MODEL = "openai/gpt-4.1-mini";
    server.enqueue(fake.json({ verdict: "satisfied", reason: "ok" }));
    const judge = resolveCloseQAJudge();
    expect((await judge?.({ material: "m", question: "q" }))?.state).toBe("satisfied");
    configureJudges({ closeQAModel: "anthropic/claude-haiku-4.5" });
    const other = await resolveCloseQAJudge()?.({ material: "m", question: "q" });
    expect(other?.reason).toContain("ANTHROPIC_API_KEY");
    const custom = async () => ({ state: "satisfied" as const, reason: "custom" });
    setDefaultCloseQAJudge(custom);
    expect(resolveCloseQAJudge()).toBe(custom);
  });
});
