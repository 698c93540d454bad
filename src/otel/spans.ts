// The spans of one run as its hooks arrive: run → eval → attempt, each with its real times, and
// one evaluation log record per judgment in its attempt's span.
import type { Context, Span } from "@opentelemetry/api";
import { realEpochNow } from "../clock.js";
import type { AttemptRecord, Judgment } from "../eval/record.js";
import type { EvalSummary } from "../runner/events.js";
import type { AttemptInfo, EvalInfo } from "../runner/sink.js";
import type { RunSummary } from "../runner/summary.js";
import {
  attemptIdentity,
  attemptOutcome,
  EVALUATION_EVENT,
  evalOutcome,
  judgmentAttributes,
  runOutcome,
} from "./attributes.js";
import type { Exporting } from "./providers.js";

interface OpenAttempt {
  info: AttemptInfo;
  /** When it was announced to start. */
  at: number;
  /** When each judgment was announced in real time, to date its log record. */
  announced: { label: string; source: string; at: number }[];
}

/** An eval whose span is not made yet: its attempts' parent, and its times so far. */
interface OpenEval {
  /** The id its span will have, which its attempts name as their parent. */
  spanId: string;
  context: Context;
  /** The earliest of when it was scheduled and when its attempts started. */
  start: number;
  /** When its last attempt ended. */
  lastEnd?: number;
}

// On the real clock: an attempt may fake the global one while others end (runner/globals.ts).
const now = realEpochNow;

const attemptKey = (evalId: string, caseId: string, index: number, trial: number) =>
  `${evalId}\u0000${caseId}\u0000${index >= 0 ? index : -1}\u0000${trial}`;

/** The open spans of a run; every name and attribute passes through `mask`. */
export class RunSpans {
  private runId = "";
  private runSpan: Span | undefined;
  private readonly evals = new Map<string, OpenEval>();
  private readonly attempts = new Map<string, OpenAttempt>();
  private readonly scheduled = new Map<string, { info: EvalInfo; at: number }>();

  constructor(
    private readonly otel: Exporting,
    private readonly mask: (text: string) => string,
    private readonly runName: string | undefined,
  ) {}

  startRun(id: string, attributes: Record<string, string | number> = {}): Span {
    const { mask } = this;
    this.runId = id;
    this.runSpan = this.otel.tracer.startSpan(
      "niceeval run",
      {
        startTime: now(),
        attributes: {
          "niceeval.run.id": id,
          ...(this.runName !== undefined ? { "niceeval.run.name": mask(this.runName) } : {}),
          ...attributes,
        },
      },
      this.otel.api.ROOT_CONTEXT,
    );
    return this.runSpan;
  }

  /**
   * An eval is about to run: its span starts from now, but is made only once it has an attempt
   * (or a summary with attempts), so an eval a filter or shard left without cases exports none.
   */
  scheduleEval(info: EvalInfo): void {
    if (!this.scheduled.has(info.evalId)) this.scheduled.set(info.evalId, { info, at: now() });
  }

  /**
   * The parent of an eval's attempts, from the attempt that starts at `at`. The eval's own span
   * is made only when it ends ({@link endEval}), from the earliest of when it was scheduled and
   * when its attempts started, since an attempt the eval process ran ahead can have started
   * before the engine scheduled its eval, and before attempts whose records came first. Until
   * then its attempts name the span id it will have.
   */
  private evalParent(evalId: string, at: number): Context {
    const open = this.evals.get(evalId);
    if (open) {
      open.start = Math.min(open.start, at);
      return open.context;
    }
    const run = (this.runSpan ?? this.startRun("")).spanContext();
    const spanId = this.otel.newSpanId();
    const context = this.otel.api.trace.setSpanContext(this.otel.api.ROOT_CONTEXT, {
      traceId: run.traceId,
      spanId,
      traceFlags: run.traceFlags,
    });
    const start = Math.min(at, this.scheduled.get(evalId)?.at ?? at);
    this.evals.set(evalId, { spanId, context, start });
    return context;
  }

  /** Makes and ends an eval's span, with its outcome when it has one. */
  private endEval(evalId: string, open: OpenEval, end: number, summary?: EvalSummary): void {
    const { mask } = this;
    const info = this.scheduled.get(evalId)?.info;
    const span = this.otel.withSpanId(open.spanId, () =>
      this.otel.tracer.startSpan(
        `eval ${mask(evalId)}`,
        {
          startTime: open.start,
          attributes: {
            "test.suite.name": mask(evalId),
            "niceeval.run.id": this.runId,
            "niceeval.eval.id": mask(evalId),
            ...(info ? { "niceeval.eval.style": info.style } : {}),
            ...(info?.file !== undefined ? { "niceeval.eval.file": mask(info.file) } : {}),
            ...(info?.trials !== undefined ? { "niceeval.eval.trials": info.trials } : {}),
            ...(summary ? evalOutcome(summary) : {}),
          },
        },
        this.under(this.runSpan ?? this.startRun("")),
      ),
    );
    span.end(end);
  }

