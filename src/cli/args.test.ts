import { describe, expect, it } from "vitest";
import { HELP, parseCliArgs } from "./args.js";

describe("gate flags", () => {
  it("take a decimal from 0 to 1", () => {
    for (const [text, value] of [
      ["0.9", 0.9],
      [".5", 0.5],
      ["1", 1],
      ["0", 0],
      ["5e-1", 0.5],
    ] as const) {
      const parsed = parseCliArgs(["run", `--min-pass-rate=${text}`, `--min-score=${text}`]);
      expect(parsed).toMatchObject({ minPassRate: value, minScore: value });
    }
  });

  it("refuse an empty, blank or non-decimal value instead of reading it as 0", () => {
    for (const text of ["", " ", "0x0", "1.5", "-0.1", "NaN", "Infinity", "0.5 "])
      for (const flag of ["--min-pass-rate", "--min-score"])
        expect(() => parseCliArgs(["run", `${flag}=${text}`])).toThrow(
          `${flag} must be a number from 0 to 1, got "${text}"`,
        );
  });
});

describe("--rate-limit on worker", () => {
  const worker = (limit: string) =>
    parseCliArgs(["worker", "--queue", "redis://127.0.0.1:6379", "--rate-limit", limit]);
  it("reads <max>/<duration>", () => {
    expect(worker("60/1m")).toMatchObject({ rateLimit: { max: 60, durationMs: 60_000 } });
    expect(worker("10/s")).toMatchObject({ rateLimit: { max: 10, durationMs: 1000 } });
  });
  it("says what is wrong with a limit that reads but cannot work", () => {
    expect(() => worker("0/1m")).toThrow(
      "--rate-limit 0/1m lets no attempt start: give at least 1 per window",
    );
    expect(() => worker("5/0s")).toThrow("--rate-limit 5/0s has an empty window");
    expect(() => worker("five")).toThrow("--rate-limit must be <max>/<duration>");
  });
});

describe("how a worker runs its attempts", () => {
  const worker = (...more: string[]) =>
    parseCliArgs(["worker", "--queue", "redis://127.0.0.1:6379", ...more]);
  it("in a supervised eval process unless --no-supervise, with run's --hang-timeout", () => {
    expect(worker()).toMatchObject({ supervise: true, hangTimeoutMs: 60_000 });
    expect(worker("--no-supervise")).toMatchObject({ supervise: false });
    expect(worker("--hang-timeout", "5000")).toMatchObject({ hangTimeoutMs: 5000 });
    expect(() => worker("--hang-timeout", "50")).toThrow("--hang-timeout");
  });
});

describe("--queue-name on run", () => {
  it("needs --queue, else it would be ignored", () => {
    expect(() => parseCliArgs(["run", "--queue-name", "fleet"])).toThrow(
      "--queue-name names the queue of --queue <redis-url> or NICEEVAL_QUEUE; pass --queue too",
    );
    expect(
      parseCliArgs(["run", "--queue", "redis://127.0.0.1:6379", "--queue-name", "fleet"]),
    ).toMatchObject({ queue: "redis://127.0.0.1:6379", queueName: "fleet" });
  });
});

