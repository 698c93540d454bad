import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { directModuleUrl } from "./ts-direct.js";

// A real project folder: the compiled modules go to its node_modules/.cache and are imported by
// Node, so what a file sees (its URL, its imports, what changed) is checked by running it.

let dir: string;

function write(files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
}

/** Import a file through the direct loader in a new Node process; its exports as JSON. */
async function load(name: string): Promise<Record<string, unknown>> {
  const url = await directModuleUrl(join(dir, name));
  if (url === undefined) throw new Error(`${name} was left to the hooks`);
  const code = `console.log(JSON.stringify({ ...(await import(${JSON.stringify(url)})) }))`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", code], { cwd: dir });
  return JSON.parse(out.toString()) as Record<string, unknown>;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "niceeval-direct-"));
  mkdirSync(join(dir, "node_modules", "dep"), { recursive: true });
  write({
    "package.json": JSON.stringify({ name: "direct-fixture", type: "module" }),
    "node_modules/dep/package.json": JSON.stringify({
      name: "dep",
      type: "module",
      types: "./index.d.ts",
      exports: "./index.js",
    }),
    "node_modules/dep/index.js": 'export const fromDep = "dep";\n',
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("TypeScript files imported without module hooks", () => {
  it("keeps the file's own URL, its relative TypeScript and JSON imports and its packages", async () => {
    write({
      "evals/lib/shout.ts": "export const shout = (text: string): string => text.toUpperCase();\n",
      "evals/lib/index.ts": 'export * from "./shout.js";\n',
      "evals/data.json": '{ "n": 3 }\n',
      "evals/a.eval.ts": `import { shout } from "./lib";
import data from "./data.json" with { type: "json" };
import { fromDep } from "dep";
import { readFileSync } from "node:fs";
enum Mode { Loud = "loud" }
export const url: string = import.meta.url;
export const folder: string = import.meta.dirname;
export const text = shout(Mode.Loud) + data.n + fromDep;
export const own = readFileSync(new URL("./data.json", import.meta.url), "utf8").trim();
export const later = (await import("./lib/shout.js")).shout("x");
`,
    });
    const module = await load("evals/a.eval.ts");
    expect(module.url).toBe(pathToFileURL(join(dir, "evals/a.eval.ts")).href);
    expect(module.folder).toBe(join(dir, "evals"));
    expect(module.text).toBe("LOUD3dep");
    expect(module.own).toBe('{ "n": 3 }');
    expect(module.later).toBe("X");
  });

  it("recompiles a file whose source or imported TypeScript file changed", async () => {
    write({
      "evals/b/value.ts": "export const value: number = 1;\n",
      "evals/b.eval.ts": 'export { value } from "./b/value.js";\n',
    });
    expect((await load("evals/b.eval.ts")).value).toBe(1);
    write({ "evals/b/value.ts": "export const value: number = 2;\n" });
    expect((await load("evals/b.eval.ts")).value).toBe(2);
    write({ "evals/b.eval.ts": 'export { value } from "./b/value.js";\nexport const more = 1;\n' });
    expect(await load("evals/b.eval.ts")).toMatchObject({ value: 2, more: 1 });
  });

  it("does not serve a compiled module whose import was removed", async () => {
    write({
      "evals/c/part.ts": "export const part = 1;\n",
      "evals/c.eval.ts": 'export { part } from "./c/part.js";\n',
    });
    expect((await load("evals/c.eval.ts")).part).toBe(1);
    unlinkSync(join(dir, "evals/c/part.ts"));
    expect(await directModuleUrl(join(dir, "evals/c.eval.ts"))).toBeUndefined();
  });

  it("compiles TypeScript files that import each other", async () => {
    write({
      "evals/d/one.ts":
        'import { two } from "./two.js";\nexport const one = () => "one " + two();\n',
      "evals/d/two.ts":
        'import { one } from "./one.js";\nexport const two = () => "two";\nexport const back = () => one;\n',
      "evals/d.eval.ts": 'import { one } from "./d/one.js";\nexport const result = one();\n',
    });
    expect((await load("evals/d.eval.ts")).result).toBe("one two");
    // Warm: each is found compiled, the cycle included.
    expect((await load("evals/d.eval.ts")).result).toBe("one two");
  });

  it("follows a relative import to a file added since, as a cold run would", async () => {
    write({
      "evals/g/lib/index.ts": 'export const v = "lib/index.ts";\n',
      "evals/g.eval.ts": 'export { v } from "./g/lib";\n',
    });
    expect((await load("evals/g.eval.ts")).v).toBe("lib/index.ts");
    write({ "evals/g/lib.ts": 'export const v = "lib.ts";\n' });
    expect((await load("evals/g.eval.ts")).v).toBe("lib.ts");
  });

  it("uses the real path of a linked eval file, as Node does", async () => {
    write({
      "shared/lib/who.ts": "export const who = import.meta.dirname;\n",
      "shared/evals/h.eval.ts":
        'export { who } from "../lib/who.js";\nexport const url = import.meta.url;\n',
    });
    mkdirSync(join(dir, "linked"), { recursive: true });
    symlinkSync(join(dir, "shared/evals/h.eval.ts"), join(dir, "linked/h.eval.ts"));
    const module = await load("linked/h.eval.ts");
    expect(module.who).toBe(join(dir, "shared/lib"));
    expect(module.url).toBe(pathToFileURL(join(dir, "shared/evals/h.eval.ts")).href);
  });

  it("keeps the lines of the file in stack traces", async () => {
    write({
      "evals/i.eval.ts":
        'type T = string;\nconst name: T = "x";\nexport const where = new Error(name).stack!.split("\\n")[1]!;\n',
    });
    const url = await directModuleUrl(join(dir, "evals/i.eval.ts"));
    const code = `console.log((await import(${JSON.stringify(url)})).where)`;
    const out = execFileSync(process.execPath, [
      "--enable-source-maps",
      "--input-type=module",
      "-e",
      code,
    ]);
    expect(out.toString()).toContain(`${join(dir, "evals/i.eval.ts")}:3:`);
  });

  it("leaves to the hooks what only they serve as Node would", async () => {
    write({
      "evals/e/computed.ts": 'const name = "./x.js";\nexport const m = () => import(name);\n',
      "evals/e/resolve.ts": 'export const r = import.meta.resolve("./x.js");\n',
      "evals/e/imports.ts": 'import { x } from "#internal";\nexport { x };\n',
      "evals/e/self.ts": 'import { x } from "direct-fixture/x";\nexport { x };\n',
      "evals/e/common.cts": "export const c = 1;\n",
      "evals/e/missing.ts": 'export { y } from "./nowhere.js";\n',
      // A workspace package whose exports are its TypeScript sources.
      "node_modules/@acme/agent/package.json": JSON.stringify({
        name: "@acme/agent",
        type: "module",
        exports: { ".": { types: "./src/index.d.ts", default: "./src/index.ts" } },
      }),
      "node_modules/@acme/agent/src/index.ts": "export const agent = (x: string) => x;\n",
      "evals/e/workspace.ts": 'export { agent } from "@acme/agent";\n',
      "evals/e/locale/en.ts": 'export const hello = "hello";\n',
      "evals/e/pattern.ts": [
        "const lang = 'en';",
        "export const m = () => import(`./locale/$" + "{lang}.ts`);",
        "",
      ].join("\n"),
      "evals/e/util.ts": "export const util = 1;\n",
      "evals/e/helper.js": 'export { util } from "./util.ts";\n',
      "evals/e/through-js.ts": 'export { util } from "./helper.js";\n',
    });
    for (const name of [
      "computed",
      "resolve",
      "imports",
      "self",
      "missing",
      "workspace",
      "pattern",
      "through-js",
    ])
      expect(await directModuleUrl(join(dir, `evals/e/${name}.ts`)), name).toBeUndefined();
    expect(await directModuleUrl(join(dir, "evals/e/common.cts"))).toBeUndefined();
  });

  it("notices on a warm run that a package it imports ships TypeScript now", async () => {
    write({
      "node_modules/later/package.json": JSON.stringify({ name: "later", exports: "./index.js" }),
      "node_modules/later/index.js": "export const later = 1;\n",
      "evals/f.eval.ts": 'export { later } from "later";\n',
    });
    expect((await load("evals/f.eval.ts")).later).toBe(1);
    write({
      "node_modules/later/package.json": JSON.stringify({ name: "later", exports: "./index.ts" }),
    });
    expect(await directModuleUrl(join(dir, "evals/f.eval.ts"))).toBeUndefined();
  });

  it("leaves to the hooks a file whose node_modules is a link", async () => {
    const linked = mkdtempSync(join(tmpdir(), "niceeval-direct-linked-"));
    try {
      mkdirSync(join(linked, "store", "node_modules"), { recursive: true });
      mkdirSync(join(linked, "pkg"));
      symlinkSync(join(linked, "store", "node_modules"), join(linked, "pkg", "node_modules"));
      writeFileSync(join(linked, "pkg", "x.ts"), "export const x = 1;\n");
      expect(await directModuleUrl(join(linked, "pkg", "x.ts"))).toBeUndefined();
    } finally {
      rmSync(linked, { recursive: true, force: true });
    }
  });

  it("leaves to the hooks a file with no node_modules above it", async () => {
    const bare = mkdtempSync(join(tmpdir(), "niceeval-direct-bare-"));
    try {
      writeFileSync(join(bare, "x.ts"), "export const x = 1;\n");
      expect(await directModuleUrl(join(bare, "x.ts"))).toBeUndefined();
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });
});
