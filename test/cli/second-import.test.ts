import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { evalFileHeader } from "./eval-source.js";

// An eval file whose top-level code can run only once (it listens on a fixed port): a supervised
// run imports it in the eval process and again in the CLI, and the second import fails. The
// load error says why and what to do; started on first use, in the target, the same app runs.

const listensAtTopLevel = `${evalFileHeader}
import { createServer } from "node:http";
const port = Number(process.env.APP_PORT);
const server = createServer((_req, res) => res.end("pong"));
await new Promise<void>((resolve, reject) => {
  server.once("error", reject);
  server.listen(port, "127.0.0.1", () => resolve());
});
server.unref();
export const app = defineSuite<string, string>({
  id: "app",
  cases: [{ id: "ping", input: "ping", expected: "pong" }],
  target: async () => (await fetch(\`http://127.0.0.1:\${port}/\`)).text(),
  scorers: [same],
});
`;

const listensOnFirstUse = `${evalFileHeader}
import { createServer } from "node:http";
const port = Number(process.env.APP_PORT);
let started: Promise<void> | undefined;
const app = () =>
  (started ??= new Promise<void>((resolve, reject) => {
    const server = createServer((_req, res) => res.end("pong"));
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
    server.unref();
  }));
export const lazy = defineSuite<string, string>({
  id: "lazy",
  cases: [{ id: "ping", input: "ping", expected: "pong" }],
  target: async () => {
    await app();
    return (await fetch(\`http://127.0.0.1:\${port}/\`)).text();
  },
  scorers: [same],
});
`;

/** A port nobody listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

describe("top-level code that can run only once (real CLI)", { timeout: 60_000 }, () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/top-level.eval.ts": listensAtTopLevel,
      "lazy/first-use.eval.ts": listensOnFirstUse,
    });
  });
  afterAll(async () => {
    await project.cleanup();
  });

  it("fails its second import with a message that says why and what to do", async () => {
    const env = { APP_PORT: String(await freePort()) };
    const run = await runCli(["run", "evals", "--no-store"], project.dir, env);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/top-level\.eval\.ts: listen EADDRINUSE/);
    expect(run.stdout).toMatch(
      /it loaded in the eval process: a supervised run imports each eval file twice.*start such things on first use, in the target or the adapter, or run with --no-supervise/,
    );
    // In one process it loads and passes.
    const alone = await runCli(["run", "evals", "--no-store", "--no-supervise"], project.dir, env);
    expect(alone.stdout).toMatch(/1 passed/);
    expect(alone.code).toBe(0);
  });

  it("runs supervised when the app starts on first use", async () => {
    const env = { APP_PORT: String(await freePort()) };
    const run = await runCli(["run", "lazy", "--no-store"], project.dir, env);
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatch(/1 passed/);
    expect(run.code).toBe(0);
  });
});
