import { isClosedOutput } from "../errors.js";

// One rule for both standard streams: once an output's reader is gone (`niceeval run 2>&1 | head`
// closes both), writing to it is a silent no-op. The reports write stdout through descriptors and
// stop at EPIPE (`writeText`, `SinkSet`); `process.stdout` and `process.stderr` (progress,
// warnings, the summary's notes, the run guard's messages, what the code under test prints)
// follow this module. Node's streams report a failed write as an 'error' event, which with no
// listener is an uncaught exception: the run's guard would write it to the same closed stderr,
// raising another, endlessly (a run spinning until killed, its error list growing until the heap
// ran out), and each would be charged to the run as an error in user code.

/** The streams already given the rule. */
const guarded = new WeakSet<NodeJS.WritableStream>();

/**
 * Gives `process.stdout` and `process.stderr` the rule as each is first used. They are not
 * created here: creating one makes its pipe non-blocking, which the reports' synchronous writes
 * to the same pipe would then have to wait out.
 */
export function dropWritesToClosedStdio(): void {
  for (const name of ["stdout", "stderr"] as const) {
    const own = Object.getOwnPropertyDescriptor(process, name);
    const create = own?.get;
    if (!own?.configurable || create === undefined) {
      dropWritesOnceClosed(process[name]);
      continue;
    }
    let stream: NodeJS.WriteStream | undefined;
    Object.defineProperty(process, name, {
      configurable: true,
      enumerable: own.enumerable ?? true,
      get() {
        if (stream === undefined) {
          stream = create.call(process) as NodeJS.WriteStream;
          dropWritesOnceClosed(stream);
        }
        return stream;
      },
    });
  }
}

/**
 * Makes every later write to `stream` a no-op once its output is gone (EPIPE, EBADF, destroyed);
 * the error says so to nobody, there being nowhere left to say it. Any other failed write (a full
 * disk under `2>file`) loses that write only, for the same reason: it is never an uncaught error.
 */
export function dropWritesOnceClosed(stream: NodeJS.WritableStream): void {
  if (guarded.has(stream)) return;
  guarded.add(stream);
  keepDescriptorOpen(stream);
  stream.on("error", (error: unknown) => {
    if (isClosedOutput(error)) stream.write = dropWrite;
  });
}

/**
 * Code under test that ends `process.stdout` or `process.stderr` (`process.stdout.end()`) ends
 * that stream, not the descriptor under it: on a socket (what a Node parent, a test or task runner,
 * gives a child) ending it shuts the socket down for every process that shares it, so the CLI's
 * reports, written to the same descriptor (the eval process shares the CLI's), would stop there,
 * read as a reader that left. The stream still ends (later writes to it are dropped).
 */
function keepDescriptorOpen(stream: NodeJS.WritableStream): void {
  const ending = stream as NodeJS.WritableStream & { _final?: unknown };
  if (typeof ending._final === "function") ending._final = (done: () => void) => done();
}

/** A write to an output that is gone: nothing is written, and the caller is told it went. */
function dropWrite(
  _chunk: unknown,
  encoding?: BufferEncoding | ((error?: Error | null) => void),
  callback?: (error?: Error | null) => void,
): boolean {
  const done = typeof encoding === "function" ? encoding : callback;
  if (done) process.nextTick(done);
  return true;
}
