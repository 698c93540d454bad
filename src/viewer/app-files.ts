import { existsSync, readdirSync, readFileSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { NiceevalError } from "../errors.js";
import { builtFile } from "../package-files.js";

/** The viewer's front end as Vite built it (viewer-app/ → dist/viewer-app/), held in memory. */
export interface AppFiles {
  /** Where it was read from. */
  dir: string;
  /** The page the live server serves at `/`. */
  index: string;
  /** The one module and the one stylesheet, as text (the static export inlines them). */
  js: string;
  css: string;
  /** Every built file by its URL path (`/assets/app-….js`), with its content type. */
  files: Map<string, { type: string; body: Buffer }>;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
};

type Manifest = Record<string, { file: string; css?: string[]; isEntry?: boolean }>;

/**
 * The built front end's folder: beside the compiled viewer in the package (dist/viewer-app),
 * or the repository's dist/viewer-app when running from source (tests, tsx).
 */
export function defaultAppDir(): string {
  const candidates = ["viewer-app/", "../dist/viewer-app/"].map((p) => fileURLToPath(builtFile(p)));
  return candidates.find((dir) => existsSync(join(dir, "manifest.json"))) ?? candidates[0]!;
}

let cached: AppFiles | undefined;

/** Read the built front end once per process; a missing build is an error that says what to run. */
export function loadApp(dir = defaultAppDir()): AppFiles {
  if (cached?.dir === dir) return cached;
  const manifestPath = join(dir, "manifest.json");
  if (!existsSync(manifestPath))
    throw new NiceevalError(
      "VIEWER_NOT_BUILT",
      `the viewer's front end is not built (${manifestPath} is missing): run \`npm run build\` in the niceeval package`,
    );
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as Manifest;
  const entry = Object.values(manifest).find((m) => m.isEntry);
  // One stylesheet (cssCodeSplit off): listed on its own, or under the entry.
  const css = new Set(
    Object.values(manifest).flatMap((m) =>
      [m.file, ...(m.css ?? [])].filter((f) => f.endsWith(".css")),
    ),
  );
  const [cssFile] = css;
  if (!entry || !cssFile || css.size > 1)
    throw new NiceevalError(
      "VIEWER_NOT_BUILT",
      `${manifestPath}: expected one entry module and one stylesheet; rebuild with \`npm run build\``,
    );
  const files = new Map<string, { type: string; body: Buffer }>();
  for (const name of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    const type = TYPES[extname(name)];
    if (!type || name === "manifest.json") continue;
    const path = join(dir, name);
    files.set(`/${relative(dir, path).split(sep).join("/")}`, { type, body: readFileSync(path) });
  }
  const text = (file: string) => readFileSync(join(dir, file), "utf8");
  cached = { dir, index: text("index.html"), js: text(entry.file), css: text(cssFile), files };
  return cached;
}
