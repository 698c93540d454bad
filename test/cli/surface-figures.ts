// Every surface that reports a run, read back into one shape of rounded figures, so a test can
// say which surface disagrees with which about which number. A surface leaves out what it does
// not claim (Markdown has no sd, the viewer's eval table no pass-rate n). Pure text and JSON here:
// test/cli/surfaces.ts runs the commands, the viewer and Chromium that give them.

/** The figures of one eval (or of the whole run) as text, rounded as the reports show them. */
export type Figures = Partial<Record<FigureName, string>>;

export type FigureName =
  | "attempts"
  | "passed"
  | "failed"
  | "errored"
  | "skipped"
  | "rate"
  | "rateN"
  | "rateLow"
  | "rateHigh"
  | "rateCases"
  | "mean"
  | "meanN"
  | "meanLow"
  | "meanHigh"
  | "meanCases"
  | "partial"
  | "lowerBound";

/** One surface's reading of a run: per eval, and the run's totals. */
export interface Reading {
  evals: Record<string, Figures>;
  totals: Figures;
}

const pct = (x: number | null | undefined) =>
  x === null || x === undefined ? undefined : String(Math.round(1000 * x) / 10);
const num3 = (x: number | null | undefined) =>
  x === null || x === undefined ? undefined : String(Math.round(1000 * x) / 1000);
const str = (x: number | null | undefined) =>
  x === null || x === undefined ? undefined : String(x);
/** A number read from a report's text, written as {@link pct} and {@link num3} write it. */
const textNum = (x: string | undefined) => (x === undefined ? undefined : String(Number(x)));

function clean(figures: { [name in FigureName]?: string | undefined }): Figures {
  return Object.fromEntries(Object.entries(figures).filter(([, v]) => v !== undefined));
}

interface FigureJson {
  passRate: {
    rate: number | null;
    n: number;
    cases?: number;
    interval: { low: number; high: number } | null;
  };
  meanScore?: {
    mean: number | null;
    n: number;
    cases?: number;
    interval: { low: number; high: number } | null;
    partial: number;
    lowerBound: boolean;
  };
}

interface CountsJson {
  cases: number;
  passed: number;
  failed: number;
  errored: number;
  skipped: number;
}

/** Figures of a JSON report's (or NDJSON's) summary of an eval, or of its totals. */
function fromFigureJson(counts: CountsJson, figures: FigureJson): Figures {
  const { passRate, meanScore } = figures;
  return clean({
    attempts: str(counts.cases),
    passed: str(counts.passed),
    failed: str(counts.failed),
    errored: str(counts.errored),
    skipped: str(counts.skipped),
    rate: pct(passRate.rate),
    rateN: str(passRate.n),
    rateLow: pct(passRate.interval?.low),
    rateHigh: pct(passRate.interval?.high),
    rateCases: str(passRate.cases),
    ...(meanScore
      ? {
          mean: num3(meanScore.mean),
          meanN: str(meanScore.n),
          meanLow: num3(meanScore.interval?.low),
          meanHigh: num3(meanScore.interval?.high),
          meanCases: str(meanScore.cases),
          partial: str(meanScore.partial),
          lowerBound: String(meanScore.lowerBound),
        }
      : {}),
  });
}

export interface SummaryJson {
  totals: CountsJson & { figures: FigureJson };
  evals: (CountsJson & { evalId: string; figures: FigureJson })[];
}

/** The JSON report (`--reporter json=<file>` or `--json`). */
export function fromJsonReport(summary: SummaryJson): Reading {
  return {
    evals: Object.fromEntries(summary.evals.map((e) => [e.evalId, fromFigureJson(e, e.figures)])),
    totals: fromFigureJson(summary.totals, summary.totals.figures),
  };
}

/** The NDJSON stream: each `eval.finished` line, and the summary of `run.finished`. */
export function fromNdjson(text: string): Reading {
  const lines = text
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { type: string; summary: unknown });
  const evals: Record<string, Figures> = {};
  for (const line of lines)
    if (line.type === "eval.finished") {
      const summary = line.summary as CountsJson & { evalId: string; figures: FigureJson };
      evals[summary.evalId] = fromFigureJson(summary, summary.figures);
    }
  const end = lines.find((l) => l.type === "run.finished")!.summary as SummaryJson;
  return { evals, totals: fromJsonReport(end).totals };
}

