/** The viewer's stylesheet: system fonts only, nothing fetched. */
export const APP_CSS = `:root { color-scheme: light dark; --fg: #1d2430; --muted: #6a7382; --bg: #fff; --line: #e3e6ea; --pass: #1a7f37; --fail: #c62828; --err: #8e24aa; --unav: #b26a00; --sel: #e8f0fe; }
@media (prefers-color-scheme: dark) { :root { --fg: #d8dde5; --muted: #8b94a3; --bg: #14171c; --line: #2a2f37; --sel: #22314a; } }
* { box-sizing: border-box; }
body { margin: 0; padding: 0 16px 24px; font: 13px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
a { color: #2f6fde; text-decoration: none; } a:hover { text-decoration: underline; }
header { padding: 10px 0; border-bottom: 1px solid var(--line); margin-bottom: 10px; font-size: 15px; display: flex; gap: 4px; align-items: baseline; }
.logo { font-weight: 700; } .right { margin-left: auto; }
.muted { color: var(--muted); } .small { font-size: 12px; } .mono, pre { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; }
table { border-collapse: collapse; width: 100%; margin: 6px 0 12px; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); } .num { text-align: right; font-variant-numeric: tabular-nums; }
.filters { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; margin: 8px 0; }
input, select, button { font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 4px; padding: 3px 6px; }
button { cursor: pointer; } button:disabled { opacity: .5; cursor: default; }
.badge { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 11px; border: 1px solid currentColor; }
.b-passed, .b-matched, .b-finished, .b-fail-to-pass { color: var(--pass); } .b-failed, .b-mismatched, .b-pass-to-fail { color: var(--fail); }
.b-errored, .b-crashed, .b-became-errored { color: var(--err); } .b-unavailable, .b-truncated, .b-flaky, .b-running, .b-interrupted { color: var(--unav); }
.b-skipped { color: var(--muted); }
.unavail { color: var(--unav); font-style: italic; }
.vt { height: calc(100vh - 300px); min-height: 320px; overflow: auto; position: relative; border: 1px solid var(--line); contain: strict; }
.vt:focus { outline: 2px solid #2f6fde55; }
.vt-spacer { width: 1px; } .vt-rows { position: absolute; top: 0; left: 0; right: 0; will-change: transform; }
.vt-row { display: grid; grid-template-columns: 120px 160px 44px 84px 110px 60px 1fr 1fr; gap: 8px; height: 28px; line-height: 28px; padding: 0 8px; border-bottom: 1px solid var(--line); white-space: nowrap; cursor: default; }
.vt-row > span { overflow: hidden; text-overflow: ellipsis; }
.vt-row.sel { background: var(--sel); } .thead { color: var(--muted); font-weight: 600; border: 0; }
.empty { padding: 12px; }
pre { white-space: pre-wrap; word-break: break-word; margin: 4px 0; max-height: 420px; overflow: auto; background: #8881; padding: 6px; border-radius: 4px; }
.cols { display: grid; grid-template-columns: repeat(auto-fit, minmax(280px, 1fr)); gap: 10px; }
.box { border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; margin: 8px 0; } .box h3 { margin: 4px 0; font-size: 13px; }
.trials { display: flex; gap: 8px; overflow-x: auto; }
.trial { text-align: left; min-width: 140px; } .trial.sel { background: var(--sel); }
.jt ul { list-style: none; margin: 0; padding-left: 16px; } .jt summary { cursor: pointer; color: var(--muted); }
.j-key { color: #2f6fde; } .j-string { color: #a0522d; } .j-number { color: #1a7f37; } .j-null, .j-boolean { color: var(--err); }
.diff .d-add { color: var(--pass); background: #1a7f3712; } .diff .d-del { color: var(--fail); background: #c6282812; }
.err { color: var(--fail); } .error { color: var(--fail); padding: 8px; }
.regression { color: var(--fail); font-weight: 600; } .ok { color: var(--pass); }
.changes li.reg summary { color: var(--fail); } .changes li.imp summary { color: var(--pass); }
.trace { padding-left: 20px; } .trace li { margin: 4px 0; }
.reason { max-width: 520px; }
.charts { display: flex; flex-wrap: wrap; gap: 16px; } figure { margin: 0; } figcaption { color: var(--muted); font-size: 12px; }
svg .grid { stroke: var(--line); } svg .axis { fill: var(--muted); font-size: 9px; }
svg .band { fill: #2f6fde22; stroke: none; } svg .line-pass { fill: none; stroke: #2f6fde; stroke-width: 1.5; } svg .line-score { fill: none; stroke: #b26a00; stroke-width: 1.5; stroke-dasharray: 4 2; }
`;
