import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { evalFileHeader } from "./eval-source.js";

// The TypeScript loader (src/cli/ts-hooks.ts) on what eval files write in practice.

const header = evalFileHeader;

describe("loading TypeScript and CommonJS eval files (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject(
      {
        "evals/lib/shout.ts":
          "export const shout = (text: string): string => text.toUpperCase();\n",
        "evals/lib/index.ts": 'export { shout } from "./shout.js";\n',
        // Imported by two eval files, one of them served by the hooks: still one module.
        "evals/lib/count.ts":
          "const g = globalThis as { loads?: number };\nexport const loads: number = (g.loads = (g.loads ?? 0) + 1);\n",
        "evals/relative.eval.ts": `${header}import { shout } from "./lib/shout.js";
import { shout as again } from "./lib";
import { loads } from "./lib/count.js";
enum Mode { Loud = "loud" }
export const loud = defineSuite<string, string>({
  id: "loud",
  cases: [{ id: "a", input: "a", expected: "A" }],
  target: async (input) => (Mode.Loud === "loud" && loads === 1 ? again(shout(input)) : input),
  scorers: [same],
});
`,
        "evals/module.eval.mts": `${header}export const mts = defineSuite<string, string>({
  id: "mts",
  cases: [{ id: "a", input: "a", expected: "a" }],
  target: async (input: string) => input,
  scorers: [same],
});
`,
        // What tsc emits for `export default defineSuite(...)` with "module": "commonjs".
        "evals/compiled.eval.js": `"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
const niceeval_1 = require("niceeval");
const scorers_1 = require("niceeval/scorers");
exports.default = (0, niceeval_1.defineSuite)({
  id: "compiled",
  cases: [{ id: "a", input: "a", expected: "a" }],
  target: async (input) => input,
  scorers: [(0, scorers_1.createScorer)({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) })],
});
`,
        // An import() of a computed name resolves against the file itself: the module hooks
        // serve this one (ts-hooks.ts), the others are compiled and imported directly.
        "evals/computed.eval.ts": `${header}import { loads } from "./lib/count.js";
const lib = "./lib/shout.js";
const { shout } = (await import(lib)) as typeof import("./lib/shout.js");
export const computed = defineSuite<string, string>({
  id: "computed",
  cases: [{ id: "a", input: "a", expected: "A" }],
  target: async (input) => (loads === 1 ? shout(input) : input),
  scorers: [same],
});
`,
        // A workspace package that exports its TypeScript sources, as monorepos do.
        "node_modules/@acme/shout/package.json": JSON.stringify({
          name: "@acme/shout",
          type: "module",
          exports: { ".": { types: "./src/index.ts", default: "./src/index.ts" } },
        }),
        "node_modules/@acme/shout/src/index.ts":
          'export const shout = (text: string): string => text.toUpperCase() + "!";\n',
        "evals/workspace.eval.ts": `${header}import { shout } from "@acme/shout";
export const workspace = defineSuite<string, string>({
  id: "workspace",
  cases: [{ id: "a", input: "a", expected: "A!" }],
  target: async (input) => shout(input),
  scorers: [same],
});
`,
        // JavaScript that imports a TypeScript file by its name.
        "evals/plain.eval.js": `import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
import { shout } from "./lib/shout.ts";
export const plain = defineSuite({
  id: "plain",
  cases: [{ id: "a", input: "a", expected: "A" }],
  target: async (input) => shout(input),
  scorers: [createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) })],
});
`,
        // A CommonJS TypeScript helper, imported by name from an ES module.
        "evals/lib/util.cts":
          "export function up(text: string): string {\n  return text.toUpperCase();\n}\n",
        "evals/cts.eval.ts": `${header}import { up } from "./lib/util.cts";
export const cts = defineSuite<string, string>({
  id: "cts",
  cases: [{ id: "a", input: "a", expected: "A" }],
  target: async (input) => up(input),
  scorers: [same],
});
`,
        // A CommonJS TypeScript eval file that imports niceeval (an ES module) and requires a
        // .cts helper; found without naming it, as a .cjs eval file is.
        "evals/common.eval.cts": `${header}import { up } from "./lib/util.cts";
export const second = defineSuite<string, string>({
  id: "cts-second",
  cases: [{ id: "a", input: "a", expected: "A" }],
  target: async (input) => up(input),
  scorers: [same],
});
export default defineSuite<string, string>({
  id: "cts-default",
  cases: [{ id: "a", input: "a", expected: "a" }],
  target: async (input) => input,
  scorers: [same],
});
`,
        "evals/required.eval.cjs": `const { defineSuite } = require("niceeval");
const { createScorer } = require("niceeval/scorers");
const { up } = require("./lib/util.cts");
exports.required = defineSuite({
  id: "cjs-required",
  cases: [{ id: "a", input: "a", expected: "A" }],
  target: async (input) => up(input),
  scorers: [createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) })],
});
`,
        "evals/throws.eval.ts": 'throw new Error("setup failed at line 1");\n',
      },
      { name: "plain" },
    );
  });
  afterAll(() => project.cleanup());

  it("resolves ./x.js to x.ts, extensionless folders, .mts files, computed imports, TypeScript workspace packages, CommonJS default exports, a .cts helper's named exports, and .cts and .cjs eval files", async () => {
    for (let run = 0; run < 2; run++) {
      // The second run reads the compiled files from the cache.
      const result = await runCli(["run"], project.dir);
      expect(result.stdout).toContain("1 file failed to load:");
      // With where it threw, in the file the user wrote (not the compiled copy).
      expect(result.stdout).toMatch(
        /evals\/throws\.eval\.ts: setup failed at line 1 \(at \S*evals\/throws\.eval\.ts:1:\d+\)/,
      );
      for (const id of ["loud", "mts", "compiled", "computed", "workspace", "plain", "cts"])
        expect(result.stdout).toContain(`${id} suite`);
      // A .cts file's evals come in the order it declares them, its default export included.
      expect(result.stdout).toMatch(/cts-second suite[\s\S]*cts-default suite/);
      expect(result.stdout).toContain("cjs-required suite");
      expect(result.stdout).toMatch(/10 evals · 10 cases · 10 passed/);
    }
  });
});