/** "50% of 6, 95% CI 18.8–81.2% over 4 cases" (formatPassRate). */
function passRateText(text: string): Figures {
  if (text === "no attempt to rate") return { rateN: "0" };
  const m = /^([\d.]+)% of (\d+)(?:, 95% CI ([\d.]+)–([\d.]+)%(?: over (\d+) cases?)?)?$/.exec(
    text,
  );
  if (!m) throw new Error(`not a pass rate: ${text}`);
  return clean({
    rate: textNum(m[1]),
    rateN: m[2],
    rateLow: textNum(m[3]),
    rateHigh: textNum(m[4]),
    rateCases: m[5],
  });
}

/** "≥ 0.333 ± 0.1 sd, 95% CI 0.2–0.4 (n=5 over 2 cases, 5 partial: …)" (formatMeanScore), or "n/a". */
function meanScoreText(text: string): Figures {
  if (text === "n/a" || text === "score n/a") return { meanN: "0", partial: "0" };
  const m =
    /^(≥ )?(-?[\d.]+)(?: ± [\d.]+ sd)?(?:, 95% CI (-?[\d.]+)–(-?[\d.]+))? \(n=(\d+)(?: over (\d+) cases?)?(?:, (\d+) partial.*)?\)$/.exec(
      text,
    );
  if (!m) throw new Error(`not a mean score: ${text}`);
  return clean({
    mean: textNum(m[2]),
    meanN: m[5],
    meanLow: textNum(m[3]),
    meanHigh: textNum(m[4]),
    meanCases: m[6],
    partial: m[7] ?? "0",
    lowerBound: String(m[1] !== undefined),
  });
}

/** JUnit XML: each testsuite's counts and figure properties, and the testsuites' counts. */
export function fromJunit(xml: string): Reading {
  const attr = (tag: string, name: string) => new RegExp(` ${name}="([^"]*)"`).exec(tag)?.[1];
  const xmlText = (s: string) =>
    s
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, "&");
  const counts = (tag: string): Figures => {
    const [tests, failures, errors, skipped] = ["tests", "failures", "errors", "skipped"].map((n) =>
      Number(attr(tag, n)),
    ) as [number, number, number, number];
    return {
      attempts: String(tests),
      passed: String(tests - failures - errors - skipped),
      failed: String(failures),
      errored: String(errors),
      skipped: String(skipped),
    };
  };
  const evals: Record<string, Figures> = {};
  for (const m of xml.matchAll(/<testsuite [^>]*>[\s\S]*?<\/testsuite>/g)) {
    const block = m[0];
    const tag = /<testsuite [^>]*>/.exec(block)![0];
    const name = xmlText(attr(tag, "name")!);
    const prop = (p: string) => {
      const v = new RegExp(`<property name="${p}" value="([^"]*)"/>`).exec(block)?.[1];
      return v === undefined ? undefined : xmlText(v);
    };
    const rate = prop("niceeval.pass-rate");
    if (rate === undefined) continue; // `(run gates)`, load errors: no figures
    const mean = prop("niceeval.mean-score")!;
    const { partial: _partial, ...meanFigures } = meanScoreText(mean);
    evals[name] = { ...counts(tag), ...passRateText(rate), ...meanFigures };
  }
  const top = /<testsuites [^>]*>/.exec(xml)![0];
  return { evals, totals: counts(top) };
}

/** The Markdown summary: its eval table and its headline. */
export function fromMarkdown(md: string): Reading {
  const evals: Record<string, Figures> = {};
  let header: string[] | undefined;
  for (const line of md.split("\n")) {
    if (!line.startsWith("| ")) {
      header = undefined;
      continue;
    }
    const cells = line
      .slice(2, -2)
      .split(" | ")
      .map((c) => c.replace(/\\(.)/g, "$1"));
    if (cells[0] === "eval" && cells.includes("pass rate (95% CI)")) {
      header = cells;
      continue;
    }
    if (!header || cells[0] === "---") continue;
    const [evalId, attempts, passed, failed, errored, skipped, rate, mean] = cells as string[];
    const r = /^([\d.]+)% \(n=(\d+)(?:, ([\d.]+)–([\d.]+)%(?: over (\d+) cases?)?)?\)$/.exec(rate!);
    const s =
      /^(≥ )?(-?[\d.]+) \(n=(\d+)(?:, (-?[\d.]+)–(-?[\d.]+)(?: over (\d+) cases?)?)?(?:, (\d+) partial)?\)$/.exec(
        mean!,
      );
    evals[evalId!] = clean({
      attempts,
      passed,
      failed,
      errored,
      skipped,
      ...(rate === "n/a"
        ? { rateN: "0" }
        : {
            rate: textNum(r![1]),
            rateN: r![2],
            rateLow: textNum(r![3]),
            rateHigh: textNum(r![4]),
            rateCases: r![5],
          }),
      ...(mean === "n/a"
        ? { meanN: "0", partial: "0" }
        : {
            mean: textNum(s![2]),
            meanN: s![3],
            meanLow: textNum(s![4]),
            meanHigh: textNum(s![5]),
            meanCases: s![6],
            partial: s![7] ?? "0",
            lowerBound: String(s![1] !== undefined),
          }),
    });
  }
  const head =
    /^(\d+) evals? · (\d+) (?:cases?|attempts?) · (\d+) passed · (\d+) failed · (\d+) errored · (\d+) skipped(?: · pass rate ([\d.]+)% \(n=(\d+)(?:, ([\d.]+)–([\d.]+)%(?: over (\d+) cases?)?)?\))?/m.exec(
      md,
    );
  if (!head) throw new Error(`no headline in the Markdown summary:\n${md}`);
  return {
    evals,
    totals: clean({
      attempts: head[2],
      passed: head[3],
      failed: head[4],
      errored: head[5],
      skipped: head[6],
      rate: textNum(head[7]),
      rateN: head[8],
      rateLow: textNum(head[9]),
      rateHigh: textNum(head[10]),
      rateCases: head[11],
    }),
  };
}

