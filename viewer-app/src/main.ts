import "./style.css";
import { STATIC } from "./data.js";
import { casePage } from "./pages/case.js";
import { comparePage } from "./pages/compare.js";
import { runPage } from "./pages/run.js";
import { runsPage } from "./pages/runs.js";
import { malformedPage, type PageHandle, type Route, remember, route } from "./router.js";

// The viewer's entry: one module for the live app and the static export (which embeds its data
// in #niceeval-data); a hash router, so it works from file://; j/k, Enter, Esc and / as keys.

const root = document.getElementById("app")!;
const PAGES: Record<string, (root: HTMLElement, r: Route) => PageHandle> = {
  runs: runsPage,
  run: runPage,
  case: casePage,
  compare: comparePage,
};
let current: PageHandle | null = null;

function render(): void {
  current?.stop?.();
  const r = route();
  root.replaceChildren();
  current = (r.malformed !== undefined ? malformedPage : (PAGES[r.page] ?? runsPage))(root, r);
  document.title = `niceeval \u00b7 ${r.page}`;
}

window.addEventListener("hashchange", (e) => {
  remember(e.oldURL);
  render();
});
document.addEventListener("keydown", (e) => {
  const t = e.target;
  const typing =
    t instanceof HTMLInputElement ||
    t instanceof HTMLSelectElement ||
    t instanceof HTMLTextAreaElement;
  if (e.key === "Escape") {
    if (typing) t.blur();
    else current?.back?.();
    return;
  }
  if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === "/") {
    const search = document.querySelector<HTMLInputElement>("input[type=search]");
    if (search) {
      e.preventDefault();
      search.focus();
    }
    return;
  }
  if (current?.key?.(e.key)) e.preventDefault();
});

// A static export made with a baseline opens on its comparison (a link with a page keeps it).
if (!location.hash && STATIC?.comparison) {
  const { base, head } = STATIC.comparison;
  history.replaceState(null, "", `#/compare?base=${base.runId}&head=${head.runId}`);
}
render();
