import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { RunRow } from "../../src/viewer/api.js";
import type { RunCharts } from "../../src/viewer/charts.js";
import { h, pct } from "./dom.js";
import { sizeText } from "./numbers.js";
import { lowerBoundNote, type TrendPoint, trendColumns } from "./trend.js";

// Charts drawn by uPlot (bundled, canvas, no request). Every chart states its n; an interval is
// drawn as a band or a whisker, and evidence that is missing is counted aside, never as 0.

const BLUE = "#2f6fde";
const AMBER = "#b26a00";
const GREEN = "#1a7f37";
const SIZE = { width: 440, height: 170 };

const percentAxis = (): uPlot.Axis => ({
  values: (_u, splits) => splits.map((v) => `${Math.round(v * 100)}%`),
  size: 56,
});

function figure(
  caption: string,
  build: (el: HTMLElement) => void,
  note?: string,
  legend?: HTMLElement,
): HTMLElement {
  const plot = h("div", { class: "plot" });
  const el = h(
    "figure",
    { class: "chart" },
    h("figcaption", {}, caption),
    plot,
    legend,
    note ? h("p", { class: "muted small" }, note) : null,
  );
  build(plot);
  return el;
}

// uPlot's own legend lists the band bounds as series too, and is hidden: the lines are named here.
const trendLegend = (lowerBounds: boolean): HTMLElement =>
  h(
    "ul",
    { class: "legend small" },
    h("li", { class: "key-pass" }, "pass rate"),
    h("li", { class: "key-score" }, "mean score"),
    lowerBounds ? h("li", { class: "key-bound" }, "\u2265 lower bound of the mean score") : null,
    h("li", { class: "key-band" }, "95% bands"),
  );

/** The points of a line that no segment draws (no value beside them), shown when uPlot shows none. */
const isolated: uPlot.Series.Points.Filter = (u, si, show) => {
  if (show) return null;
  const ys = u.data[si]!;
  const has = (i: number) => ys[i] !== null && ys[i] !== undefined;
  const out: number[] = [];
  for (let i = 0; i < ys.length; i++) if (has(i) && !has(i - 1) && !has(i + 1)) out.push(i);
  return out;
};

/** Per eval (or only `evalId`'s): pass rate and mean score over the runs listed, with 95% bands. */
export function trendCharts(runs: RunRow[], evalId?: string | null): HTMLElement[] {
  const byEval = new Map<string, TrendPoint[]>();
  for (const run of [...runs].reverse())
    for (const e of run.perEval) {
      if (e.passRate === null || (evalId && e.evalId !== evalId)) continue;
      const points = byEval.get(e.evalId) ?? [];
      points.push({
        t: Date.parse(run.startedAt) / 1000,
        run: run.name ?? run.runId.slice(0, 8),
        e,
      });
      byEval.set(e.evalId, points);
    }
  const out: HTMLElement[] = [];
  for (const [evalId, points] of byEval) {
    if (points.length < 2) continue;
    const c = trendColumns(points);
    const data: uPlot.AlignedData = [
      c.t,
      c.passRate,
      c.passLow,
      c.passHigh,
      c.meanScore,
      c.scoreLow,
      c.scoreHigh,
      c.lowerBound,
    ];
    const note = lowerBoundNote(points);
    const bound = (label: string): uPlot.Series => ({
      label,
      stroke: "transparent",
      points: { show: false },
    });
    out.push(
      figure(
        `${evalId}: pass rate and mean score over ${points.length} runs (95% bands)`,
        (el) => {
          new uPlot(
            {
              ...SIZE,
              class: "trend",
              scales: { y: { range: [0, 1] } },
              axes: [{}, percentAxis()],
              series: [
                {},
                { label: "pass rate", stroke: BLUE, width: 1.5, value: (_u, v) => pct(v) },
                bound("pass low"),
                bound("pass high"),
                {
                  label: "mean score",
                  stroke: AMBER,
                  width: 1.5,
                  dash: [4, 2],
                  value: (_u, v) => (v === null ? "\u2014" : v.toFixed(3)),
                  // A lower bound leaves a gap: a run between two is still a point.
                  points: { filter: isolated },
                },
                bound("score low"),
                bound("score high"),
                {
                  // Lower bounds: hollow marks with "≥" above, joined to nothing.
                  label: "mean score \u2265",
                  stroke: AMBER,
                  width: 1.5,
                  paths: () => null,
                  points: { show: true, size: 8, width: 1.5, stroke: AMBER, fill: "#fff" },
                  value: (_u, v) => (v === null ? "\u2014" : `\u2265 ${v.toFixed(3)}`),
                },
              ],
              bands: [
                { series: [3, 2], fill: "rgba(47,111,222,0.15)" },
                { series: [6, 5], fill: "rgba(178,106,0,0.12)" },
              ],
              legend: { show: false },
              hooks: { draw: [markLowerBounds] },
            },
            data,
            el,
          );
        },
        note ?? undefined,
        trendLegend(note !== null),
      ),
    );
  }
  return out;
}

