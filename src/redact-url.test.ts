import { describe, expect, it } from "vitest";
import { redactUrl } from "./redact-url.js";
import { storeAdvice } from "./store/advice.js";
import { withoutCredentials } from "./store/manifest.js";
import { connectionError } from "./store/postgres/connection.js";
import type { RunManifest } from "./store/types.js";

describe("redactUrl", () => {
  it("masks a password up to the last @, whatever characters it holds unencoded", () => {
    expect(redactUrl("postgres://ci:hunter2@secret@db.internal:5432/evals")).toBe(
      "postgres://ci:***@db.internal:5432/evals",
    );
    expect(redactUrl("postgres://ci:p@ss#word/x?y@db:5432/evals")).toBe(
      "postgres://ci:***@db:5432/evals",
    );
    expect(redactUrl("redis://:s3cret@127.0.0.1:6379/0")).toBe("redis://:***@127.0.0.1:6379/0");
  });

  it("masks a password holding unencoded whitespace, which a URL parser still reads", () => {
    expect(redactUrl("postgres://ci:hunter 2@db.internal:5432/evals")).toBe(
      "postgres://ci:***@db.internal:5432/evals",
    );
    expect(redactUrl("redis://:s3 cr\tet@127.0.0.1:6379/0")).toBe("redis://:***@127.0.0.1:6379/0");
    expect(redactUrl("--store=postgres://ci:a b@db/evals")).toBe(
      "--store=postgres://ci:***@db/evals",
    );
    expect(redactUrl("postgres://eval user:pw@db/evals")).toBe("postgres://eval user:***@db/evals");
  });

  it("masks a URL inside an argument and a password parameter", () => {
    expect(redactUrl("--store=postgres://ci:pw@db/evals")).toBe(
      "--store=postgres://ci:***@db/evals",
    );
    expect(redactUrl("postgres://db/evals?user=ci&password=pw&sslmode=require")).toBe(
      "postgres://db/evals?user=ci&password=***&sslmode=require",
    );
  });

  it("leaves a URL without a password as it is", () => {
    expect(redactUrl("postgres://ci@db.internal/evals")).toBe("postgres://ci@db.internal/evals");
    expect(redactUrl("postgres://db.internal/evals")).toBe("postgres://db.internal/evals");
  });
});

describe("withoutCredentials", () => {
  it("keeps no part of a password with an unencoded @ in the stored command line", () => {
    const manifest = {
      command: ["run", "--store", "postgres://atuser:hunter2@secret@127.0.0.1:55432/atdb"],
    } as unknown as RunManifest;
    const command = withoutCredentials(manifest).command.join(" ");
    expect(command).not.toContain("hunter2");
    expect(command).not.toContain("secret");
    expect(command).toContain("postgres://atuser:***@127.0.0.1:55432/atdb");
  });

  it("keeps no part of a password with unencoded whitespace in the stored command line", () => {
    const manifest = {
      command: [
        "run",
        "--store",
        "postgres://u:hunter 2@127.0.0.1:5432/db",
        "--queue=redis://:se cret@h:6379",
      ],
    } as unknown as RunManifest;
    const command = withoutCredentials(manifest).command.join(" ");
    expect(command).not.toMatch(/hunter|cret/);
    expect(command).toContain("postgres://u:***@127.0.0.1:5432/db");
    expect(command).toContain("--queue=redis://:***@h:6379");
  });
});

describe("connectionError", () => {
  it("says to percent-encode the password when an unencoded @ made the host unknown", () => {
    const url = "postgres://ci:p@ss#word@db.internal:5432/evals";
    const advice = storeAdvice("cli");
    const error = connectionError(
      url,
      { code: "ENOTFOUND", message: "getaddrinfo ENOTFOUND" },
      advice,
    );
    expect(error?.message).toContain("Percent-encode special characters in the password");
    expect(error?.message).not.toMatch(/@ss|ss#|#word|host ss/);
    const plain = connectionError(
      "postgres://ci:pw@nohost.internal/evals",
      { code: "ENOTFOUND" },
      advice,
    );
    expect(plain?.message).toContain("Check the host name");
  });
});
