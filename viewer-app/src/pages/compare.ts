import {
  changedCases,
  erroredTestName,
  evalsOnlyText,
  noIntervalText,
  notMcNemarText,
  passRateTestName,
  pText,
  scoreTestName,
  unlistedText,
} from "../../../src/compare/notes.js";
import type { Comparison, ScoreComparison } from "../../../src/compare/types.js";
import type { AttemptRecord } from "../../../src/eval/record.js";
import { plural } from "../../../src/plural.js";
import { shownId } from "../../../src/report/shown-id.js";
import type { ViewerComparison } from "../../../src/viewer/api.js";
import { get, otherThanHeld, STATIC } from "../data.js";
import { badge, enc, fail, fill, h, interval, notice, num, pct, section, seg } from "../dom.js";
import { caseHash, go, header, type PageHandle, type Route } from "../router.js";
import { diffView, valueView } from "../values.js";

type EvalComparison = Comparison["evals"][number];
type Stats = Comparison["overall"];

/** Two runs compared: the compare command's statistics, then each changed case with its diff. */
export function comparePage(root: HTMLElement, r: Route): PageHandle {
  const base = r.params.get("base");
  const head = r.params.get("head");
  const main = h("section", {});
  root.append(header("compare"), main);
  const back = () => go("#/");
  const held = otherThanHeld(base, head);
  if (held) {
    main.append(heldNotice(base, head, held));
    return { back };
  }
  if ((!base || !head) && !STATIC?.comparison) {
    main.append(h("p", {}, "Pick two runs on the runs page to compare them."));
    return { back };
  }
  main.append(h("p", { class: "muted" }, "comparing\u2026"));
  get<ViewerComparison>("/compare", { base, head }).then(
    (c) =>
      fill(
        main,
        h(
          "p",
          { class: "meta" },
          "base ",
          h("a", { href: `#/run/${enc(c.base.runId)}` }, c.base.name ?? c.base.runId.slice(0, 8)),
          " \u2192 head ",
          h("a", { href: `#/run/${enc(c.head.runId)}` }, c.head.name ?? c.head.runId.slice(0, 8)),
        ),
        h(
          "p",
          { class: c.decision.regression ? "regression" : "ok" },
          c.decision.regression
            ? `Regression: ${c.decision.reasons.join("; ")}`
            : `No significant regression at \u03b1 = ${c.alpha}.`,
        ),
        c.warnings.length || c.refNotes?.length
          ? h(
              "ul",
              { class: "warn" },
              (c.refNotes ?? []).map((note) => h("li", {}, note)),
              c.warnings.map((w) => h("li", {}, w.message)),
            )
          : null,
        statsView("all evals", c.overall),
        evalsOnly(c),
        c.evals.map((e) =>
          h("section", { class: "box" }, statsView(e.evalId, e), changesView(c, e)),
        ),
      ),
    (err: unknown) => fill(main, fail(err)),
  );
  return { back };
}

/**
 * A static export asked for a comparison other than the one it holds: which one it holds, and
 * a link to it (showing its own under the other runs' names would swap base and head unsaid).
 */
function heldNotice(
  base: string | null,
  head: string | null,
  held: NonNullable<ReturnType<typeof otherThanHeld>>,
): HTMLElement {
  const name = (run: Comparison["base"]) => run.name ?? run.runId.slice(0, 8);
  const q = new URLSearchParams({ base: held.base.runId, head: held.head.runId });
  return notice(
    `This export holds one comparison, base ${name(held.base)} \u2192 head ${name(held.head)} (niceeval export --baseline made it), not base ${base ?? "(none)"} \u2192 head ${head ?? "(none)"} as this link asks. `,
    h("a", { href: `#/compare?${q}` }, "Open the comparison it holds"),
    ".",
  );
}

/**
 * The pass rate's tests: McNemar's p with its counts; beside them, over clusters, the sign-flip
 * test the gate decides by; with trials, only that test, and why McNemar's p is not given.
 */
function passRateTests(pr: NonNullable<Stats["passRate"]>): string {
  const counts = `${pr.test.worse} worse, ${pr.test.better} better`;
  if (pr.decidedBy === "permutation")
    return `${passRateTestName(pr)} ${pText(pr.pValue)} (${counts}), the gate's: ${notMcNemarText(pr)}`;
  const mcnemar = `McNemar ${pText(pr.test.pValue)} (${counts})`;
  if (pr.decidedBy === "mcnemar") return mcnemar;
  return `${mcnemar}; over ${plural(pr.paired.clusters ?? 0, "cluster")}, sign-flip ${pText(pr.pValue)} (the gate's)`;
}