// tsconfig.json aliases, as TypeScript reads them: `paths` (an exact pattern, the longest prefix
// before `*`, each place in order), relative to the file that sets them (here a base config the
// project extends) unless a `baseUrl` is set, and `baseUrl` alone; in files compiled directly and
// in those the module hooks serve (an import() of a computed name), and again from the cache.
describe("tsconfig.json paths and baseUrl (real CLI)", () => {
  let project: FixtureProject;
  const suite = (id: string, expected: string, target: string) =>
    `export const ${id} = defineSuite<string, string>({
  id: "${id}",
  cases: [{ id: "a", input: "a", expected: "${expected}" }],
  target: async (input) => ${target},
  scorers: [same],
});
`;
  const aliased = (id: string, more = "") => `${header}import { greet } from "@/greet";
import { shout } from "@lib/deep/shout";
import { tag } from "tagless";
${more}${suite(id, "HI A! [t]", '[shout(greet(input)), tag].join(" ")')}`;
  beforeAll(async () => {
    project = await makeProject({
      "config/base.json": JSON.stringify({
        compilerOptions: {
          paths: {
            "@/*": ["../src/missing/*", "../src/*"],
            "@lib/*": ["../src/lib/*"],
            "@lib/deep/*": ["../src/lib/deeper/*"],
            tagless: ["../src/tag.ts"],
          },
        },
      }),
      "tsconfig.json": JSON.stringify({ extends: "./config/base.json" }),
      "src/greet.ts": 'export const greet = (name: string): string => "hi " + name;\n',
      "src/lib/deeper/shout.ts":
        'export const shout = (text: string): string => text.toUpperCase() + "!";\n',
      "src/tag.ts": 'export const tag: string = "[t]";\n',
      "evals/direct.eval.ts": aliased("direct"),
      "evals/hooked.eval.ts": aliased(
        "hooked",
        'const name = "./direct.eval.js";\nawait import(name);\n',
      ),
      // baseUrl: any name is looked for under it (here the project's root), and paths with it.
      "other/tsconfig.json": JSON.stringify({
        compilerOptions: { baseUrl: "..", paths: { "@/*": ["src/*"] } },
      }),
      "shared/plain.js": 'export const plain = "p";\n',
      "other/base-url.eval.ts": `${header}import { plain } from "shared/plain.js";
import { greet } from "@/greet";
${suite("baseUrl", "hi p", "greet(plain)")}`,
    });
  });
  afterAll(() => project.cleanup());

  it("imports files by their aliases, compiled directly or through the hooks, also from the cache", async () => {
    for (let run = 0; run < 2; run++) {
      const result = await runCli(["run", "evals", "other", "--no-store"], project.dir);
      expect(result.stdout).not.toContain("failed to load");
      expect(result.stdout).toMatch(/3 evals · 3 cases · 3 passed/);
      expect(result.code).toBe(0);
    }
  });

  it("takes a file an alias names once it is created, though the file that imports it was compiled before", async () => {
    await writeFile(
      join(project.dir, "evals/later.eval.ts"),
      `${header}import { word } from "@/later";
${suite("laterWord", "later", "word")}`,
    );
    const before = await runCli(["run", "evals/later.eval.ts", "--no-store"], project.dir);
    expect(before.stdout).toMatch(/Cannot find package '@\/later'/);
    await writeFile(join(project.dir, "src/later.ts"), 'export const word: string = "later";\n');
    const after = await runCli(["run", "evals/later.eval.ts", "--no-store"], project.dir);
    expect(after.stdout).not.toContain("failed to load");
    expect(after.code).toBe(0);
  });

  it("says when no file matches an alias the tsconfig declares", async () => {
    await writeFile(
      join(project.dir, "evals/missing.eval.ts"),
      'import { nothing } from "@/nowhere";\nexport const m = nothing;\n',
    );
    const result = await runCli(["run", "evals/missing.eval.ts", "--no-store"], project.dir);
    expect(result.stdout).toMatch(
      /evals\/missing\.eval\.ts: Cannot find package '@\/nowhere' .*\(no file matches it through the "paths" or "baseUrl" of the tsconfig\.json nearest the file/,
    );
  });
});

describe("load errors in TypeScript eval files (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/helper.ts": 'export const greet = (name: string): string => "hi " + name;\n',
      "evals/typo.eval.ts": `${header}import { greett } from "./helper.js";
export const typo = defineSuite<string, string>({
  id: "typo",
  cases: [{ id: "a", input: "a", expected: "a" }],
  target: async (input) => greett(input),
  scorers: [same],
});
`,
      // Syntax errors in JavaScript: in the eval file, and in a helper a TypeScript file imports.
      "evals/broken.eval.mjs": "export const fine = 1;\nconst x = ;\n",
      "evals/broken-helper.mjs": "export const ok = 1;\nexport const w = ;\n",
      "evals/imports-broken.eval.ts":
        'import { w } from "./broken-helper.mjs";\nexport const k = w;\n',
      // What TypeScript compiled as an ES module meets in a project that writes CommonJS.
      "evals/dirname.eval.ts": "export const where = __dirname;\n",
      "evals/dirname-js.eval.mjs": "export const where = __dirname;\n",
      "evals/json.eval.ts": 'import data from "./data.json";\nexport const d = data;\n',
      "evals/data.json": '{ "a": 1 }\n',
      "evals/cjs.eval.ts": 'import { camel } from "cjs-only";\nexport const c = camel;\n',
      "node_modules/cjs-only/package.json": '{ "name": "cjs-only", "main": "index.js" }\n',
      // Exports Node's lexer cannot see: only the default export reaches an ES module.
      "node_modules/cjs-only/index.js": 'const name = "camel";\nmodule.exports = { [name]: 1 };\n',
      // A CommonJS file of the project whose export Node's lexer cannot see (a getter).
      "evals/lib.cjs":
        'Object.defineProperty(exports, "whisper", { get: () => "psst", enumerable: true });\n',
      "evals/local-cjs.eval.ts":
        'import { whisper } from "./lib.cjs";\nexport const w = whisper;\n',
      // A package that is not installed: the message says which one to install.
      "evals/missing-package.eval.ts":
        'import { x } from "@acme/not-installed/sub";\nexport const m = x;\n',
      // An ES module package names its exports: a missing one is a wrong name, not CommonJS.
      "evals/esm-name.eval.ts": 'import { snake } from "esm-only";\nexport const e = snake;\n',
      "node_modules/esm-only/package.json":
        '{ "name": "esm-only", "type": "module", "exports": { ".": { "import": "./index.js" } } }\n',
      "node_modules/esm-only/index.js": "export const camel = 1;\n",
      "evals/alias.eval.ts": `${header}import { greet } from "@/helper";
export const alias = defineSuite<string, string>({
  id: "alias",
  cases: [{ id: "a", input: "a", expected: "a" }],
  target: async (input) => greet(input),
  scorers: [same],
});
`,
    });
  });
  afterAll(() => project.cleanup());

  it("name the files the user wrote, not the compiled copies, say when no tsconfig maps an alias, and what to write for CommonJS habits", async () => {
    const result = await runCli(["run", "--no-store"], project.dir);
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain("niceeval-ts");
    expect(result.stdout).toMatch(
      /evals\/typo\.eval\.ts: SyntaxError: The requested module 'file:\/\/\S*\/evals\/helper\.ts' does not provide an export named 'greett'/,
    );
    expect(result.stdout).toMatch(
      /evals\/alias\.eval\.ts: Cannot find package '@\/helper' imported from \S*\/evals\/alias\.eval\.ts \(it reads as a tsconfig\.json alias, but no tsconfig\.json above the file maps it: add "paths" there/,
    );
    // A syntax error says where it is, also when it is in a file the eval file imports.
    expect(result.stdout).toMatch(
      /evals\/broken\.eval\.mjs: SyntaxError: Unexpected token ';' \(at \S*\/evals\/broken\.eval\.mjs:2:11\)/,
    );
    expect(result.stdout).toMatch(
      /evals\/imports-broken\.eval\.ts: SyntaxError: Unexpected token ';' \(at \S*\/evals\/broken-helper\.mjs:2:18\)/,
    );
    // Each says what to write instead.
    expect(result.stdout).toMatch(
      /evals\/dirname\.eval\.ts: ReferenceError: __dirname is not defined in ES module scope .*\(niceeval runs \.ts eval files as ES modules: use import\.meta\.dirname/,
    );
    // A JavaScript file gets advice for JavaScript.
    expect(result.stdout).toMatch(
      /evals\/dirname-js\.eval\.mjs: ReferenceError: __dirname is not defined in ES module scope .*\(this file is an ES module: .* or name the file \.cjs to write CommonJS\)/,
    );
    expect(result.stdout).toMatch(
      /evals\/json\.eval\.ts: .*needs an import attribute of type "json" \(import JSON with an attribute: import data from "\.\/data\.json" with \{ type: "json" \}\)/,
    );
    expect(result.stdout).toMatch(
      /evals\/cjs\.eval\.ts: SyntaxError: The requested module 'cjs-only' does not provide an export named 'camel' .*import its default export/,
    );
    expect(result.stdout).toMatch(
      /evals\/local-cjs\.eval\.ts: SyntaxError: The requested module 'file:\/\/\S*\/evals\/lib\.cjs' does not provide an export named 'whisper' .*\(it is a CommonJS file, whose exports an ES module sees by name only where Node can find them without running it: import its default export \(import lib from \\?"\.\/lib\.cjs\\?"\) and use lib\.whisper\)/,
    );
    // A TypeScript helper is an ES module: a name it lacks is a wrong name.
    const typo = result.stdout.split("\n").find((line) => line.includes("typo.eval.ts"));
    expect(typo).not.toMatch(/CommonJS|default export/);
    expect(result.stdout).toMatch(
      /evals\/missing-package\.eval\.ts: Cannot find package '@acme\/not-installed' imported from \S*\/evals\/missing-package\.eval\.ts \(install it \(npm install @acme\/not-installed\) where the file can find it, or correct the name\)/,
    );
    const esm = result.stdout.split("\n").find((line) => line.includes("esm-name.eval.ts"));
    expect(esm).toMatch(/The requested module 'esm-only' does not provide an export named 'snake'/);
    expect(esm).not.toMatch(/CommonJS|default export/);
  });
});

