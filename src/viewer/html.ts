import { createHash } from "node:crypto";
import type { AppFiles } from "./app-files.js";

/** The live server's policy: its own script and style only, no inline code, no other origin. */
export const SERVER_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;

/** Script or style text that cannot end its element early: `</script`, `</style`, `<!--` escaped. */
function inlineSafe(text: string): string {
  return text.replace(/<(\/(?:script|style)|!--)/gi, "<\\$1");
}

/**
 * The static export's policy: the one inlined script and stylesheet by hash, nothing else: no
 * request of any kind (the data is in the page).
 */
export function staticCsp(js: string, css: string): string {
  return `default-src 'none'; script-src ${sha256(js)}; style-src ${sha256(css)}; img-src data:; base-uri 'none'; form-action 'none'`;
}

/** JSON that is safe inside a `<script>` element: no `</script>`, no comment openers, no U+2028. */
export function scriptSafeJson(json: string): string {
  return json.replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** The static page around the embedded data: the built module and stylesheet inlined. */
export function staticPageParts(title: string, app: AppFiles): { head: string; tail: string } {
  const safeTitle = title.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const js = inlineSafe(app.js);
  const css = inlineSafe(app.css);
  return {
    head: `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">
<meta http-equiv="Content-Security-Policy" content="${staticCsp(js, css)}">
<title>${safeTitle}</title><style>${css}</style></head>
<body><div id="app"></div>
<script type="application/json" id="niceeval-data">`,
    tail: `</script>
<script type="module">${js}</script></body></html>
`,
  };
}