function statsView(title: string, s: Stats): HTMLElement {
  const t = s.transitions;
  const pr = s.passRate;
  const ms = s.meanScore;
  const left = s.leftOut.partialAttempts + s.leftOut.unavailableAttempts;
  return h(
    "div",
    { class: "stats" },
    h("h3", {}, title),
    h(
      "p",
      {},
      `${plural(s.pairs, "paired case")} \u00b7 ${t.passToFail} pass\u2192fail \u00b7 ${t.becameErrored} became errored \u00b7 ${t.failToPass} fail\u2192pass${t.passRateDown + t.passRateUp > 0 ? ` \u00b7 ${t.passRateDown} pass rate down \u00b7 ${t.passRateUp} pass rate up` : ""}${t.scoreDown + t.scoreUp > 0 ? ` \u00b7 ${t.scoreDown} score down \u00b7 ${t.scoreUp} score up` : ""} \u00b7 ${t.added} added \u00b7 ${t.removed} removed \u00b7 ${t.unchanged} unchanged \u00b7 ${plural(s.newFailures, "new failure")}`,
    ),
    pr
      ? h(
          "p",
          {},
          `pass rate ${pct(pr.base)}${interval(pr.baseInterval, pct)} \u2192 ${pct(pr.head)}${interval(pr.headInterval, pct)}, difference ${pct(pr.difference)}${interval(pr.paired.interval, pct)} (n=${pr.n}), ${passRateTests(pr)}${whyNoInterval(pr.paired, pr)}`,
        )
      : null,
    s.errored
      ? h(
          "p",
          { class: "muted" },
          `${plural(s.errored.cases, "case")} errored in every trial of a run, left out of the pass rate (counted as failures: ${erroredTestName(s.errored)} ${pText(s.errored.pValue)})`,
        )
      : null,
    ms
      ? h(
          "p",
          {},
          `mean score ${num(ms.meanBase)} \u2192 ${num(ms.meanHead)}, difference ${num(ms.mean)}${interval(ms.interval, num)} (n=${ms.n}${ms.interval ? `, ${ms.method}` : ""}), ${scoreTestName(ms)} ${pText(ms.pValue)}${scoreExtras(ms)}${whyNoInterval(ms, ms)}`,
        )
      : h("p", { class: "muted" }, "no scored pair"),
    left
      ? h(
          "p",
          { class: "muted" },
          `left out of the score: ${plural(s.leftOut.partialAttempts, "partial attempt")}, ${plural(s.leftOut.unavailableAttempts, "unavailable attempt")}`,
        )
      : null,
  );
}

/** The evals only one of the runs holds, named as the CLI names them; null when both hold each. */
function evalsOnly(c: Comparison): HTMLElement | null {
  const lines = [
    c.addedEvals.length ? evalsOnlyText("head", c.addedEvals) : null,
    c.removedEvals.length ? evalsOnlyText("base", c.removedEvals) : null,
  ].filter((line) => line !== null);
  return lines.length
    ? h(
        "ul",
        { class: "warn evals-only" },
        lines.map((l) => h("li", {}, l)),
      )
    : null;
}

/** The mean score's SE, correlation and MDE, as the CLI gives them (no SE for equal differences). */
function scoreExtras(d: NonNullable<Stats["meanScore"]>): string {
  const se = d.se === null || d.equalDifferences ? "" : `; SE ${num(d.se)}`;
  const r = d.correlation === null ? "" : `; r = ${d.correlation.toFixed(2)}`;
  const mde =
    d.mde === null || d.tooFew ? "" : `; MDE ${num(d.mde)} at ${Math.round(d.power * 100)}% power`;
  return `${se}${r}${mde}`;
}

/**
 * Why a difference shows no interval, after its test: a zero-width one, or one beside a test that
 * cannot reach alpha, would look like a finding.
 */
