import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { declaresAliases, tsconfigOf } from "./tsconfig.js";

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

  it("is empty without a tsconfig.json, and for one that cannot be read", () => {
    write("plain/x.ts", "");
    write("broken/tsconfig.json", "{ not json");
    expect(tsconfigOf(join(root, "broken/x.ts")).compilerOptions).toEqual({});
    expect(declaresAliases(join(root, "broken/x.ts"))).toBe(false);
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
