import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../support/project.js";

// Every process that imports niceeval loads the module that compiles TypeScript (it shares the
// runtime chunk): it must not look for tsx and esbuild until a file has to be compiled, so an
// app that bundles niceeval without them still imports it.
describe("importing niceeval (the build)", () => {
  it("does not resolve tsx or esbuild until TypeScript is compiled", () => {
    const script = `
const Module = require("node:module");
const resolve = Module._resolveFilename;
const asked = [];
Module._resolveFilename = function (request, ...rest) {
  if (/^(tsx|esbuild)(\\/|$)/.test(request)) asked.push(request);
  return resolve.call(this, request, ...rest);
};
import(${JSON.stringify(pathToFileURL(join(repoRoot, "dist/index.js")).href)})
  .then(() => import(${JSON.stringify(pathToFileURL(join(repoRoot, "dist/scorers/index.js")).href)}))
  .then(() => console.log(JSON.stringify(asked)));
`;
    const run = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual([]);
  });
});
