#!/usr/bin/env node
import { main } from "./main.js";

const code = await main(process.argv.slice(2), {
  cwd: process.cwd(),
  env: process.env,
  stdoutFd: 1,
  stderr: (text) => process.stderr.write(text),
  isTTY: Boolean(process.stdout.isTTY),
  stderrIsTTY: Boolean(process.stderr.isTTY),
});
process.exit(code);
