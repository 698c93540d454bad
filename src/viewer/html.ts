import { createHash } from "node:crypto";
import { APP_CSS } from "./assets/css.js";
import { APP_JS } from "./assets/js.js";

/** The live server's policy: its own script and style only, no inline code, no other origin. */
export const SERVER_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The page the live server serves: the app's module and stylesheet, by URL. */
export function livePage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">
<title>niceeval</title><link rel="stylesheet" href="/app.css"></head>
<body><div id="app"></div><script type="module" src="/app.js"></script></body></html>
`;
}

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;

/**
 * The static export's policy: the one inlined script and stylesheet by hash, nothing else: no
 * request of any kind (the data is in the page).
 */
export const STATIC_CSP = `default-src 'none'; script-src ${sha256(APP_JS)}; style-src ${sha256(APP_CSS)}; img-src data:; base-uri 'none'; form-action 'none'`;

/** JSON that is safe inside a `<script>` element: no `</script>`, no comment openers, no U+2028. */
export function scriptSafeJson(json: string): string {
  return json.replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** The static page around the embedded data: what comes before it, and after. */
export function staticPageParts(title: string): { head: string; tail: string } {
  const safeTitle = title.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return {
    head: `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">
<meta http-equiv="Content-Security-Policy" content="${STATIC_CSP}">
<title>${safeTitle}</title><style>${APP_CSS}</style></head>
<body><div id="app"></div>
<script type="application/json" id="niceeval-data">`,
    tail: `</script>
<script type="module">${APP_JS}</script></body></html>
`,
  };
}
