import type { AttemptRecord, Judgment, Trace } from "../../../src/eval/record.js";
import { plural } from "../../../src/plural.js";
import { formatMs, judgeCostText, judgeTokensText } from "../../../src/report/format.js";
import { shownId } from "../../../src/report/shown-id.js";
import { get } from "../data.js";
import { badge, enc, fail, fill, h, notice, num, scoreText, section, seg } from "../dom.js";
import { go, header, type PageHandle, previous, type Route, setParams } from "../router.js";
import { diffView, jsonTree, preview, valueView } from "../values.js";

/** A case: its trials side by side, and the chosen trial's values, judgments, trace and usage. */
export function casePage(root: HTMLElement, r: Route): PageHandle {
  if (r.args.length < 3) return noCasePage(root, r.args);
  const [runId = "", evalId = "", caseId = ""] = r.args;
  const runHash = `#/run/${enc(runId)}`;
  const back = () => {
    if (previous()?.startsWith("/run/")) history.back();
    else go(runHash);
  };
  const main = h("section", {});
  root.append(
    header(h("a", { href: runHash }, runId.slice(0, 8)), shownId(evalId), shownId(caseId)),
    main,
  );
  get<{ trials: AttemptRecord[] }>(
    `/runs/${seg(runId)}/attempts/${seg(evalId)}/${seg(caseId)}`,
  ).then(
    (data) => {
      const first = data.trials[0];
      if (!first) {
        fill(main, fail(`no attempt of ${evalId}/${caseId} in this run`));
        return;
      }
      const asked = trialOf(r.params.get("trial"), data.trials);
      let chosen = asked.chosen;
      const judged = data.trials.filter((t) => t.verdict !== "skipped");
      const flaky =
        judged.some((t) => t.verdict === "passed") && judged.some((t) => t.verdict !== "passed");
      const detail = h("div", {});
      const cards = h("div", { class: "trials" });
      const card = (t: AttemptRecord) =>
        h(
          "button",
          {
            class: `trial${(t.trial ?? 0) === chosen ? " sel" : ""}`,
            onclick: () => {
              chosen = t.trial ?? 0;
              asked.notice?.remove();
              // The trial shown is in the URL, so a reload or a copied link shows it again.
              r.params.set("trial", String(chosen));
              setParams(r.params);
              show();
            },
          },
          h("div", {}, `trial ${(t.trial ?? 0) + 1}`),
          badge(t.verdict),
          h("div", { class: "num" }, scoreText(t.score)),
          h("div", { class: "muted small" }, formatMs(t.elapsedMs)),
          h(
            "div",
            { class: "out small" },
            t.output === undefined ? "" : preview(t.output, [t.expected]),
          ),
        );
      const show = () => {
        fill(cards, data.trials.map(card));
        fill(detail, attemptView(data.trials.find((t) => (t.trial ?? 0) === chosen) ?? first));
      };
      fill(
        main,
        h(
          "h2",
          {},
          caseId,
          " ",
          data.trials.length > 1
            ? h("span", { class: "muted" }, `${data.trials.length} trials`)
            : null,
          flaky ? badge("flaky") : null,
        ),
        asked.notice,
        cards,
        detail,
      );
      show();
    },
    (err: unknown) => fill(main, fail(err)),
  );
  return { back };
}

/**
 * A case link cut short (`#/case/<run>/<eval>`, without its case): it names no case to ask the
 * server for; the page says so and links to the run it names, or to the runs.
 */
function noCasePage(root: HTMLElement, [runId, evalId]: string[]): PageHandle {
  const to = runId === undefined ? "#/" : `#/run/${enc(runId)}`;
  const named =
    runId === undefined
      ? "no run"
      : `run ${JSON.stringify(runId)}${evalId === undefined ? "" : ` and eval ${JSON.stringify(evalId)}`}, no case`;
  root.append(
    header("case"),
    h(
      "div",
      { class: "error", role: "alert" },
      `This link names no case: a case's address is #/case/<run>/<eval>/<case>, and this one names ${named} (a link cut short?). `,
      h("a", { href: to }, runId === undefined ? "Go to the runs" : `Go to run ${runId}`),
      ".",
    ),
  );
  return { back: () => go(to) };
}

/**
 * The trial `?trial=` names (numbered from 0, shown from 1), or the first with a notice naming
 * the trials that exist when it names none of them.
 */
function trialOf(
  asked: string | null,
  trials: AttemptRecord[],
): { chosen: number; notice: HTMLElement | null } {
  const numbers = trials.map((t) => t.trial ?? 0);
  const first = numbers[0] ?? 0;
  if (asked === null) return { chosen: first, notice: null };
  const n = /^\d+$/.test(asked) ? Number(asked) : Number.NaN;
  if (numbers.includes(n)) return { chosen: n, notice: null };
  const named = numbers.map((t) => `?trial=${t} (trial ${t + 1})`);
  const list = named.length > 1 ? `${named.slice(0, -1).join(", ")} and ${named.at(-1)}` : named[0];
  return {
    chosen: first,
    notice: notice(
      `?trial=${asked} names no trial of this case; ${named.length > 1 ? "its trials are" : "its trial is"} ${list}. Showing trial ${first + 1}.`,
    ),
  };
}