/** Writes "≥" above each lower bound of a trend chart (its last series). */
function markLowerBounds(u: uPlot): void {
  const si = u.series.length - 1;
  const ys = u.data[si]!;
  const ctx = u.ctx;
  ctx.save();
  ctx.fillStyle = AMBER;
  ctx.font = `${11 * devicePixelRatio}px sans-serif`;
  ctx.textAlign = "center";
  ctx.textBaseline = "bottom";
  ys.forEach((y, i) => {
    if (y === null || y === undefined) return;
    const x = u.valToPos(u.data[0][i]!, "x", true);
    ctx.fillText("\u2265", x, u.valToPos(y, "y", true) - 6 * devicePixelRatio);
  });
  ctx.restore();
}

/** Per eval: how the attempts' scores (earned / max) spread over ten bins. */
export function scoreHistograms(charts: RunCharts): HTMLElement[] {
  return charts.evals.map((e) => {
    const scored = e.bins.reduce((a, b) => a + b, 0);
    const aside = [
      e.partial ? `${e.partial} partial (lower bounds, binned as scored)` : "",
      e.unavailable ? `${e.unavailable} unavailable, not counted` : "",
    ].filter(Boolean);
    return figure(
      `${e.evalId}: score distribution, n=${scored}`,
      (el) => {
        new uPlot(
          {
            ...SIZE,
            class: "histogram",
            scales: {
              x: { time: false, range: [0, 1] },
              y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
            },
            axes: [{ values: (_u, splits) => splits.map((v) => v.toFixed(1)) }, { size: 56 }],
            series: [
              {},
              {
                label: "attempts",
                fill: "rgba(47,111,222,0.5)",
                stroke: BLUE,
                paths: uPlot.paths.bars!({ size: [0.92, 60] }),
                points: { show: false },
              },
            ],
            legend: { show: false },
          },
          [e.bins.map((_, i) => (i + 0.5) / e.bins.length), e.bins],
          el,
        );
      },
      aside.length ? aside.join("; ") : undefined,
    );
  });
}

/** Per eval: each scorer's match rate over the attempts it judged, with its 95% interval. */
export function scorerRates(charts: RunCharts): HTMLElement[] {
  const byEval = new Map<string, RunCharts["scorers"]>();
  for (const s of charts.scorers) byEval.set(s.evalId, [...(byEval.get(s.evalId) ?? []), s]);
  return [...byEval].map(([evalId, scorers]) => {
    // Judgments with no verdict are left out of the rates: say which and how many.
    const leftOut = scorers
      .filter((s) => s.unavailable > 0 || s.errored > 0)
      .map(
        (s) =>
          `${s.label}: ${[s.unavailable > 0 ? `${s.unavailable} unavailable` : "", s.errored > 0 ? `${s.errored} errored` : ""].filter(Boolean).join(", ")}`,
      );
    return figure(
      `${evalId}: pass rate per scorer (95% intervals)`,
      (el) => {
        const xs = scorers.map((_, i) => i);
        new uPlot(
          {
            ...SIZE,
            class: "scorers",
            scales: {
              x: { time: false, range: [-0.5, scorers.length - 0.5] },
              y: { range: [0, 1] },
            },
            axes: [
              {
                splits: () => xs,
                values: (_u, splits) =>
                  splits.map((i) => {
                    const s = scorers[i];
                    return s ? `${s.label} ${sizeText(s.judged, s.cases)}` : "";
                  }),
              },
              percentAxis(),
            ],
            series: [
              {},
              {
                label: "pass rate",
                fill: "rgba(26,127,55,0.45)",
                stroke: GREEN,
                paths: uPlot.paths.bars!({ size: [0.6, 80] }),
                points: { show: false },
              },
            ],
            legend: { show: false },
            hooks: {
              draw: [
                (u) => {
                  const ctx = u.ctx;
                  ctx.save();
                  ctx.strokeStyle = "#555";
                  ctx.lineWidth = 1.5 * devicePixelRatio;
                  scorers.forEach((s, i) => {
                    if (!s.passRateInterval) return;
                    const x = u.valToPos(i, "x", true);
                    const lo = u.valToPos(s.passRateInterval.low, "y", true);
                    const hi = u.valToPos(s.passRateInterval.high, "y", true);
                    const w = 6 * devicePixelRatio;
                    ctx.beginPath();
                    ctx.moveTo(x, lo);
                    ctx.lineTo(x, hi);
                    ctx.moveTo(x - w, lo);
                    ctx.lineTo(x + w, lo);
                    ctx.moveTo(x - w, hi);
                    ctx.lineTo(x + w, hi);
                    ctx.stroke();
                  });
                  ctx.restore();
                },
              ],
            },
          },
          [xs, scorers.map((s) => s.passRate)],
          el,
        );
      },
      leftOut.length ? `left out (no verdict): ${leftOut.join("; ")}` : undefined,
    );
  });
}
