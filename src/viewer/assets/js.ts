/**
 * The viewer's one browser module, hand-written JavaScript kept as a string so that tsc ships
 * it in dist with no build step. The live server serves it as /app.js; the static export inlines
 * it. Every string from a run goes through textContent (never innerHTML), with control and
 * bidirectional characters made visible. No backticks or dollar-braces inside: it is a template.
 */
export const APP_JS = String.raw`"use strict";
// ---------------------------------------------------------------- data source
const DATA_EL = document.getElementById("niceeval-data");
const STATIC = DATA_EL ? JSON.parse(DATA_EL.textContent) : null;
const root = document.getElementById("app");
const ROW = 28;
const PAGE = 200;

async function get(path, params) {
  const clean = {};
  for (const [k, v] of Object.entries(params || {})) if (v !== undefined && v !== null && v !== "") clean[k] = v;
  if (STATIC) return staticApi(path.split("/").filter(Boolean).map(decodeURIComponent), clean);
  const qs = new URLSearchParams(clean).toString();
  const res = await fetch("/api" + path + (qs ? "?" + qs : ""), { credentials: "same-origin" });
  const body = await res.json();
  if (!res.ok) throw new Error(body.error || "HTTP " + res.status);
  return body;
}

// The static export answers the same API from the data embedded in the page.
function staticRun(ref) {
  const runs = STATIC.runs;
  const found = runs.find((r) => r.runId === ref) || runs.find((r) => r.name === ref) ||
    (ref === "latest" ? runs[0] : undefined) || runs.find((r) => ref.length >= 6 && r.runId.startsWith(ref));
  if (!found || !STATIC.details[found.runId]) throw new Error("this export does not include run " + ref);
  return found.runId;
}
function staticApi(parts, p) {
  const [first, id, sub, evalId, caseId] = parts;
  if (first === "runs" && id === undefined) {
    const runs = STATIC.runs.filter((r) => (!p.evalId || r.evals.includes(p.evalId)) &&
      (!p.branch || r.branch === p.branch) &&
      (!p.tag || String(p.tag).split("&").every((t) => { const i = t.indexOf("="); return r.tags[t.slice(0, i)] === t.slice(i + 1); })));
    return { runs };
  }
  if (first === "runs") {
    const runId = staticRun(id);
    const data = STATIC.attempts[runId] || { rows: [], records: [] };
    if (sub === undefined) return STATIC.details[runId];
    if (evalId === undefined) return staticPage(data, p);
    const trials = data.records.filter((r) => r.evalId === evalId && r.caseId === caseId)
      .sort((a, b) => (a.trial || 0) - (b.trial || 0));
    return { runId, evalId, caseId, trials };
  }
  if (first === "compare") {
    const c = STATIC.comparison;
    if (!c) throw new Error("this export has no comparison: export it with --baseline");
    return c;
  }
  throw new Error("no data for /" + parts.join("/"));
}
function staticPage(data, p) {
  const verdicts = p.verdict ? String(p.verdict).split(",") : null;
  const q = p.q ? String(p.q).toLowerCase() : null;
  let idx = [];
  for (let i = 0; i < data.rows.length; i++) {
    const row = data.rows[i];
    if (p.evalId && row.evalId !== p.evalId) continue;
    if (verdicts && !verdicts.includes(row.verdict)) continue;
    if (p.state && !row.states.includes(p.state)) continue;
    if (p.label && !row.labels.includes(p.label)) continue;
    if (q && !searchText(data, i).includes(q)) continue;
    idx.push(i);
  }
  const key = { score: (r) => (r.score.state !== "unavailable" && r.score.max > 0 ? r.score.earned / r.score.max : null),
    elapsed: (r) => r.elapsedMs, verdict: (r) => ["passed", "failed", "skipped", "errored"].indexOf(r.verdict) }[p.sort];
  if (key) {
    const dir = p.order === "desc" ? -1 : 1;
    idx.sort((a, b) => {
      const x = key(data.rows[a]); const y = key(data.rows[b]);
      if (x === y) return a - b;
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * dir;
    });
  } else if (p.order === "desc") idx.reverse();
  const offset = Number(p.offset || 0);
  const limit = Number(p.limit || PAGE);
  return { total: idx.length, offset, items: idx.slice(offset, offset + limit).map((i) => data.rows[i]) };
}
const searchCache = new Map();
function searchText(data, i) {
  let texts = searchCache.get(data);
  if (!texts) { texts = []; searchCache.set(data, texts); }
  if (texts[i] === undefined) {
    const r = data.records[i];
    texts[i] = [r.caseId, JSON.stringify(r.input), JSON.stringify(r.output), ...r.judgments.map((j) => j.reason)].join("\n").toLowerCase();
  }
  return texts[i];
}

// ---------------------------------------------------------------- DOM, safely
// Control characters (ANSI escapes) and bidirectional overrides are shown, never obeyed.
function visible(text) {
  return String(text).replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) => (c === "\u007f" ? "\u2421" : String.fromCharCode(0x2400 + c.charCodeAt(0))))
    .replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069\u061c]/g, (c) => "\u27e8U+" + c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0") + "\u27e9");
}
function h(tag, props, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "href") { if (String(v).startsWith("#")) el.setAttribute("href", v); }
    else if (k === "value") el.value = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  add(el, kids);
  return el;
}
function fill(el, ...kids) { el.replaceChildren(); add(el, kids); }
function add(el, kids) {
  for (const kid of kids) {
    if (kid === null || kid === undefined || kid === false) continue;
    if (Array.isArray(kid)) add(el, kid);
    else if (kid instanceof Node) el.appendChild(kid);
    else el.appendChild(document.createTextNode(visible(kid)));
  }
}
const enc = encodeURIComponent;
const pct = (x) => (x === null || x === undefined ? "\u2014" : (100 * x).toFixed(1) + "%");
const num = (x, d) => (x === null || x === undefined ? "\u2014" : x.toFixed(d === undefined ? 3 : d));
const interval = (iv, f) => (iv ? " [" + f(iv.low) + ", " + f(iv.high) + "]" : "");
const badge = (text, kind) => h("span", { class: "badge b-" + (kind || text) }, text);
const when = (iso) => (iso ? iso.slice(0, 19).replace("T", " ") : "");
function scoreText(s) {
  if (s.state === "unavailable") return "unavailable";
  const v = s.max > 0 ? (s.earned / s.max).toFixed(2) : "\u2014";
  return v + (s.state === "partial" ? " \u2265 (partial)" : "");
}
function fail(err) { return h("div", { class: "error", role: "alert" }, String(err && err.message ? err.message : err)); }

// ---------------------------------------------------------------- router (hash: works from file://)
let current = null;
let previousHash = null;
function route() {
  const hash = location.hash.slice(1) || "/";
  const q = hash.indexOf("?");
  const parts = (q < 0 ? hash : hash.slice(0, q)).split("/").filter(Boolean).map(decodeURIComponent);
  return { page: parts[0] || "runs", args: parts.slice(1), params: new URLSearchParams(q < 0 ? "" : hash.slice(q + 1)) };
}
function go(hash) { location.hash = hash; }
function setParams(params) {
  const r = route();
  const qs = params.toString();
  history.replaceState(null, "", "#/" + [r.page, ...r.args].map(enc).join("/") + (qs ? "?" + qs : ""));
}
function render() {
  if (current && current.stop) current.stop();
  const r = route();
  const page = { runs: runsPage, run: runPage, case: casePage, compare: comparePage }[r.page] || runsPage;
  root.replaceChildren();
  current = page(r) || null;
  document.title = "niceeval \u00b7 " + r.page;
}
window.addEventListener("hashchange", (e) => { previousHash = e.oldURL.split("#")[1] || null; render(); });
document.addEventListener("keydown", (e) => {
  const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || e.target instanceof HTMLTextAreaElement;
  if (e.key === "Escape") {
    if (typing) { e.target.blur(); return; }
    if (current && current.back) current.back();
    return;
  }
  if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === "/") {
    const search = document.querySelector("input[type=search]");
    if (search) { e.preventDefault(); search.focus(); }
    return;
  }
  if (current && current.key && current.key(e.key)) e.preventDefault();
});
function header(...crumbs) {
  return h("header", {}, h("a", { href: "#/", class: "logo" }, "niceeval"), crumbs.map((c) => [" / ", c]),
    STATIC ? h("span", { class: "muted right" }, "static export") : null);
}
function poll(fn, ms) {
  if (STATIC) return () => {};
  const t = setInterval(fn, ms);
  return () => clearInterval(t);
}

// ---------------------------------------------------------------- Runs
function runsPage(r) {
  const p = r.params;
  const selected = new Set();
  const body = h("tbody");
  const charts = h("section", { class: "charts" });
  const compareBtn = h("button", { disabled: true, onclick: () => {
    const ids = [...selected];
    const rows = lastRuns.filter((x) => ids.includes(x.runId)).sort((a, b) => (a.startedAt < b.startedAt ? -1 : 1));
    go("#/compare?base=" + enc(rows[0].runId) + "&head=" + enc(rows[1].runId));
  } }, "Compare 2 selected");
  const filter = (name, label) => h("label", {}, label + " ", h("input", { name, value: p.get(name) || "", size: 14, onchange: (e) => {
    if (e.target.value) p.set(name, e.target.value); else p.delete(name);
    setParams(p); load();
  } }));
  root.append(header("runs"), h("div", { class: "filters" }, filter("evalId", "eval"), filter("branch", "branch"), filter("tag", "tag k=v"), compareBtn),
    h("table", { class: "runs" }, h("thead", {}, h("tr", {}, ["", "run", "branch", "commit", "started", "status", "cases", "pass rate (95% CI)", "mean score"].map((t) => h("th", {}, t)))), body),
    charts);
  let lastRuns = [];
  async function load() {
    let data;
    try { data = await get("/runs", { evalId: p.get("evalId"), branch: p.get("branch"), tag: p.get("tag") }); } catch (err) { fill(body, h("tr", {}, h("td", { colspan: 9 }, fail(err)))); return; }
    lastRuns = data.runs;
    fill(body, ...data.runs.map((run) => h("tr", { class: "run-row", "data-run": run.runId },
      h("td", {}, h("input", { type: "checkbox", "aria-label": "select for compare", checked: selected.has(run.runId), onchange: (e) => {
        if (e.target.checked) selected.add(run.runId); else selected.delete(run.runId);
        compareBtn.disabled = selected.size !== 2;
      } })),
      h("td", {}, h("a", { href: "#/run/" + enc(run.runId) }, run.name || run.runId.slice(0, 8)), run.name ? h("span", { class: "muted" }, " " + run.runId.slice(0, 8)) : null),
      h("td", {}, run.branch || ""), h("td", { class: "mono" }, (run.commit || "").slice(0, 7) + (run.dirty ? "*" : "")),
      h("td", {}, when(run.startedAt)), h("td", {}, badge(run.status)), h("td", { class: "num" }, String(run.cases)),
      h("td", { class: "num" }, pct(run.passRate), h("span", { class: "muted" }, interval(run.passRateInterval, pct) + " n=" + (run.attempts - run.skipped))),
      h("td", { class: "num" }, num(run.meanScore), h("span", { class: "muted" }, " n=" + run.scoredAttempts)))));
    if (data.runs.length === 0) fill(body, h("tr", {}, h("td", { colspan: 9, class: "muted" }, "No runs stored yet: niceeval run writes one.")));
    fill(charts, ...trendCharts(data.runs));
  }
  load();
  const stop = poll(() => { if (lastRuns.some((x) => x.status === "running")) load(); }, 3000);
  return { stop, back: () => {} };
}

// Per eval: pass rate over time with its 95% Wilson band, drawn as inline SVG.
function trendCharts(runs) {
  const byEval = new Map();
  for (const run of [...runs].reverse()) for (const e of run.perEval) {
    if (e.passRate === null) continue;
    if (!byEval.has(e.evalId)) byEval.set(e.evalId, []);
    byEval.get(e.evalId).push({ t: run.startedAt, ...e });
  }
  const out = [];
  for (const [evalId, points] of byEval) if (points.length >= 2) out.push(h("figure", {}, h("figcaption", {}, evalId + ": pass rate (95% band) and mean score over " + points.length + " runs"), chart(points)));
  return out;
}
function wilson(p, n) {
  if (!(n > 0)) return [0, 1];
  const z = 1.959963984540054; const z2 = z * z; const d = 1 + z2 / n;
  const c = (p + z2 / (2 * n)) / d; const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / d;
  return [Math.max(0, c - half), Math.min(1, c + half)];
}
function svg(tag, attrs) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}
function chart(points) {
  const W = 420, H = 120, L = 30, B = 16;
  const x = (i) => L + (i * (W - L - 6)) / Math.max(1, points.length - 1);
  const y = (v) => 4 + (1 - v) * (H - B - 8);
  const s = svg("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img" });
  for (const v of [0, 0.5, 1]) { s.appendChild(svg("line", { x1: L, x2: W, y1: y(v), y2: y(v), class: "grid" })); const t = svg("text", { x: 2, y: y(v) + 4, class: "axis" }); t.textContent = v * 100 + "%"; s.appendChild(t); }
  const band = points.map((p, i) => [i, wilson(p.passRate, p.n)]);
  s.appendChild(svg("polygon", { class: "band", points: band.map(([i, b]) => x(i) + "," + y(b[1])).concat(band.reverse().map(([i, b]) => x(i) + "," + y(b[0]))).join(" ") }));
  s.appendChild(svg("polyline", { class: "line-pass", points: points.map((p, i) => x(i) + "," + y(p.passRate)).join(" ") }));
  const scored = points.map((p, i) => [i, p.meanScore]).filter(([, v]) => v !== null);
  if (scored.length) s.appendChild(svg("polyline", { class: "line-score", points: scored.map(([i, v]) => x(i) + "," + y(v)).join(" ") }));
  return s;
}

// ---------------------------------------------------------------- Run
function runPage(r) {
  const runId = r.args[0];
  const p = r.params;
  const summary = h("section", {});
  const count = h("span", { class: "muted", id: "count" });
  const table = virtualTable((offset) => get("/runs/" + enc(runId) + "/attempts", { ...Object.fromEntries(p), offset, limit: PAGE }), (row) => openCase(row));
  const openCase = (row) => go("#/case/" + [runId, row.evalId, row.caseId].map(enc).join("/") + "?trial=" + row.trial);
  const title = h("span", {}, runId.slice(0, 8));
  const sel = (name, label, options) => h("label", {}, label + " ", h("select", { name, onchange: (e) => update(name, e.target.value) },
    options.map(([v, t]) => h("option", { value: v, selected: (p.get(name) || "") === v }, t))));
  const evalSel = h("span");
  const labelSel = h("span");
  let timer = null;
  const search = h("input", { type: "search", name: "q", placeholder: "search ids, inputs, outputs, reasons (/)", value: p.get("q") || "", size: 36,
    oninput: (e) => { clearTimeout(timer); timer = setTimeout(() => update("q", e.target.value), 120); } });
  function update(name, value) {
    if (value) p.set(name, value); else p.delete(name);
    setParams(p);
    table.reset();
  }
  root.append(header(title), summary,
    h("div", { class: "filters" }, evalSel,
      sel("verdict", "verdict", [["", "any"], ["passed", "passed"], ["failed", "failed"], ["errored", "errored"], ["skipped", "skipped"], ["failed,errored", "not passed"]]),
      sel("state", "judgment", [["", "any"], ["matched", "matched"], ["mismatched", "mismatched"], ["unavailable", "unavailable"], ["errored", "errored"]]),
      labelSel, search,
      sel("sort", "sort", [["", "case"], ["score", "score"], ["elapsed", "elapsed"], ["verdict", "verdict"]]),
      sel("order", "order", [["", "asc"], ["desc", "desc"]]), count),
    h("div", { class: "thead vt-row" }, ["eval", "case", "trial", "verdict", "score", "ms", "why", "output"].map((t) => h("span", {}, t))),
    table.el);
  table.onTotal = (n) => { count.textContent = n.toLocaleString("en") + " attempts"; };
  let detail = null;
  async function loadDetail() {
    try { detail = await get("/runs/" + enc(runId)); } catch (err) { fill(summary, fail(err)); return; }
    const run = detail.run;
    title.textContent = run.name || run.runId.slice(0, 8);
    fill(summary, 
      h("p", { class: "meta" }, badge(run.status), " ", run.runId, " \u00b7 ", when(run.startedAt), run.branch ? " \u00b7 " + run.branch : "", run.commit ? " @ " + run.commit.slice(0, 7) : "",
        " \u00b7 pass rate ", pct(run.passRate), interval(run.passRateInterval, pct), " n=" + (run.attempts - run.skipped), " \u00b7 mean score ", num(run.meanScore)),
      h("table", { class: "evals" }, h("thead", {}, h("tr", {}, ["eval", "attempts", "passed", "failed", "errored", "skipped", "pass rate (95% CI)", "mean score (95% CI)", "trials", "flaky"].map((t) => h("th", {}, t)))),
        h("tbody", {}, detail.evals.map((e) => {
          const t = e.summary && e.summary.trials;
          return h("tr", {}, h("td", {}, e.evalId), ...[e.attempts, e.passed, e.failed, e.errored, e.skipped].map((v) => h("td", { class: "num" }, String(v))),
            h("td", { class: "num" }, pct(e.passRate), h("span", { class: "muted" }, interval(e.passRateInterval, pct))),
            h("td", { class: "num" }, num(e.meanScore), h("span", { class: "muted" }, interval(e.meanScoreInterval, num) + " n=" + e.scoredCases + (e.partialCases ? ", " + e.partialCases + " partial" : ""))),
            h("td", { class: "small" }, t ? t.byK.map((k) => "pass@" + k.k + " " + pct(k.passAtK.value) + " pass^" + k.k + " " + pct(k.passHatK.value)).join(" \u00b7 ") : ""),
            h("td", { class: "small" }, t ? String(t.flaky.count) + (t.flaky.cases.length ? ": " + t.flaky.cases.slice(0, 5).map((c) => c.caseId).join(", ") : "") : ""));
        }))));
    if (!evalSel.firstChild) {
      evalSel.append(sel("evalId", "eval", [["", "any"], ...detail.evals.map((e) => [e.evalId, e.evalId])]));
      labelSel.append(sel("label", "scorer", [["", "any"], ...detail.labels.map((l) => [l, l])]));
    }
  }
  loadDetail();
  table.reset();
  const stop = poll(() => { if (detail && detail.run.status === "running") { loadDetail(); table.refresh(); } }, 2000);
  return {
    stop,
    back: () => go("#/"),
    key: (k) => {
      if (k === "j") return table.move(1), true;
      if (k === "k") return table.move(-1), true;
      if (k === "Enter") { const row = table.selected(); if (row) openCase(row); return true; }
      return false;
    },
  };
}

// Only the rows in view are in the DOM; pages of 200 come from the server as they scroll in.
function virtualTable(fetchPage, onOpen) {
  const el = h("div", { class: "vt", tabindex: 0, role: "grid" });
  const spacer = h("div", { class: "vt-spacer" });
  const rows = h("div", { class: "vt-rows" });
  el.append(spacer, rows);
  let total = 0, pages = new Map(), generation = 0, sel = 0, frame = 0;
  const self = { el, onTotal: () => {} };
  function load(n) {
    if (pages.has(n)) return;
    const gen = generation;
    pages.set(n, null);
    fetchPage(n * PAGE).then((page) => {
      if (gen !== generation) return;
      pages.set(n, page.items);
      if (pages.size > 50) for (const key of pages.keys()) { if (key !== n) { pages.delete(key); break; } }
      total = page.total; self.onTotal(total); draw();
    }, (err) => { if (gen === generation) { fill(rows, fail(err)); } });
  }
  function rowAt(i) { const page = pages.get(Math.floor(i / PAGE)); return page ? page[i % PAGE] : undefined; }
  function draw() {
    frame = 0;
    const top = el.scrollTop, height = el.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / ROW) - 8);
    const last = Math.min(total, Math.ceil((top + height) / ROW) + 8);
    spacer.style.height = total * ROW + "px";
    rows.style.transform = "translateY(" + first * ROW + "px)";
    const out = [];
    for (let i = first; i < last; i++) {
      const row = rowAt(i);
      if (!row) { load(Math.floor(i / PAGE)); out.push(h("div", { class: "vt-row loading" }, "\u2026")); continue; }
      out.push(h("div", { class: "vt-row" + (i === sel ? " sel" : ""), "data-verdict": row.verdict, "data-case": row.caseId, onclick: () => { sel = i; draw(); }, ondblclick: () => onOpen(row) },
        h("span", {}, row.evalId), h("span", {}, h("a", { href: "#/case/" + [route().args[0], row.evalId, row.caseId].map(enc).join("/") + "?trial=" + row.trial }, row.caseId)),
        h("span", { class: "num" }, String(row.trial)), h("span", {}, badge(row.verdict)), h("span", { class: "num" }, scoreText(row.score)),
        h("span", { class: "num" }, row.elapsedMs.toFixed(0)), h("span", { class: "why" }, row.why || ""), h("span", { class: "out" }, row.output || "")));
    }
    if (total === 0 && pages.size > 0 && !pages.has(-1) && [...pages.values()].every((v) => v !== null)) out.push(h("div", { class: "muted empty" }, "No attempt matches."));
    fill(rows, ...out);
  }
  el.addEventListener("scroll", () => { if (!frame) frame = requestAnimationFrame(draw); });
  self.reset = () => { generation++; pages = new Map(); total = 0; sel = 0; el.scrollTop = 0; load(0); };
  self.refresh = () => { generation++; const keep = [...pages.keys()]; pages = new Map(); for (const n of keep) load(n); };
  self.move = (d) => {
    sel = Math.max(0, Math.min(total - 1, sel + d));
    if (sel * ROW < el.scrollTop) el.scrollTop = sel * ROW;
    else if ((sel + 1) * ROW > el.scrollTop + el.clientHeight) el.scrollTop = (sel + 1) * ROW - el.clientHeight;
    draw();
  };
  self.selected = () => rowAt(sel);
  return self;
}

// ---------------------------------------------------------------- Case
function casePage(r) {
  const [runId, evalId, caseId] = r.args;
  const runHash = "#/run/" + enc(runId);
  const back = () => { if (previousHash && previousHash.startsWith("/run/")) history.back(); else go(runHash); };
  const main = h("section", {});
  root.append(header(h("a", { href: runHash }, runId.slice(0, 8)), evalId, caseId), main);
  get("/runs/" + enc(runId) + "/attempts/" + enc(evalId) + "/" + enc(caseId)).then((data) => {
    if (!data.trials.length) { fill(main, fail("no attempt of " + evalId + "/" + caseId + " in this run")); return; }
    let chosen = Number(r.params.get("trial") || 0);
    if (!data.trials.some((t) => (t.trial || 0) === chosen)) chosen = data.trials[0].trial || 0;
    const judged = data.trials.filter((t) => t.verdict !== "skipped");
    const flaky = judged.some((t) => t.verdict === "passed") && judged.some((t) => t.verdict !== "passed");
    const detail = h("div", {});
    const cards = h("div", { class: "trials" });
    const show = () => {
      fill(cards, ...data.trials.map((t) => h("button", { class: "trial" + ((t.trial || 0) === chosen ? " sel" : ""), onclick: () => { chosen = t.trial || 0; show(); } },
        h("div", {}, "trial " + (t.trial || 0)), badge(t.verdict), h("div", { class: "num" }, scoreText(t.score)), h("div", { class: "muted small" }, t.elapsedMs.toFixed(0) + " ms"),
        h("div", { class: "out small" }, t.output === undefined ? "" : preview(t.output)))));
      fill(detail, attemptView(data.trials.find((t) => (t.trial || 0) === chosen)));
    };
    fill(main, 
      h("h2", {}, caseId, " ", data.trials.length > 1 ? h("span", { class: "muted" }, data.trials.length + " trials") : null, flaky ? badge("flaky") : null),
      cards, detail);
    show();
  }, (err) => fill(main, fail(err)));
  return { back };
}
function preview(v) {
  if (isTruncated(v)) return "[truncated, " + v.bytes + " bytes]";
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s === undefined ? "" : s.slice(0, 120);
}
const isTruncated = (v) => typeof v === "object" && v !== null && v["~truncated"] === true;
function section(title, ...kids) { return h("section", { class: "box" }, h("h3", {}, title), kids); }
function attemptView(a) {
  return h("div", {},
    a.error ? section("Error", h("pre", { class: "err" }, a.error.where + ": " + a.error.message)) : null,
    a.skipReason ? section("Skipped", h("p", {}, a.skipReason)) : null,
    h("div", { class: "cols" }, section("Input", valueView(a.input)), section("Expected", valueView(a.expected)), section("Output", valueView(a.output))),
    a.output !== undefined && a.expected !== undefined ? section("Diff: expected \u2192 output", diffView(a.expected, a.output)) : null,
    section("Judgments", judgmentsView(a.judgments), a.score.reasons.length ? h("ul", { class: "small" }, a.score.reasons.map((x) => h("li", {}, x))) : null,
      h("p", {}, "score ", h("b", {}, scoreText(a.score)), " \u00b7 earned " + a.score.earned + " of " + a.score.max + " (" + a.score.state + ")")),
    a.trace ? section("Trace", traceView(a.trace)) : section("Trace", h("p", { class: "muted" }, "No trace reported.")),
    section("Usage", usageView(a.usage)),
    a.metadata ? section("Metadata", jsonTree(a.metadata, 0)) : null);
}
function textOf(v) { return typeof v === "string" ? v : JSON.stringify(v, null, 2); }
function valueView(v) {
  if (v === undefined) return h("p", { class: "muted" }, "not recorded");
  if (isTruncated(v)) return h("div", {}, h("p", {}, badge("truncated", "truncated"), " " + v.bytes.toLocaleString("en") + " bytes in full; the first " + v.head.length.toLocaleString("en") + " characters:"), h("pre", {}, v.head));
  return h("div", {}, h("pre", {}, textOf(v)), typeof v === "object" && v !== null ? h("details", {}, h("summary", {}, "JSON tree"), jsonTree(v, 0)) : null);
}
function jsonTree(v, depth) {
  if (isTruncated(v)) return h("span", {}, badge("truncated", "truncated"), " " + v.bytes + " bytes: " + v.head.slice(0, 200));
  if (v === null || typeof v !== "object") return h("span", { class: "j-" + (v === null ? "null" : typeof v) }, JSON.stringify(v) === undefined ? String(v) : JSON.stringify(v));
  const entries = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
  const shown = entries.slice(0, 500);
  return h("details", { class: "jt", open: depth < 2 }, h("summary", {}, Array.isArray(v) ? "[" + entries.length + "]" : "{" + entries.length + "}"),
    h("ul", {}, shown.map(([k, x]) => h("li", {}, h("span", { class: "j-key" }, String(k)), ": ", jsonTree(x, depth + 1))),
      entries.length > shown.length ? h("li", { class: "muted" }, "\u2026 " + (entries.length - shown.length) + " more") : null));
}
// Line diff by longest common subsequence; large texts are compared by their first lines only.
function diffView(a, b) {
  if (isTruncated(a) || isTruncated(b)) return h("p", { class: "muted" }, "not diffed: a value is truncated");
  const x = textOf(a).split("\n").slice(0, 1500), y = textOf(b).split("\n").slice(0, 1500);
  if (x.join("\n") === y.join("\n")) return h("p", { class: "muted" }, "output equals expected");
  const n = x.length, m = y.length, L = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) L[i][j] = x[i] === y[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  const out = [];
  let i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) { out.push(h("div", { class: "d-same" }, "  " + x[i])); i++; j++; }
    else if (i < n && (j >= m || L[i + 1][j] >= L[i][j + 1])) { out.push(h("div", { class: "d-del" }, "- " + x[i])); i++; }
    else { out.push(h("div", { class: "d-add" }, "+ " + y[j])); j++; }
  }
  return h("pre", { class: "diff" }, out);
}
function judgmentsView(js) {
  if (!js.length) return h("p", { class: "muted" }, "No judgment.");
  return h("table", { class: "judgments" }, h("thead", {}, h("tr", {}, ["state", "label", "source", "gate", "points", "earned", "value", "reason"].map((t) => h("th", {}, t)))),
    h("tbody", {}, js.map((j) => [
      h("tr", { class: "j-" + j.state, "data-state": j.state }, h("td", {}, badge(j.state)), h("td", {}, j.label), h("td", { class: "muted" }, j.source), h("td", {}, j.gate ? "gate" : ""),
        h("td", { class: "num" }, String(j.points)),
        h("td", { class: "num" }, j.earned === null ? h("span", { class: "unavail" }, j.state === "unavailable" ? "unavailable" : "\u2014 (" + j.state + ")") : String(j.earned)),
        h("td", { class: "num" }, j.value === undefined || j.value === null ? "" : num(j.value)),
        h("td", { class: "reason" }, j.state === "unavailable" ? "unavailable: " : "", j.reason)),
      j.detail !== undefined || j.judge ? h("tr", { class: "j-detail" }, h("td", { colspan: 8 }, h("details", {}, h("summary", {}, "detail" + (j.judge ? " \u00b7 judge: " + j.judge.calls + " calls, " + j.judge.cachedCalls + " cached, " + (j.judge.inputTokens + j.judge.outputTokens) + " tokens, " + j.judge.latencyMs.toFixed(0) + " ms" : "")),
        j.detail !== undefined ? jsonTree(j.detail, 1) : null))) : null])));
}
function traceView(trace) {
  return h("ol", { class: "trace" }, trace.steps.map((s) => s.kind === "message"
    ? h("li", { class: "t-msg" }, h("b", {}, s.role), ": ", typeof s.content === "string" ? h("pre", {}, s.content) : jsonTree(s.content, 1))
    : h("li", { class: "t-tool" }, h("details", { open: true }, h("summary", {}, "tool ", h("b", {}, s.name), s.error ? badge("error", "errored") : null),
      h("div", {}, "input: ", jsonTree(s.input, 1)), s.output !== undefined ? h("div", {}, "output: ", jsonTree(s.output, 1)) : null, s.error ? h("pre", { class: "err" }, s.error) : null))));
}
function evidence(e) { return e.state === "available" ? String(e.value) : h("span", { class: "unavail" }, "unavailable (" + e.reason + ")"); }
function usageView(u) {
  const a = u.app, j = u.judge;
  return h("table", { class: "usage" }, h("tbody", {},
    h("tr", {}, h("th", {}, "app"), h("td", {}, "input tokens ", evidence(a.inputTokens)), h("td", {}, "output tokens ", evidence(a.outputTokens)), h("td", {}, "total ", evidence(a.totalTokens)), h("td", {}, "cost $ ", evidence(a.costUsd))),
    h("tr", {}, h("th", {}, "judge"), h("td", {}, j.calls + " calls (" + j.cachedCalls + " cached, " + j.retries + " retries)"), h("td", {}, "tokens " + j.inputTokens + " in / " + j.outputTokens + " out"), h("td", {}, j.latencyMs.toFixed(0) + " ms"), h("td", {}, j.costUsd === undefined ? "cost not priced" : "$" + j.costUsd.toFixed(4)))));
}

// ---------------------------------------------------------------- Compare
function comparePage(r) {
  const base = r.params.get("base"), head = r.params.get("head");
  const main = h("section", {});
  root.append(header("compare"), main);
  if (!base || !head) { main.append(h("p", {}, "Pick two runs on the runs page to compare them.")); return { back: () => go("#/") }; }
  main.append(h("p", { class: "muted" }, "comparing\u2026"));
  get("/compare", { base, head }).then((c) => {
    fill(main, 
      h("p", { class: "meta" }, "base ", h("a", { href: "#/run/" + enc(c.base.runId) }, c.base.name || c.base.runId.slice(0, 8)), " \u2192 head ", h("a", { href: "#/run/" + enc(c.head.runId) }, c.head.name || c.head.runId.slice(0, 8))),
      h("p", { class: c.decision.regression ? "regression" : "ok" }, c.decision.regression ? "Regression: " + c.decision.reasons.join(" ") : "No significant regression at \u03b1 = " + c.alpha + "."),
      c.warnings.length ? h("ul", { class: "warn" }, c.warnings.map((w) => h("li", {}, w.message))) : null,
      statsView("all evals", c.overall),
      c.evals.map((e) => h("section", { class: "box" }, statsView(e.evalId, e), changesView(c, e))));
  }, (err) => fill(main, fail(err)));
  return { back: () => go("#/") };
}
function statsView(title, s) {
  const t = s.transitions, pr = s.passRate, ms = s.meanScore;
  return h("div", { class: "stats" }, h("h3", {}, title),
    h("p", {}, s.pairs + " paired cases \u00b7 " + t.passToFail + " pass\u2192fail \u00b7 " + t.becameErrored + " became errored \u00b7 " + t.failToPass + " fail\u2192pass \u00b7 " + t.added + " added \u00b7 " + t.removed + " removed \u00b7 " + t.unchanged + " unchanged"),
    pr ? h("p", {}, "pass rate " + pct(pr.base) + interval(pr.baseInterval, pct) + " \u2192 " + pct(pr.head) + interval(pr.headInterval, pct) + ", difference " + pct(pr.difference) + interval(pr.paired.interval, pct) + " (n=" + pr.n + "), McNemar p = " + pr.test.pValue.toPrecision(3) + " (" + pr.test.worse + " worse, " + pr.test.better + " better)") : null,
    ms ? h("p", {}, "mean score " + num(ms.meanBase) + " \u2192 " + num(ms.meanHead) + ", difference " + num(ms.mean) + interval(ms.interval, num) + " (n=" + ms.n + ", " + ms.method + ")") : h("p", { class: "muted" }, "no scored pair"),
    s.leftOut.partialAttempts + s.leftOut.unavailableAttempts ? h("p", { class: "muted" }, "left out of the score: " + s.leftOut.partialAttempts + " partial, " + s.leftOut.unavailableAttempts + " unavailable attempts") : null);
}
function changesView(c, e) {
  if (!e.changes.length) return h("p", { class: "muted" }, "No case changed.");
  return h("ol", { class: "changes" }, e.changes.map((ch) => {
    const sides = h("div", { class: "sides" });
    let loaded = false;
    return h("li", { class: ch.regression ? "reg" : "imp", "data-case": ch.caseId },
      h("details", { ontoggle: () => { if (!loaded) { loaded = true; loadSides(c, e.evalId, ch.caseId, sides); } } },
        h("summary", {}, badge(ch.kind, ch.regression ? "failed" : "passed"), " ", h("b", {}, ch.caseId),
          " " + ch.base.passed + "/" + ch.base.trials + " \u2192 " + ch.head.passed + "/" + ch.head.trials + " passed", ch.error ? h("span", { class: "err" }, " " + ch.error) : null),
        ch.judgments.length ? h("ul", { class: "small" }, ch.judgments.map((j) => h("li", {}, j.label + ": ", j.base ? j.base.state : "absent", " \u2192 ", j.head ? j.head.state : "absent", j.head ? h("span", { class: "muted" }, " \u2014 " + j.head.reason) : null))) : null,
        sides));
  }), e.changesTruncated ? h("li", { class: "muted" }, "\u2026 more changes not listed") : null);
}
async function loadSides(c, evalId, caseId, el) {
  try {
    const [b, hd] = await Promise.all([c.base.runId, c.head.runId].map((id) => get("/runs/" + enc(id) + "/attempts/" + enc(evalId) + "/" + enc(caseId))));
    const first = (d) => d.trials[0];
    const bo = first(b), ho = first(hd);
    fill(el, h("div", { class: "cols" }, section("base output", bo ? valueView(bo.output) : "absent"), section("head output", ho ? valueView(ho.output) : "absent")),
      bo && ho && bo.output !== undefined && ho.output !== undefined ? section("Diff: base \u2192 head", diffView(bo.output, ho.output)) : null);
  } catch (err) { fill(el, fail(err)); }
}

render();
`;
