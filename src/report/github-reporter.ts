import { appendFileSync } from "node:fs";
import { isAbsolute, relative } from "node:path";
import { collectingReporter, type ListedFailure } from "./markdown-reporter.js";
import { flushLineWriters } from "./output.js";
import type { Reporter } from "./reporter.js";
import { writeFully } from "./write-fd.js";
import { xmlSafe } from "./xml.js";

/** GitHub shows at most 10 error annotations per step. */
const DEFAULT_ANNOTATIONS = 10;
/** GitHub refuses a step summary above 1 MiB; stay clear of it. */
const SUMMARY_BYTES = 1000 * 1000;

/** Options of {@link githubReporter}. */
export interface GithubReporterOptions {
  /** Environment to read (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Markdown appended to the summary, e.g. a baseline comparison. */
  comparison?: () => string | undefined;
  /** Error annotations printed, at most (default 10, what GitHub shows per step). */
  maxAnnotations?: number;
  /** Where workflow commands go (default: standard output, written synchronously). */
  write?: (text: string) => void;
  /**
   * The file descriptor they are written to without `write` (default 1). The runner reads workflow
   * commands on standard error too: the CLI sends them there when NDJSON has standard output.
   */
  fd?: number;
}

/** Escape workflow-command data (the message): %, CR and LF. */
export function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** Escape a workflow-command property value: as data, and also : and ,. */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** Whether this process runs in GitHub Actions, as its runner says (`GITHUB_ACTIONS`). */
export function inGithubActions(env: Readonly<Record<string, string | undefined>>): boolean {
  const flag = env.GITHUB_ACTIONS;
  return flag !== undefined && flag !== "" && flag !== "false";
}

/**
 * GitHub Actions: when `GITHUB_ACTIONS` is set, appends the markdown summary (as
 * {@link markdownReporter} writes it) to `$GITHUB_STEP_SUMMARY` and prints an `::error`
 * annotation for each failing case, up to `maxAnnotations`, with `file=` when the eval's file
 * is known. Outside GitHub Actions it does nothing and prints nothing.
 */
export function githubReporter(options: GithubReporterOptions = {}): Reporter {
  const env = options.env ?? process.env;
  if (!inGithubActions(env)) return {};
  const max = Math.max(0, options.maxAnnotations ?? DEFAULT_ANNOTATIONS);
  const write =
    options.write ??
    ((text: string) => {
      const fd = options.fd ?? 1;
      // After the console's lines written so far, not in the middle of them.
      flushLineWriters(fd);
      const bytes = Buffer.from(text);
      writeFully(fd, bytes, 0, bytes.length);
    });
  // The list keeps at least what the annotations need, and the summary's 50.
  return collectingReporter(Math.max(50, max), (collector, run) => {
    const shown = collector.failures.slice(0, max);
    let commands = "";
    // A file that failed to load ran none of its cases, an eval left out none of its own: they
    // are annotated first, on the file.
    for (const error of run.loadErrors) {
      const title = error.leftOut === undefined ? "niceeval: failed to load" : "niceeval: left out";
      commands += `::error file=${escapeProperty(error.file)},title=${escapeProperty(title)}::${escapeData(xmlSafe(error.message))}\n`;
    }
    for (const failure of shown) commands += annotation(failure, env);
    if (collector.problems > shown.length)
      commands += `::warning title=niceeval::${escapeData(`${collector.problems - shown.length} more failing cases are not annotated; see the step summary or the report`)}\n`;
    if (commands) write(commands);
    const file = env.GITHUB_STEP_SUMMARY;
    if (file)
      appendFileSync(file, `${fitSummary(collector.render(run, options.comparison?.()))}\n`);
  });
}

function annotation(
  failure: ListedFailure,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const title = annotationTitle(xmlSafe(failure.evalId), xmlSafe(failure.name), failure.verdict);
  const file = failure.file === undefined ? undefined : workspacePath(failure.file, env);
  const properties = [
    ...(file !== undefined ? [`file=${escapeProperty(file)}`] : []),
    `title=${escapeProperty(title)}`,
  ].join(",");
  return `::error ${properties}::${escapeData(xmlSafe(failure.reason))}\n`;
}

/** GitHub's annotations take a title of 255 characters at most. */
const TITLE_CHARS = 255;

/** Of an eval id that does not fit, what the title keeps at least when the case needs the room. */
const EVAL_KEPT = 60;

/**
 * "eval › case verdict", cut (never inside a character) so that it fits: the eval id first, down
 * to EVAL_KEPT characters, so that a long one does not push the case out; then the case.
 */
function annotationTitle(evalId: string, name: string, verdict: string): string {
  const room = TITLE_CHARS - verdict.length - 1 - " › ".length;
  const evalRoom = Math.max(room - name.length, Math.min(evalId.length, EVAL_KEPT));
  const evalPart = cutTo(evalId, evalRoom);
  return `${evalPart} › ${cutTo(name, room - evalPart.length)} ${verdict}`;
}

/** `text` in at most `max` characters, ending in "…" when cut; a high surrogate is not left alone. */
function cutTo(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  if (/[\ud800-\udbff]/.test(text[end - 1] ?? "")) end--;
  return `${text.slice(0, end)}…`;
}

// Annotations name files relative to the repository (the workspace).
function workspacePath(file: string, env: Readonly<Record<string, string | undefined>>): string {
  if (!isAbsolute(file)) return file;
  const root = env.GITHUB_WORKSPACE ?? process.cwd();
  const path = relative(root, file);
  return path.startsWith("..") || isAbsolute(path) ? file : path.split("\\").join("/");
}

function fitSummary(markdown: string): string {
  if (Buffer.byteLength(markdown) <= SUMMARY_BYTES) return markdown;
  const note = "\n\n…summary cut to stay within GitHub's 1 MiB step-summary limit.\n";
  let cut = markdown.slice(0, SUMMARY_BYTES - note.length * 4);
  while (Buffer.byteLength(cut) > SUMMARY_BYTES - note.length) cut = cut.slice(0, -1024);
  return cut.slice(0, cut.lastIndexOf("\n") + 1) + note;
}
