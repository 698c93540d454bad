import { resolve } from "node:path";
import type { Comparison } from "../compare/types.js";
import { NiceevalError } from "../errors.js";
import { type ConsoleReporterOptions, consoleReporter } from "./console-reporter.js";
import { githubReporter } from "./github-reporter.js";
import { jsonReporter } from "./json-reporter.js";
import { junitReporter } from "./junit-reporter.js";
import { markdownReporter } from "./markdown-reporter.js";
import { ndjsonReporter } from "./ndjson-reporter.js";
import type { Reporter } from "./reporter.js";

/** A reporter named by `--reporter`, as data; {@link createReporter} builds it. */
export type ReporterSpec =
  | { kind: "console" }
  | { kind: "json"; file: string }
  | { kind: "ndjson"; target: string }
  | { kind: "junit"; file: string }
  | { kind: "markdown"; file: string }
  | { kind: "github" };

/** The forms `--reporter` accepts, for messages and help. */
export const REPORTER_FORMS = [
  "console",
  "json=<file>",
  "ndjson=<file or ->",
  "junit=<file>",
  "markdown=<file>",
  "github",
] as const;

const usage = (message: string) =>
  new NiceevalError(
    "USAGE",
    `--reporter ${message}. Valid forms: ${REPORTER_FORMS.join(", ")} (repeat --reporter for several).`,
  );

/**
 * Parse one `--reporter` value. Throws a USAGE error, listing the valid forms, for an unknown
 * name, a file missing where one is needed, or a value given where none is taken.
 * @example
 * parseReporterFlag("junit=reports/evals.xml") // { kind: "junit", file: "reports/evals.xml" }
 */
export function parseReporterFlag(value: string): ReporterSpec {
  const at = value.indexOf("=");
  const name = (at < 0 ? value : value.slice(0, at)).trim();
  const argument = at < 0 ? undefined : value.slice(at + 1).trim();
  switch (name) {
    case "console":
    case "github":
      if (argument !== undefined) throw usage(`"${value}": ${name} takes no value`);
      return { kind: name };
    case "json":
    case "junit":
    case "markdown":
      if (!argument) throw usage(`"${value}": ${name} needs a file, as ${name}=<file>`);
      return { kind: name, file: argument };
    case "ndjson":
      if (!argument) throw usage(`"${value}": ndjson needs a file, or - for standard output`);
      return { kind: "ndjson", target: argument };
    default:
      throw usage(`"${value}": unknown reporter${name ? ` "${name}"` : ""}`);
  }
}

/** Where the reports that name no file write, for the message refusing one given twice. */
const WRITES_ONCE = {
  console:
    "the console report is written once, to standard output (to standard error with --reporter ndjson=-)",
  github: "its annotations and step summary are written once",
} as const;

/**
 * Throws a USAGE error when `console` or `github`, which name no file, is given twice: each
 * would write its whole report again where the other does (a report to a file given twice is
 * refused as two reports to one file).
 */
export function refuseRepeatedReporters(specs: readonly ReporterSpec[]): void {
  for (const kind of ["console", "github"] as const) {
    const count = specs.filter((spec) => spec.kind === kind).length;
    if (count > 1)
      throw new NiceevalError(
        "USAGE",
        `--reporter ${kind} is given ${count} times; ${WRITES_ONCE[kind]}: give it once`,
      );
  }
}

/** What {@link createReporter} needs from its caller (the CLI). */
export interface ReporterContext {
  /** Folder that relative report paths are resolved against (default `process.cwd()`). */
  cwd?: string;
  env?: Readonly<Record<string, string | undefined>>;
  /** Options of the console reporter. */
  console?: ConsoleReporterOptions;
  /** Markdown appended to the markdown and GitHub summaries (a baseline comparison). */
  comparison?: () => string | undefined;
  /** The baseline comparison as data, which the JSON and NDJSON reports carry. */
  compared?: () => Comparison | undefined;
  /** Where the human report goes (standard error when NDJSON has standard output). */
  fd?: number;
}

/** Build the reporter a spec names. */
export function createReporter(spec: ReporterSpec, context: ReporterContext = {}): Reporter {
  const path = (file: string) => resolve(context.cwd ?? process.cwd(), file);
  const comparison = context.comparison ? { comparison: context.comparison } : {};
  switch (spec.kind) {
    case "console":
      return consoleReporter(context.console);
    case "json":
      return named(
        jsonReporter(path(spec.file), { comparison: context.compared }),
        `the json report (${spec.file})`,
      );
    case "ndjson":
      return named(
        ndjsonReporter(spec.target === "-" ? "-" : path(spec.target), {
          comparison: context.compared,
        }),
        `the ndjson report (${spec.target === "-" ? "standard output" : spec.target})`,
      );
    case "junit":
      return named(junitReporter(path(spec.file)), `the junit report (${spec.file})`);
    case "markdown":
      return named(
        markdownReporter(path(spec.file), comparison),
        `the markdown report (${spec.file})`,
      );
    case "github":
      return named(
        githubReporter({
          ...(context.env ? { env: context.env } : {}),
          ...(context.fd !== undefined ? { fd: context.fd } : {}),
          ...comparison,
        }),
        "the github reporter",
      );
  }
}

/** A reporter that says which one it is when it fails (see RunSink.label). */
function named(reporter: Reporter, label: string): Reporter {
  return reporter.label === undefined ? Object.assign(reporter, { label }) : reporter;
}