// What tsconfig.json says about how code compiles holds, whichever way a file loads: kept
// imports (verbatimModuleSyntax), class fields assigned as TypeScript did before ES2022
// (useDefineForClassFields: false) and legacy decorators. Ignoring them ran other code than the
// project's own tsc and tsx run, silently.
const compiledAsConfigured = (id: string, load: string) => `${header}${load}
export const ${id} = defineSuite<number, string>({
  id: "${id}",
  cases: [{ id: "a", input: 1, expected: "registered=1 set-in-init logged:hi" }],
  target: async () =>
    \`registered=\${(globalThis as { registered?: number }).registered} \${new Child().value} \${new Svc().hello()}\`,
  scorers: [same],
});
`;

describe("tsconfig.json compiler options (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "tsconfig.base.json":
        '{ "compilerOptions": { "experimentalDecorators": true, /* legacy */ } }\n',
      "tsconfig.json": `{
  // JSON with comments and trailing commas, as tsconfig files are written
  "extends": "./tsconfig.base.json",
  "compilerOptions": { "verbatimModuleSyntax": true, "useDefineForClassFields": false, },
}
`,
      "evals/registers.ts":
        "(globalThis as { registered?: number }).registered = 1;\nexport interface Plugin { name: string }\n",
      "evals/model.ts": `class Base { constructor() { this.init(); } init() {} }
export class Child extends Base { value!: string; override init() { this.value = "set-in-init"; } }
function logged(_target: object, _key: string, desc: PropertyDescriptor) {
  const f = desc.value;
  desc.value = function (this: unknown) { return "logged:" + f.call(this); };
}
export class Svc { @logged hello() { return "hi"; } }
`,
      "evals/direct.eval.ts": compiledAsConfigured(
        "direct",
        'import { type Plugin } from "./registers.ts";\nimport { Child, Svc } from "./model.ts";\n',
      ),
      // A computed import: served by the module hooks.
      "evals/hooked.eval.ts": compiledAsConfigured(
        "hooked",
        'import { type Plugin } from "./registers.ts";\nconst name = "model";\nconst { Child, Svc } = await import("./" + name + ".ts");\n',
      ),
    });
  });
  afterAll(() => project.cleanup());

  it("are read, with what the file extends, in both ways of loading, and a change to them compiles again", async () => {
    const result = await runCli(["run", "--no-store"], project.dir);
    expect(result.stdout, result.stderr).toMatch(/2 evals · 2 cases · 2 passed/);
    // Class fields as ES2022 defines them again: the field set in init() is reset.
    await writeFile(
      join(project.dir, "tsconfig.json"),
      '{ "extends": "./tsconfig.base.json", "compilerOptions": { "verbatimModuleSyntax": true } }\n',
    );
    const changed = await runCli(["run", "--no-store"], project.dir);
    expect(changed.stdout).toContain('output:   "registered=1 undefined logged:hi"');
  });
});

