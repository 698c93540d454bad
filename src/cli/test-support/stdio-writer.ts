// A process that goes on writing to its stdout and stderr after their readers leave, with an
// uncaught-error handler that writes to stderr as the run guard's does. Arguments: the file its
// result goes to; "closed-fds" to close its descriptors 1 and 2 itself (EBADF). Its result: how
// many uncaught errors it saw (without the rule, a write of the handler's raised another, ever
// after: 14,000 in 20 s, and the process never ended).
import { closeSync, writeFileSync } from "node:fs";
import { dropWritesToClosedStdio } from "../closed-stdio.js";

const [result, ...flags] = process.argv.slice(2);
dropWritesToClosedStdio();
let uncaught = 0;
process.on("uncaughtException", (error: NodeJS.ErrnoException) => {
  uncaught++;
  process.stderr.write(`uncaught ${error.code}\n`);
});
process.stdout.write("ready\n");
process.stderr.write("ready\n");
if (flags.includes("closed-fds")) {
  closeSync(1);
  closeSync(2);
}
let writes = 0;
const writer = setInterval(() => {
  process.stdout.write(`out ${writes}\n`);
  process.stderr.write(`err ${writes}\n`);
  console.log(`log ${writes}`);
  console.error(`error ${writes}`);
  if (++writes < 100) return;
  clearInterval(writer);
  writeFileSync(result!, JSON.stringify({ uncaught, writes }));
}, 5);