/** The console report (live, or `show`'s replay): each eval's closing line and the summary. */
export function fromConsole(text: string): Reading {
  const evals: Record<string, Figures> = {};
  let current: string | undefined;
  for (const line of text.split("\n")) {
    const head = /^(\S+) (?:suite|score|pass\/fail)\b/.exec(line);
    if (head) {
      current = head[1];
      continue;
    }
    const end =
      /^ {2}\d+ (?:cases?|attempts?): (\d+) passed, (\d+) failed, (\d+) errored, (\d+) skipped · (mean score (.+?)|score n\/a)(?: · judge: .*?)? · (?:[\d.]+ m?s|unknown)$/.exec(
        line,
      );
    if (end && current) {
      const [, passed, failed, errored, skipped, , mean] = end;
      const attempts = String(
        [passed, failed, errored, skipped].reduce((a, b) => a + Number(b), 0),
      );
      evals[current] = clean({
        attempts,
        passed,
        failed,
        errored,
        skipped,
        ...meanScoreText(mean ?? "n/a"),
      });
      current = undefined;
    }
  }
  const sum =
    /^ {2}\d+ evals?(?:[^·]*)? · (\d+) (?:cases?|attempts?) · (\d+) passed(?: \((.+?)\))? · (\d+) failed · (\d+) errored · (\d+) skipped$/m.exec(
      text,
    );
  if (!sum) throw new Error(`no summary line in the console report:\n${text}`);
  return {
    evals,
    totals: clean({
      attempts: sum[1],
      passed: sum[2],
      failed: sum[4],
      errored: sum[5],
      skipped: sum[6],
      ...(sum[3] ? passRateText(sum[3]) : { rateN: "0" }),
    }),
  };
}

export interface RunRowJson {
  attempts: number;
  passed: number;
  failed: number;
  errored: number;
  skipped: number;
  passRate: number | null;
  passRateInterval: { low: number; high: number } | null;
  passRateCases: number | null;
  interrupted: number;
  perEval: {
    evalId: string;
    passRate: number | null;
    passRateInterval: { low: number; high: number } | null;
    n: number;
    passRateCases: number | null;
    meanScore: number | null;
    meanScoreInterval: { low: number; high: number } | null;
    partialCases: number;
    meanScoreLowerBound: boolean;
  }[];
}

/** A line of `runs --json`, or of the viewer's /api/runs (one shape: src/viewer/api.ts). */
export function fromRunRow(row: RunRowJson): Reading {
  const evals: Record<string, Figures> = {};
  for (const e of row.perEval)
    evals[e.evalId] = clean({
      rate: pct(e.passRate),
      rateN: str(e.n),
      rateLow: pct(e.passRateInterval?.low),
      rateHigh: pct(e.passRateInterval?.high),
      rateCases: str(e.passRateCases),
      mean: num3(e.meanScore),
      meanLow: num3(e.meanScoreInterval?.low),
      meanHigh: num3(e.meanScoreInterval?.high),
      partial: str(e.partialCases),
      lowerBound: String(e.meanScoreLowerBound),
    });
  return {
    evals,
    totals: clean({
      attempts: str(row.attempts),
      passed: str(row.passed),
      failed: str(row.failed),
      errored: str(row.errored),
      skipped: str(row.skipped),
      rate: pct(row.passRate),
      rateN: str(row.attempts - row.skipped - row.interrupted),
      rateLow: pct(row.passRateInterval?.low),
      rateHigh: pct(row.passRateInterval?.high),
      rateCases: str(row.passRateCases),
    }),
  };
}

