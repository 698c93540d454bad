// The eval process's side of the evals its supervisor runs: what each one is (sent once the files
// are loaded), and its cases, read here and sent in batches when asked. The CLI never imports the
// eval files of a supervised run, so their top-level code runs once, in this process.
import { errorMessage } from "../errors.js";
import type { CaseSpec, Runnable } from "../eval/runnable.js";
import { jsonSafeCopy } from "../report/json-safe.js";
import type { RunEntry } from "../runner/entry.js";
import { nextCase } from "../runner/source.js";
import type { CasesReply, CasesRequest, EvalDescription } from "./protocol.js";
import { isPlainSpec } from "./wire.js";

/** What the supervisor is told of each loaded eval. */
export function describeEvals(entries: readonly RunEntry[]): EvalDescription[] {
  return entries.map(({ eval: runnable, file }) => {
    let fingerprint: unknown = null;
    try {
      fingerprint = runnable.fingerprint?.() ?? null;
    } catch (error) {
      fingerprint = { unreadable: errorMessage(error) };
    }
    return {
      id: runnable.id,
      style: runnable.style,
      ...(file !== undefined ? { file } : {}),
      ...(runnable.concurrency !== undefined ? { concurrency: runnable.concurrency } : {}),
      ...(runnable.trials !== undefined ? { trials: runnable.trials } : {}),
      fingerprint: jsonSafeCopy(fingerprint),
    };
  });
}

/** A batch of cases stops growing past this much JSON (large inputs go a few at a time). */
const MAX_BATCH_CHARS = 4 * 1024 * 1024;

/** Where the reading of one eval's cases is. */
interface Cursor {
  iterator: Iterator<CaseSpec> | AsyncIterator<CaseSpec>;
  sync: boolean;
  /** Cases read so far. */
  at: number;
  /** An asynchronous dataset's next case, asked for and not yet come when the last batch left. */
  pending?: Promise<IteratorResult<CaseSpec>> | undefined;
}

/** What {@link soon} gives for a promise still pending after this turn of the event loop. */
const NOT_YET = Symbol("not yet");

/** The promise's value if it settles within this turn of the event loop, else NOT_YET. */
function soon<T>(promise: Promise<T>): Promise<T | typeof NOT_YET> {
  return Promise.race([promise, new Promise<typeof NOT_YET>((r) => setImmediate(r, NOT_YET))]);
}

/**
 * Reads each eval's cases for the supervisor, from where it asks: a request that goes on from
 * where the last one stopped goes on reading; one from an earlier place (the supervisor's new
 * eval process after a crash is asked again from where the old one was) reads from the start and
 * skips. Requests of one eval come one at a time; those of different evals run side by side.
 */
export class CaseServer {
  private readonly cursors = new Map<string, Cursor>();

  constructor(
    private readonly evals: ReadonlyMap<string, Runnable>,
    private readonly signal: AbortSignal,
  ) {}

  async read(request: CasesRequest): Promise<CasesReply> {
    const { evalId, from } = request;
    const reply: CasesReply = { t: "cases", evalId, from, json: "[]", done: true };
    const runnable = this.evals.get(evalId);
    if (!runnable) {
      reply.error = `eval "${evalId}" did not load in the eval process`;
      return reply;
    }
    /** Each case's JSON. */
    const specs: string[] = [];
    let chars = 0;
    const byId: number[] = [];
    try {
      const cursor = this.cursorAt(evalId, runnable, from);
      let done = false;
      while (specs.length < request.max && chars < MAX_BATCH_CHARS) {
        const next = cursor.sync
          ? (cursor.iterator as Iterator<CaseSpec>).next()
          : await this.nextAsync(cursor, request, specs.length > 0);
        if (next === NOT_YET) break;
        if (next.done) {
          done = true;
          break;
        }
        cursor.at++;
        if (cursor.at <= from) continue;
        const spec = next.value;
        // A case JSON cannot carry goes as its JSON-safe copy (to report and store); the attempt
        // then runs this process's own case, found by its id.
        const plain = isPlainSpec(spec);
        if (!plain) byId.push(specs.length);
        const json = JSON.stringify(plain ? spec : jsonSafeCopy(spec));
        specs.push(json);
        chars += json.length;
      }
      reply.done = done;
      if (done) this.cursors.delete(evalId);
    } catch (error) {
      this.cursors.delete(evalId);
      reply.error = errorMessage(error);
    }
    reply.json = `[${specs.join(",")}]`;
    if (byId.length > 0) reply.byId = byId;
    return reply;
  }

  /**
   * An asynchronous dataset's next case. Once the batch has cases, one that does not come within
   * this turn of the event loop is not waited for: the batch leaves with what it has (a slow
   * dataset's first cases run while it reads on), and the next request takes up that wait.
   */
  private async nextAsync(
    cursor: Cursor,
    request: CasesRequest,
    holding: boolean,
  ): Promise<IteratorResult<CaseSpec> | typeof NOT_YET> {
    const iterator = cursor.iterator as AsyncIterator<CaseSpec>;
    const next = cursor.pending ?? nextCase(iterator, this.signal, request.waitMs);
    cursor.pending = undefined;
    if (!holding) return next;
    const settled = await soon(next);
    if (settled === NOT_YET) {
      // Waited for by the next request; a failure nobody asks for again is not unhandled.
      next.catch(() => {});
      cursor.pending = next;
    }
    return settled;
  }

  /** The cursor of an eval at `from` cases read or before: a new one when it is past that. */
  private cursorAt(evalId: string, runnable: Runnable, from: number): Cursor {
    const cursor = this.cursors.get(evalId);
    if (cursor && cursor.at === from) return cursor;
    if (cursor && !cursor.sync)
      void Promise.resolve((cursor.iterator as AsyncIterator<CaseSpec>).return?.()).catch(() => {});
    const cases = runnable.cases();
    const fresh: Cursor =
      Symbol.iterator in cases
        ? { iterator: (cases as Iterable<CaseSpec>)[Symbol.iterator](), sync: true, at: 0 }
        : {
            iterator: (cases as AsyncIterable<CaseSpec>)[Symbol.asyncIterator](),
            sync: false,
            at: 0,
          };
    this.cursors.set(evalId, fresh);
    return fresh;
  }
}
