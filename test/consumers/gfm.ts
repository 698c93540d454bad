// Markdown as GitHub renders it (CommonMark + GFM, by micromark), and what the consumer tests
// read from the HTML it makes: its tags, its tables' cells, its text.
import { micromark } from "micromark";
import { gfm, gfmHtml } from "micromark-extension-gfm";

/** The tags a report is made of; any other came from a case's text. */
export const REPORT_TAGS = new Set([
  "h2",
  "h3",
  "p",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "ul",
  "li",
  "strong",
  "em",
  "code",
  "blockquote",
  "details",
  "summary",
]);

/** HTML as GitHub renders Markdown, raw HTML let through so that any that is made shows. */
export const render = (markdown: string) =>
  micromark(markdown, {
    allowDangerousHtml: true,
    extensions: [gfm()],
    htmlExtensions: [gfmHtml()],
  });

/** The tags (and comment openers) of rendered HTML: text is escaped, so `&lt;b>` is not one. */
export const tagsOf = (html: string) =>
  [...html.matchAll(/<(!--|\/?[a-zA-Z][\w-]*)/g)].map((m) => m[1]!.replace("/", "").toLowerCase());

export const decode = (html: string) =>
  html
    .replace(/<[^>]*>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) =>
      String.fromCodePoint(Number.parseInt(hex, 16)),
    )
    .replace(/&amp;/g, "&");

/** Each table of rendered HTML as rows of cell texts, the header row first. */
export function tables(html: string): string[][][] {
  return [...html.matchAll(/<table>([\s\S]*?)<\/table>/g)].map((t) =>
    [...t[1]!.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((r) =>
      [...r[1]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((c) => decode(c[1]!)),
    ),
  );
}