// CommonJS code that requires a TypeScript helper: a .cts eval importing `../lib/helper.ts`, and
// a .js eval of a project without "type": "module" requiring it. The helper was read as
// JavaScript ("Unexpected token ':'", blamed on the eval file); it is compiled as CommonJS.
const cjsSuite = (id: string, load: string, exportAs: string) => `${load}
${exportAs} = defineSuite({
  id: "${id}",
  cases: [{ id: "a", input: "x", expected: "hi x" }],
  target: async (input: string) => greet(input),
  scorers: [
    createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) }),
  ],
});
`;

describe("TypeScript helpers required from CommonJS (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject(
      {
        "lib/helper.ts": 'export function greet(name: string): string { return "hi " + name; }\n',
        "evals/imports.eval.cts": cjsSuite(
          "cts-imports-ts",
          'import { createScorer, defineSuite } from "niceeval";\nimport { greet } from "../lib/helper.ts";',
          "export const imports",
        ),
        "evals/requires.eval.js": cjsSuite(
          "js-requires-ts",
          'const { createScorer, defineSuite } = require("niceeval");\nconst { greet } = require("../lib/helper");',
          "exports.requires",
        ).replace("(input: string)", "(input)"),
        // A tsconfig `paths` alias in a .cts eval file: require() did not know it ("Cannot find
        // module '@lib/helper'"), while a .ts eval file of the same project imported it.
        "tsconfig.json": JSON.stringify({ compilerOptions: { paths: { "@lib/*": ["./lib/*"] } } }),
        "evals/alias.eval.cts": cjsSuite(
          "cts-alias",
          'import { createScorer, defineSuite } from "niceeval";\nimport { greet } from "@lib/helper";',
          "export const alias",
        ),
      },
      { name: "commonjs-project" },
    );
  });
  afterAll(() => project.cleanup());

  it("load and run, supervised and in process", async () => {
    for (const mode of [[], ["--no-supervise"]]) {
      const result = await runCli(["run", "--no-store", ...mode], project.dir);
      expect(result.stdout, result.stderr).toMatch(/3 evals · 3 cases · 3 passed/);
    }
  });
});

// A .ts file of a package that is not "type": "module" is one TypeScript's checker compiles to
// CommonJS, where it refuses an import attribute: the advice says to name the file .mts.
describe("a JSON import without an attribute in a CommonJS package (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject(
      {
        "evals/json.eval.ts": 'import data from "./data.json";\nexport const d = data;\n',
        "evals/data.json": '{ "a": 1 }\n',
      },
      { name: "fixture", type: "commonjs" },
    );
  });
  afterAll(() => project.cleanup());

  it("advises the attribute, and .mts for TypeScript's own checker", async () => {
    const result = await runCli(["run", "--no-store"], project.dir);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /evals\/json\.eval\.ts: .*needs an import attribute of type "json" \(import JSON with an attribute: import data from \\?"\.\/data\.json\\?" with \{ type: \\?"json\\?" \} \(TypeScript's checker refuses the attribute in a \.ts file of a package that is not \\?"type\\?": \\?"module\\?", which it compiles to CommonJS: name the file \.mts\)\)/,
    );
  });
});
