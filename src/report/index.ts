export { safeStringify } from "../json-safe.js";
export { type ConsoleReporterOptions, consoleReporter } from "./console-reporter.js";
export {
  type EvalFigures,
  evalFigures,
  formatMeanScore,
  formatPassRate,
  type MeanScoreFigure,
  meanScoreFigure,
  type PassRateFigure,
  passRateFigure,
  summaryWithFigures,
} from "./figures.js";
export {
  escapeData,
  escapeProperty,
  type GithubReporterOptions,
  githubReporter,
} from "./github-reporter.js";
export { type ComparedReportOptions, jsonReporter } from "./json-reporter.js";
export { junitReporter } from "./junit-reporter.js";
export { type MarkdownReporterOptions, markdownReporter } from "./markdown-reporter.js";
export { NDJSON_FORMAT, ndjsonReporter } from "./ndjson-reporter.js";
export type { EvalInfo, Reporter, RunStartInfo } from "./reporter.js";
export {
  createReporter,
  parseReporterFlag,
  REPORTER_FORMS,
  type ReporterContext,
  type ReporterSpec,
} from "./reporter-flag.js";