function whyNoInterval(
  d: { n: number; clusters: number | null },
  shown: Pick<ScoreComparison, "noInterval" | "tooFew" | "fewChanged" | "intervalSetAside">,
): string {
  const { noInterval, tooFew, fewChanged, intervalSetAside } = shown;
  return noInterval
    ? `; no interval: ${noIntervalText(d, noInterval, tooFew, fewChanged, intervalSetAside)}`
    : "";
}

function changesView(c: Comparison, e: EvalComparison): HTMLElement {
  if (!e.changes.length) return h("p", { class: "muted" }, "No case changed.");
  return h(
    "ol",
    { class: "changes" },
    e.changes.map((ch) => {
      const sides = h("div", { class: "sides" });
      let loaded = false;
      return h(
        "li",
        { class: ch.regression ? "reg" : "imp", "data-case": ch.caseId },
        h(
          "details",
          {
            ontoggle: () => {
              if (loaded) return;
              loaded = true;
              void loadSides(c, ch, sides);
            },
          },
          h(
            "summary",
            {},
            badge(ch.kind, ch.regression ? "failed" : "passed"),
            " ",
            h("b", {}, shownId(ch.caseId)),
            ` ${ch.base.passed}/${ch.base.trials} \u2192 ${ch.head.passed}/${ch.head.trials} passed`,
            ch.error ? h("span", { class: "err" }, ` ${ch.error}`) : null,
            " \u00b7 ",
            h(
              "a",
              { href: caseHash(c.base.runId, e.evalId, ch.caseId, ch.trials.base) },
              "base case",
            ),
            " \u00b7 ",
            h(
              "a",
              { href: caseHash(c.head.runId, e.evalId, ch.caseId, ch.trials.head) },
              "head case",
            ),
          ),
          ch.judgments.length
            ? h(
                "ul",
                { class: "small" },
                ch.judgments.map((j) =>
                  h(
                    "li",
                    {},
                    `${j.label}: `,
                    j.base ? j.base.state : "absent",
                    " \u2192 ",
                    j.head ? j.head.state : "absent",
                    j.head ? h("span", { class: "muted" }, ` \u2014 ${j.head.reason}`) : null,
                  ),
                ),
              )
            : null,
          sides,
        ),
      );
    }),
    e.changesTruncated
      ? h(
          "li",
          { class: "muted unlisted" },
          `\u2026 ${unlistedText(e.changes.length, changedCases(e.transitions))}`,
        )
      : null,
  );
}

type Change = EvalComparison["changes"][number];

/**
 * The outputs of the trials whose judgments the change lists (the first passing and first
 * failing ones), named by trial, and their diff.
 */
async function loadSides(c: Comparison, ch: Change, el: HTMLElement): Promise<void> {
  try {
    const path = (id: string) => `/runs/${seg(id)}/attempts/${seg(ch.evalId)}/${seg(ch.caseId)}`;
    const [b, hd] = await Promise.all(
      // A case added or removed between the runs is absent from one of them (404 there); any
      // other failure is shown as one.
      [c.base.runId, c.head.runId].map((id) =>
        get<{ trials: AttemptRecord[] }>(path(id)).catch((error: { status?: number }) => {
          if (error.status === 404) return undefined;
          throw error;
        }),
      ),
    );
    const pick = (trials: AttemptRecord[] | undefined, trial: number | undefined) =>
      trials?.find((t) => (t.trial ?? 0) === trial) ?? trials?.[0];
    const bo = pick(b?.trials, ch.trials.base);
    const ho = pick(hd?.trials, ch.trials.head);
    const name = (side: string, a: AttemptRecord | undefined, of: number) =>
      a && of > 1 ? `${side} trial ${(a.trial ?? 0) + 1}` : side;
    const [bn, hn] = [name("base", bo, ch.base.trials), name("head", ho, ch.head.trials)];
    fill(
      el,
      h(
        "div",
        { class: "cols" },
        section(`${bn} output`, bo ? valueView(bo.output, [ho?.output]) : "absent"),
        section(`${hn} output`, ho ? valueView(ho.output, [bo?.output]) : "absent"),
      ),
      bo && ho && bo.output !== undefined && ho.output !== undefined
        ? section(
            `Diff: ${bn} \u2192 ${hn}`,
            diffView(bo.output, ho.output, "the outputs are equal", [bn, hn]),
          )
        : null,
    );
  } catch (err) {
    fill(el, fail(err));
  }
}