  /**
   * An attempt has started. Its span is made when it finishes, from then back by its record's
   * elapsed time: an attempt run ahead by the eval process (or on a worker) is announced here
   * only when its record comes, so the time of this call is not when it ran.
   */
  startAttempt(attempt: AttemptInfo): OpenAttempt {
    const open: OpenAttempt = { info: attempt, at: now(), announced: [] };
    this.attempts.set(
      attemptKey(attempt.evalId, attempt.caseId, attempt.index, attempt.trial),
      open,
    );
    return open;
  }

  /** An attempt not to export (a continued run's, read back from the store): forgotten. */
  dropAttempt(record: AttemptRecord): void {
    this.attempts.delete(
      attemptKey(record.evalId, record.caseId, record.index ?? -1, record.trial ?? 0),
    );
  }

  /** A judgment announced in real time: its log record is dated now. */
  announce(attempt: AttemptInfo, judgment: Judgment): void {
    const key = attemptKey(attempt.evalId, attempt.caseId, attempt.index, attempt.trial);
    this.attempts
      .get(key)
      ?.announced.push({ label: judgment.label, source: judgment.source, at: now() });
  }

  finishAttempt(record: AttemptRecord): void {
    const { mask } = this;
    const end = now();
    const info: AttemptInfo = {
      evalId: record.evalId,
      caseId: record.caseId,
      index: record.index ?? -1,
      trial: record.trial ?? 0,
    };
    const key = attemptKey(info.evalId, info.caseId, info.index, info.trial);
    const announced = this.attempts.get(key)?.announced ?? [];
    this.attempts.delete(key);
    // It began its record's elapsed time ago, wherever it ran.
    const start = end - record.elapsedMs;
    const span = this.attemptSpan(info, start);
    span.setAttributes(attemptOutcome(record, mask));
    if (record.verdict === "errored") {
      const message = record.error
        ? `${record.error.where}: ${record.error.message}`
        : record.score.reasons.join("; ");
      span.setStatus({ code: this.otel.api.SpanStatusCode.ERROR, message: mask(message) });
    }
    const identity = attemptIdentity(this.runId, info, mask);
    const context = this.under(span);
    const { severity } = this.otel;
    for (const judgment of record.judgments) {
      const seen = announced.findIndex(
        (a) => a.label === judgment.label && a.source === judgment.source,
      );
      // A judgment announced before the span's start (its clock and the record's differ) is
      // dated inside the span.
      const at = seen >= 0 ? Math.max(start, announced.splice(seen, 1)[0]!.at) : end;
      const errored = judgment.state === "errored";
      this.otel.logger.emit({
        eventName: EVALUATION_EVENT,
        timestamp: at,
        severityNumber: errored ? severity.WARN : severity.INFO,
        severityText: errored ? "WARN" : "INFO",
        context,
        attributes: { ...identity, ...judgmentAttributes(judgment, mask) },
      });
    }
    this.endAttempt(span, info.evalId, end);
  }

  finishEval(summary: EvalSummary): void {
    if (!this.evals.has(summary.evalId) && summary.cases > 0)
      this.evalParent(summary.evalId, now());
    const open = this.evals.get(summary.evalId);
    if (!open) return;
    this.evals.delete(summary.evalId);
    // The eval ended with its last attempt, not when the ordered report reached it.
    this.endEval(summary.evalId, open, open.lastEnd ?? now(), summary);
  }

  finishRun(summary: RunSummary): void {
    const end = now();
    // Attempts and evals still open were cut short (a cancelled run).
    for (const { info, at } of this.attempts.values()) {
      const span = this.attemptSpan(info, at);
      span.setAttribute("niceeval.cancelled", true);
      this.endAttempt(span, info.evalId, end);
    }
    this.attempts.clear();
    for (const [evalId, open] of this.evals) this.endEval(evalId, open, open.lastEnd ?? end);
    this.evals.clear();
    const run = this.runSpan ?? this.startRun(summary.runId);
    run.setAttributes(runOutcome(summary));
    run.end(end);
  }

  private attemptSpan(info: AttemptInfo, start: number): Span {
    return this.otel.tracer.startSpan(
      `case ${this.mask(info.caseId)}`,
      { startTime: start, attributes: attemptIdentity(this.runId, info, this.mask) },
      this.evalParent(info.evalId, start),
    );
  }

  /** Ends an attempt's span, and its eval's with it at the earliest. */
  private endAttempt(span: Span, evalId: string, end: number): void {
    span.end(end);
    const parent = this.evals.get(evalId);
    if (parent) parent.lastEnd = Math.max(parent.lastEnd ?? 0, end);
  }

  private under(span: Span) {
    return this.otel.api.trace.setSpan(this.otel.api.ROOT_CONTEXT, span);
  }
}