describe("NICEEVAL_QUEUE", () => {
  const env = { NICEEVAL_QUEUE: "redis://:pw@10.0.0.1:6379" };
  it("is --queue for run and worker when the flag is not given; the flag wins", () => {
    expect(parseCliArgs(["run"], env)).toMatchObject({
      queue: env.NICEEVAL_QUEUE,
      queueFrom: "NICEEVAL_QUEUE",
      // The default of a queued run: jobs kept enqueued.
      concurrency: 256,
    });
    expect(parseCliArgs(["run", "--queue-name", "fleet"], env)).toMatchObject({
      queueName: "fleet",
    });
    expect(parseCliArgs(["worker"], env)).toMatchObject({ queue: env.NICEEVAL_QUEUE });
    const flag = "redis://127.0.0.1:6380";
    expect(parseCliArgs(["run", "--queue", flag], env)).toMatchObject({
      queue: flag,
      queueFrom: "--queue",
    });
    expect(parseCliArgs(["worker", "--queue", flag], env)).toMatchObject({ queue: flag });
    // Empty is unset, as for NICEEVAL_STORE.
    expect(parseCliArgs(["run"], { NICEEVAL_QUEUE: "" })).not.toHaveProperty("queue");
  });
  it("--no-queue runs here; it excludes --queue and --queue-name", () => {
    const local = parseCliArgs(["run", "--no-queue"], env);
    expect(local).not.toHaveProperty("queue");
    expect(local).toMatchObject({ concurrency: 8 });
    expect(() => parseCliArgs(["run", "--no-queue", "--queue", "redis://h:1"])).toThrow(
      "--queue and --no-queue exclude each other",
    );
    expect(() => parseCliArgs(["run", "--no-queue", "--queue-name", "x"], env)).toThrow(
      "--queue-name names the queue of --queue <redis-url> or NICEEVAL_QUEUE; drop it with --no-queue",
    );
  });
  it("--help names it", () => {
    expect(HELP).toContain("NICEEVAL_QUEUE");
    expect(HELP).toContain("--no-queue");
  });
});

describe("--fail-on-regression on run", () => {
  it("needs --baseline, else it could never fail the run", () => {
    expect(() => parseCliArgs(["run", "--fail-on-regression"])).toThrow(
      "--fail-on-regression compares with a baseline; pass --baseline <run> too",
    );
    expect(parseCliArgs(["run", "--fail-on-regression", "--baseline", "latest"])).toMatchObject({
      failOnRegression: true,
      baseline: "latest",
    });
  });
});

describe("names and report files that would not work", () => {
  it("refuse a run name that reads as a reference, and --json -", () => {
    for (const name of ["latest", "latest~2", "branch:main"])
      expect(() => parseCliArgs(["run", "--name", name])).toThrow(
        `--name "${name}" reads as a run reference`,
      );
    expect(parseCliArgs(["run", "--name", "latest-nightly"])).toMatchObject({
      name: "latest-nightly",
    });
    // runs, show and compare print a name as it is: one that breaks a line or drives the terminal
    // could not be typed to refer to the run, and would rewrite what they show.
    for (const [name, shown] of [
      ["two\nlines", '"two\\nlines" holds U+000A at character 4'],
      ["red\u001b[31m", '"red\\u001b[31m" holds U+001B at character 4'],
      ["tab\tbed", '"tab\\tbed" holds U+0009 at character 4'],
      ["rtl\u202egnp", '"rtl⟨U+202E⟩gnp" holds U+202E at character 4'],
    ])
      for (const command of ["run", "merge"])
        expect(() =>
          parseCliArgs([command, ...(command === "merge" ? ["a"] : []), "--name", name!]),
        ).toThrow(
          `--name must be text on one line without control characters: ${shown}; choose a name you can type`,
        );
    expect(() => parseCliArgs(["run", "--json", "-"])).toThrow(
      "--json writes a file; for one JSON object per line on standard output use --reporter ndjson=-",
    );
  });
});

describe("unknown options", () => {
  it("are named, with the option a typo most likely meant", () => {
    expect(() => parseCliArgs(["run", "--concurency", "2"])).toThrow(
      "niceeval run: unknown option --concurency; did you mean --concurrency? Run `niceeval --help`.",
    );
    expect(() => parseCliArgs(["compare", "a", "b", "--fail-on-regresion"])).toThrow(
      "niceeval compare: unknown option --fail-on-regresion; did you mean --fail-on-regression?",
    );
  });

  it("are named alone when nothing is close", () => {
    expect(() => parseCliArgs(["run", "--verbose"])).toThrow(
      "niceeval run: unknown option --verbose. Run `niceeval --help`.",
    );
    expect(() => parseCliArgs(["run", "-x"])).toThrow("niceeval run: unknown option -x.");
  });
});

