import { describe, expect, it } from "vitest";
import { resumeCommand, storeWords } from "./command-words.js";

describe("the --store of a suggested command", () => {
  it("repeats a file path, and a PostgreSQL URL with its password masked", () => {
    expect(storeWords(undefined)).toEqual([]);
    expect(storeWords("./runs dir/q.db")).toEqual(["--store", "'./runs dir/q.db'"]);
    expect(storeWords("postgres://evals@127.0.0.1:5432/evals")).toEqual([
      "--store",
      "postgres://evals@127.0.0.1:5432/evals",
    ]);
    // The suggestion is printed (and kept in CI logs): the user puts the password back.
    expect(resumeCommand("99feded1aa", "postgres://evals:s3cret@db:5432/evals")).toBe(
      "niceeval run --resume 99feded1 --store 'postgres://evals:***@db:5432/evals'",
    );
    expect(resumeCommand("99feded1aa", "runs.sqlite", "retry-errors")).toBe(
      "niceeval run --retry-errors 99feded1 --store runs.sqlite",
    );
  });
});