/** The viewer's /api/runs/:run: its eval table's figures, and the run's line. */
export function fromRunDetail(detail: {
  run: RunRowJson;
  evals: {
    evalId: string;
    attempts: number;
    passed: number;
    failed: number;
    errored: number;
    skipped: number;
    passRate: number | null;
    passRateInterval: { low: number; high: number } | null;
    meanScore: number | null;
    meanScoreInterval: { low: number; high: number } | null;
    scoredCases: number;
    partialCases: number;
  }[];
}): Reading {
  const evals: Record<string, Figures> = {};
  for (const e of detail.evals)
    evals[e.evalId] = clean({
      attempts: str(e.attempts),
      passed: str(e.passed),
      failed: str(e.failed),
      errored: str(e.errored),
      skipped: str(e.skipped),
      rate: pct(e.passRate),
      rateLow: pct(e.passRateInterval?.low),
      rateHigh: pct(e.passRateInterval?.high),
      mean: num3(e.meanScore),
      meanN: str(e.scoredCases),
      meanLow: num3(e.meanScoreInterval?.low),
      meanHigh: num3(e.meanScoreInterval?.high),
      partial: str(e.partialCases),
      lowerBound: String(e.partialCases > 0),
    });
  return { evals, totals: fromRunRow(detail.run).totals };
}

/** The texts of the Run page's eval table and of its summary line, as Chromium shows them. */
export interface RunPageText {
  rows: string[][];
  meta: string;
}

/** Figures read from the Run page of the web app (served, or exported as HTML). */
export function fromRunPage(page: RunPageText): Reading {
  const evals: Record<string, Figures> = {};
  const interval = /^(?:([\d.]+)%|—)(?: \[([\d.]+)%, ([\d.]+)%\])? n=(\d+)(?: \((\d+) cases?\))?$/;
  for (const [evalId, attempts, passed, failed, errored, skipped, rate, mean] of page.rows) {
    const r = interval.exec(rate!);
    if (!r) throw new Error(`not a pass rate on the Run page: ${rate}`);
    const s =
      /^(?:(≥ )?(-?[\d.]+)|—)(?: \[(-?[\d.]+), (-?[\d.]+)\])? n=(\d+)(?: \((\d+) cases?\))?(?:, (\d+) partial)?$/.exec(
        mean!,
      );
    if (!s) throw new Error(`not a mean score on the Run page: ${mean}`);
    evals[evalId!] = clean({
      attempts,
      passed,
      failed,
      errored,
      skipped,
      rate: textNum(r[1]),
      rateLow: textNum(r[2]),
      rateHigh: textNum(r[3]),
      rateN: r[4],
      rateCases: r[5],
      mean: textNum(s[2]),
      meanN: s[5],
      meanLow: textNum(s[3]),
      meanHigh: textNum(s[4]),
      meanCases: s[6],
      partial: s[7] ?? "0",
      ...(s[2] !== undefined ? { lowerBound: String(s[1] !== undefined) } : {}),
    });
  }
  const m =
    /pass rate (?:([\d.]+)%|—)(?: \[([\d.]+)%, ([\d.]+)%\])? n=(\d+)(?: \((\d+) cases?\))?/.exec(
      page.meta,
    );
  if (!m) throw new Error(`no pass rate on the Run page: ${page.meta}`);
  return {
    evals,
    totals: clean({
      rate: textNum(m[1]),
      rateLow: textNum(m[2]),
      rateHigh: textNum(m[3]),
      rateN: m[4],
      rateCases: m[5],
    }),
  };
}

/**
 * Where the surfaces disagree: one line per figure that two surfaces give differently, with what
 * each surface that gives it says ("eval qa rateN: json 6, runs 5"). Empty when they all agree.
 */
export function disagreements(readings: Record<string, Reading>): string[] {
  const seen = new Map<string, Map<string, string[]>>();
  const note = (where: string, figures: Figures, surface: string) => {
    for (const [name, value] of Object.entries(figures)) {
      const key = `${where} ${name}`;
      const values = seen.get(key) ?? new Map<string, string[]>();
      seen.set(key, values);
      values.set(value, [...(values.get(value) ?? []), surface]);
    }
  };
  for (const [surface, reading] of Object.entries(readings)) {
    for (const [evalId, figures] of Object.entries(reading.evals))
      note(`eval ${evalId}`, figures, surface);
    note("totals", reading.totals, surface);
  }
  const out: string[] = [];
  for (const [key, values] of seen)
    if (values.size > 1)
      out.push(
        `${key}: ${[...values].map(([value, surfaces]) => `${surfaces.join(", ")} ${value}`).join("; ")}`,
      );
  return out;
}