describe("an option given without its value", () => {
  it("is named with what its value is and an example, when another option comes next", () => {
    expect(() => parseCliArgs(["run", "--baseline", "--fail-on-regression"])).toThrow(
      "niceeval run: --baseline needs a value: a run reference (an id, an id prefix, a name, latest, latest~N or branch:<name>) (e.g. --baseline branch:main); the option --fail-on-regression came next. Run `niceeval --help`.",
    );
    expect(() => parseCliArgs(["merge", "a", "--name", "--json"])).toThrow(
      "niceeval merge: --name needs a value: a name for the stored run (e.g. --name nightly); the option --json came next.",
    );
  });

  it("says how to give a value that starts with a dash, which still works inline", () => {
    expect(() => parseCliArgs(["run", "--shard", "-1/3"])).toThrow(
      "niceeval run: --shard needs a value: i/n, shard i of n counted from 1 (e.g. --shard 1/3); -1/3 came next, which reads as an option: a value that starts with a dash is written --shard=-1/3.",
    );
    expect(parseCliArgs(["run", "--name=-nightly"])).toMatchObject({ name: "-nightly" });
  });

  it("is named alike when it ends the line", () => {
    expect(() => parseCliArgs(["run", "--json"])).toThrow(
      "niceeval run: --json needs a value: a file path to write the JSON report to (e.g. --json results.json); nothing came after it.",
    );
  });

  it("says what the value is for every option the help shows with one", () => {
    const commands = ["run", "worker", "runs", "show", "compare", "view", "export", "merge"];
    const shown = new Set([...HELP.matchAll(/--([\w-]+) <[^>]+>/g)].map((m) => m[1]!));
    for (const name of [...shown, "limit", "port", "host"]) {
      const said = commands
        .map((command) => {
          try {
            parseCliArgs([command, `--${name}`]);
          } catch (error) {
            return (error as Error).message;
          }
          return undefined;
        })
        .find((message) => message?.includes(`--${name} needs a value`));
      expect(said, name).toContain(`--${name} needs a value: `);
    }
  });
});

describe("unknown commands", () => {
  it("are named, with the command a typo most likely meant", () => {
    expect(() => parseCliArgs(["rnu", "evals"])).toThrow(
      'unknown command "rnu"; did you mean run? Commands: run, worker, runs, show, compare, view, export, import, merge.',
    );
    expect(() => parseCliArgs(["deploy"])).toThrow(
      'unknown command "deploy". Commands: run, worker, runs, show, compare, view, export, import, merge.',
    );
  });
});

describe("merge with a baseline", () => {
  it("says to compare the merged run with branch:NAME, rather than only that the option is unknown", () => {
    for (const flag of ["--baseline", "--baseline=branch:main", "--fail-on-regression"])
      expect(() => parseCliArgs(["merge", "a", "b", "--name", "all", flag, "x"])).toThrow(
        `niceeval merge has no ${flag.split("=")[0]}: merge, then compare the merged run with its baseline, as \`niceeval compare branch:main <merged run> --fail-on-regression\``,
      );
  });
});

describe("--limit on runs", () => {
  it("lists the latest 20 by default, as --help says", () => {
    const args = parseCliArgs(["runs"]);
    expect(args.command === "runs" && args.limit).toBe(20);
    expect(HELP).toContain("the latest 20;");
  });
});