function attemptView(a: AttemptRecord): HTMLElement {
  return h(
    "div",
    {},
    a.error
      ? section(
          "Error",
          // The message names one frame; the stack, when the record kept it, shows every caller.
          h(
            "pre",
            { class: "err" },
            `${a.error.where}: ${a.error.message}${a.error.stack ? `\n${a.error.stack}` : ""}`,
          ),
        )
      : null,
    a.skipReason ? section("Skipped", h("p", {}, a.skipReason)) : null,
    h(
      "div",
      { class: "cols" },
      section("Input", valueView(a.input)),
      section("Expected", valueView(a.expected, [a.output])),
      section("Output", valueView(a.output, [a.expected])),
    ),
    a.output !== undefined && a.expected !== undefined
      ? section("Diff: expected \u2192 output", diffView(a.expected, a.output))
      : null,
    section(
      "Judgments",
      judgmentsView(a.judgments),
      a.score.reasons.length
        ? h(
            "ul",
            { class: "small" },
            a.score.reasons.map((x) => h("li", {}, x)),
          )
        : null,
      h(
        "p",
        {},
        "score ",
        h("b", {}, scoreText(a.score)),
        ` \u00b7 earned ${a.score.earned} of ${a.score.max} (${a.score.state})`,
      ),
    ),
    section(
      "Trace",
      a.trace ? traceView(a.trace) : h("p", { class: "muted" }, "No trace reported."),
    ),
    section("Usage", usageView(a.usage)),
    a.metadata ? section("Metadata", jsonTree(a.metadata, 0)) : null,
  );
}

const JUDGMENT_COLUMNS = [
  "state",
  "label",
  "source",
  "gate",
  "points",
  "earned",
  "value",
  "reason",
];

function judgmentsView(js: Judgment[]): HTMLElement {
  if (!js.length) return h("p", { class: "muted" }, "No judgment.");
  const earned = (j: Judgment) =>
    j.earned === null
      ? h(
          "span",
          { class: "unavail" },
          j.state === "unavailable" ? "unavailable" : `\u2014 (${j.state})`,
        )
      : String(j.earned);
  const audit = (j: Judgment) =>
    j.judge
      ? ` \u00b7 judge: ${plural(j.judge.calls, "call")}, ${j.judge.cachedCalls} cached, ${j.judge.unreportedCalls ? judgeTokensText(j.judge) : plural(j.judge.inputTokens + j.judge.outputTokens, "token")}, ${j.judge.latencyMs.toFixed(0)} ms`
      : "";
  return h(
    "table",
    { class: "judgments" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        JUDGMENT_COLUMNS.map((t) => h("th", {}, t)),
      ),
    ),
    h(
      "tbody",
      {},
      js.map((j) => [
        h(
          "tr",
          { class: `j-${j.state}`, "data-state": j.state },
          h("td", {}, badge(j.state)),
          h("td", {}, j.label),
          h("td", { class: "muted" }, j.source),
          h("td", {}, j.gate ? "gate" : ""),
          h("td", { class: "num" }, String(j.points)),
          h("td", { class: "num" }, earned(j)),
          h("td", { class: "num" }, j.value === undefined || j.value === null ? "" : num(j.value)),
          h("td", { class: "reason" }, j.state === "unavailable" ? "unavailable: " : "", j.reason),
        ),
        j.detail !== undefined || j.judge
          ? h(
              "tr",
              { class: "j-detail" },
              h(
                "td",
                { colspan: 8 },
                h(
                  "details",
                  {},
                  h("summary", {}, `detail${audit(j)}`),
                  j.detail !== undefined ? jsonTree(j.detail, 1) : null,
                ),
              ),
            )
          : null,
      ]),
    ),
  );
}

function traceView(trace: Trace): HTMLElement {
  return h(
    "ol",
    { class: "trace" },
    trace.steps.map((s) =>
      s.kind === "message"
        ? h(
            "li",
            { class: "t-msg" },
            h("b", {}, s.role),
            ": ",
            typeof s.content === "string" ? h("pre", {}, s.content) : jsonTree(s.content, 1),
          )
        : h(
            "li",
            { class: "t-tool" },
            h(
              "details",
              { open: true },
              h(
                "summary",
                {},
                "tool ",
                h("b", {}, s.name),
                s.error ? badge("error", "errored") : null,
              ),
              h("div", {}, "input: ", jsonTree(s.input, 1)),
              s.output !== undefined ? h("div", {}, "output: ", jsonTree(s.output, 1)) : null,
              s.error ? h("pre", { class: "err" }, s.error) : null,
            ),
          ),
    ),
  );
}

type Evidence = { state: "available"; value: number } | { state: "unavailable"; reason: string };
const evidence = (e: Evidence) =>
  e.state === "available"
    ? String(e.value)
    : h("span", { class: "unavail" }, `unavailable (${e.reason})`);

function usageView(u: AttemptRecord["usage"]): HTMLElement {
  const a = u.app;
  const j = u.judge;
  return h(
    "table",
    { class: "usage" },
    h(
      "tbody",
      {},
      h(
        "tr",
        {},
        h("th", {}, "app"),
        h("td", {}, "input tokens ", evidence(a.inputTokens)),
        h("td", {}, "output tokens ", evidence(a.outputTokens)),
        h("td", {}, "total ", evidence(a.totalTokens)),
        h("td", {}, "cost $ ", evidence(a.costUsd)),
      ),
      h(
        "tr",
        {},
        h("th", {}, "judge"),
        h(
          "td",
          {},
          `${plural(j.calls, "call")} (${j.cachedCalls} cached, ${j.retries} ${j.retries === 1 ? "retry" : "retries"})`,
        ),
        h("td", {}, judgeTokensText(j)),
        h("td", {}, `${j.latencyMs.toFixed(0)} ms`),
        h("td", {}, judgeCostText(j) ?? "cost not priced"),
      ),
    ),
  );
}
