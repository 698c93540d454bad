import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { aliasPlaces } from "./ts-aliases.js";
import { aliasesOf, declaresAliases, tsconfigOf } from "./tsconfig.js";

const root = mkdtempSync(join(tmpdir(), "niceeval-tsconfig-"));
const write = (path: string, text: string) => {
  mkdirSync(join(root, path, ".."), { recursive: true });
  writeFileSync(join(root, path), text);
};
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("tsconfigOf", () => {
  it("reads JSON with comments, follows extends to files and packages, and keeps what compiles", () => {
    write(
      "node_modules/@tsconfig/base/tsconfig.json",
      '{ "compilerOptions": { "experimentalDecorators": true, "strict": true } }',
    );
    write(
      "configs/jsx.json",
      '{ "compilerOptions": { "jsx": "react-jsx", "jsxImportSource": "preact" } }',
    );
    write(
      "app/tsconfig.json",
      `{
  // a comment, a "string // that is not one", and trailing commas
  "extends": ["@tsconfig/base", "../configs/jsx.json"],
  "compilerOptions": { "useDefineForClassFields": false, "target": "es5", "paths": { "@/*": ["./*"] }, },
  /* and a block comment */
}`,
    );
    expect(tsconfigOf(join(root, "app/src/deep/x.ts")).compilerOptions).toEqual({
      experimentalDecorators: true,
      strict: true,
      jsx: "react-jsx",
      jsxImportSource: "preact",
      useDefineForClassFields: false,
    });
    expect(declaresAliases(join(root, "app/x.ts"))).toBe(true);
  });

  it("is empty without a tsconfig.json, and for one that cannot be read, which it says once", () => {
    const said = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      write("plain/x.ts", "");
      write("broken/tsconfig.json", "{ not json");
      expect(tsconfigOf(join(root, "plain/x.ts")).compilerOptions).toEqual({});
      expect(tsconfigOf(join(root, "broken/x.ts")).compilerOptions).toEqual({});
      expect(declaresAliases(join(root, "broken/x.ts"))).toBe(false);
      expect(said.mock.calls.map(([text]) => String(text))).toEqual([
        expect.stringMatching(
          new RegExp(
            `^niceeval: ${join(root, "broken/tsconfig.json")} is not valid JSON \\(.+\\), so none of its compiler options apply to the TypeScript files under it; fix it \\(\`npx tsc --showConfig -p ${join(root, "broken")}\` says where\\)\n$`,
          ),
        ),
      ]);
    } finally {
      said.mockRestore();
    }
  });

  it("says an extends it cannot find, and reads the file without it", () => {
    const said = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      write(
        "lost/tsconfig.json",
        '{ "extends": ["@tsconfig/nowhere", "./pathz.json"], "compilerOptions": { "strict": true } }',
      );
      expect(tsconfigOf(join(root, "lost/x.ts")).compilerOptions).toEqual({ strict: true });
      expect(said.mock.calls.map(([text]) => String(text))).toEqual(
        ["@tsconfig/nowhere", "./pathz.json"].map(
          (base) =>
            `niceeval: ${join(root, "lost/tsconfig.json")} extends "${base}", which was not found from ${join(root, "lost")}; its compiler options are read without it: install that package or fix the path\n`,
        ),
      );
    } finally {
      said.mockRestore();
    }
  });
});

describe("extends of a package", () => {
  it("reads the package's tsconfig.json, not its main script", () => {
    write(
      "node_modules/shared-config/package.json",
      '{ "name": "shared-config", "main": "index.js" }',
    );
    write("node_modules/shared-config/index.js", "module.exports = {};\n");
    write(
      "node_modules/shared-config/tsconfig.json",
      '{ "compilerOptions": { "useDefineForClassFields": false } }',
    );
    write("pkg/tsconfig.json", '{ "extends": "shared-config" }');
    expect(tsconfigOf(join(root, "pkg/x.ts")).compilerOptions).toEqual({
      useDefineForClassFields: false,
    });
  });
});

describe("aliasesOf", () => {
  it("places paths relative to baseUrl, else to the file that sets them, wherever the project extends it", () => {
    write(
      "aliases/config/base.json",
      '{ "compilerOptions": { "paths": { "@/*": ["../src/*"] } } }',
    );
    write("aliases/tsconfig.json", '{ "extends": "./config/base.json" }');
    expect(aliasesOf(join(root, "aliases/evals/x.ts"))).toEqual({
      paths: { "@/*": ["../src/*"] },
      pathsBase: join(root, "aliases/config"),
    });
    write(
      "aliases/with-base/tsconfig.json",
      '{ "extends": "../tsconfig.json", "compilerOptions": { "baseUrl": ".." } }',
    );
    expect(aliasesOf(join(root, "aliases/with-base/x.ts"))).toEqual({
      paths: { "@/*": ["../src/*"] },
      pathsBase: join(root, "aliases"),
      baseUrl: join(root, "aliases"),
    });
    expect(aliasesOf(join(root, "plain/x.ts"))).toBeUndefined();
  });
});

describe("aliasPlaces", () => {
  it("takes an exact pattern first, else the longest prefix before its *, each place in order, then baseUrl", () => {
    const aliases = {
      paths: { "@/*": ["a/*", "b/*"], "@/deep/*": ["deep/*"], exact: ["e.ts"], "x*y*": ["no"] },
      pathsBase: "/p",
      baseUrl: "/base",
    };
    expect(aliasPlaces("@/one", aliases)).toEqual(["/p/a/one", "/p/b/one", "/base/@/one"]);
    expect(aliasPlaces("@/deep/two", aliases)).toEqual(["/p/deep/two", "/base/@/deep/two"]);
    expect(aliasPlaces("exact", aliases)).toEqual(["/p/e.ts", "/base/exact"]);
    expect(aliasPlaces("zod", { paths: {}, pathsBase: "/p" })).toEqual([]);
  });
});