describe("--resume and --retry-errors", () => {
  it("take their run inline (--resume=<run>) as every value option does", () => {
    expect(parseCliArgs(["run", "--resume=3f2a9c1e"])).toMatchObject({
      resume: { mode: "resume", run: "3f2a9c1e" },
      paths: [],
    });
    expect(parseCliArgs(["run", "--retry-errors=latest~1", "--store", "s.sqlite"])).toMatchObject({
      resume: { mode: "retry-errors", run: "latest~1" },
    });
    expect(parseCliArgs(["run", "--resume", "3f2a9c1e"])).toMatchObject({
      resume: { mode: "resume", run: "3f2a9c1e" },
    });
    expect(parseCliArgs(["run", "--resume"])).toMatchObject({ resume: { mode: "resume" } });
  });

  it("refuse an empty inline run, and a path beside an inline one", () => {
    expect(() => parseCliArgs(["run", "--resume="])).toThrow(
      "--resume= names no run: give --resume=<run>",
    );
    expect(() => parseCliArgs(["run", "--retry-errors=ab12", "evals"])).toThrow(
      "--retry-errors=ab12 names the run; the eval files are the run's own, so give no paths (given: evals)",
    );
  });

  it("read an eval file or a path that exists given with them as a path, not a run", () => {
    expect(() => parseCliArgs(["run", "t/sleepy.eval.ts", "--resume"])).toThrow(
      "--resume t/sleepy.eval.ts: t/sleepy.eval.ts is an eval file, not a run; the eval files are the run's own, so give no paths (a run named so is given as --resume=t/sleepy.eval.ts)",
    );
    expect(() => parseCliArgs(["run", "--retry-errors", "src"])).toThrow(
      "--retry-errors src: src is a path, not a run; the eval files are the run's own, so give no paths",
    );
    expect(parseCliArgs(["run", "--resume=src"])).toMatchObject({ resume: { run: "src" } });
  });

  it("read a path from the directory the CLI runs in, not the process's", () => {
    // "src" is a folder of the process's directory only; in "/" it names a run.
    expect(parseCliArgs(["run", "--resume", "src"], {}, "/")).toMatchObject({
      resume: { run: "src" },
    });
    expect(() => parseCliArgs(["run", "--resume", "tmp"], {}, "/")).toThrow(
      "--resume tmp: tmp is a path, not a run",
    );
  });
});

describe("a switch given a value", () => {
  it("says it takes none, naming what was given", () => {
    expect(() => parseCliArgs(["run", "--quiet=yes"])).toThrow(
      "niceeval run: --quiet is a switch and takes no value; write --quiet alone, not --quiet=yes",
    );
  });
});

describe("run options that would be dropped or do nothing without a word", () => {
  it("refuse a --tag key given twice, naming the key and both values", () => {
    expect(() => parseCliArgs(["run", "--tag", "a=1", "--tag", "a=2"])).toThrow(
      "--tag a is given twice (a=1 and a=2); a tag has one value: give it once",
    );
    expect(parseCliArgs(["run", "--tag", "a=1", "--tag", "b=1"])).toMatchObject({
      tags: { a: "1", b: "1" },
    });
  });

  it("take an empty --filter as no filter (a variable that is unset)", () => {
    expect(parseCliArgs(["run", "--filter", ""])).not.toHaveProperty("filter");
    expect(parseCliArgs(["run", "--filter="])).not.toHaveProperty("filter");
  });

  it("take a --tag given twice with the same value once", () => {
    expect(parseCliArgs(["run", "--tag", "a=1", "--tag", "a=1"])).toMatchObject({
      tags: { a: "1" },
    });
  });

  it("refuse --alpha and --seed on run without --baseline, and take them on compare", () => {
    expect(() => parseCliArgs(["run", "--alpha", "0.01"])).toThrow(
      "--alpha sets the comparison with a baseline; pass --baseline <run> too, or drop it",
    );
    expect(() => parseCliArgs(["run", "--alpha=0.01", "--seed=3"])).toThrow(
      "--alpha and --seed set the comparison with a baseline; pass --baseline <run> too, or drop them",
    );
    expect(
      parseCliArgs(["run", "--baseline", "latest", "--alpha", "0.01", "--seed", "3"]),
    ).toMatchObject({
      alpha: 0.01,
      seed: 3,
    });
    expect(parseCliArgs(["compare", "a", "b", "--alpha", "0.01", "--seed", "3"])).toMatchObject({
      alpha: 0.01,
      seed: 3,
    });
  });
});
