// The eval process's side of the evals its supervisor runs: what each one is (sent once the files
// are loaded), and its cases, read here and sent in batches when asked. The CLI never imports the
// eval files of a supervised run, so their top-level code runs once, in this process.

import { setImmediate } from "../clock.js";
import { DefinitionError, errorMessage, thrownWhere } from "../errors.js";
import type { CaseSpec, Runnable } from "../eval/runnable.js";
import { jsonSafeCopy } from "../json-safe.js";
import { sortedModels } from "../judge/judge-models.js";
import { defaultJudgeModels } from "../judge/registry.js";
import type { RunEntry } from "../runner/entry.js";
import { nextCase } from "../runner/source.js";
import { eventLoopTurns } from "../runner/turns.js";
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
    // The defaults are this process's: the eval files that may set them load here, not in the CLI.
    const judgeModels = sortedModels([
      ...(runnable.judgeModels?.() ?? []),
      ...defaultJudgeModels(),
    ]);
    return {
      id: runnable.id,
      style: runnable.style,
      ...(runnable.passFail ? { passFail: true as const } : {}),
      ...(file !== undefined ? { file } : {}),
      ...(runnable.concurrency !== undefined ? { concurrency: runnable.concurrency } : {}),
      ...(runnable.trials !== undefined ? { trials: runnable.trials } : {}),
      ...(runnable.maxPoints !== undefined ? { maxPoints: runnable.maxPoints } : {}),
      ...(runnable.readsOnce ? { readsOnce: true as const } : {}),
      fingerprint: jsonSafeCopy(fingerprint),
      ...(judgeModels.length > 0 ? { judgeModels } : {}),
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
  /** The cases sent as copies (CasesReply.byId), by eval then case id: what their attempts run. */
  private readonly served = new Map<string, Map<string, CaseSpec>>();
  /** Every case of an eval by id, read once an attempt names a case sent by an earlier process. */
  private readonly allCases = new Map<string, Promise<Map<string, CaseSpec>>>();
  /** The wait for a dataset's next case the supervisor asks for (its --hang-timeout). */
  private waitMs: number | undefined;

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
    this.waitMs = request.waitMs;
    /** Each case's JSON (null for one that goes by structured clone). */
    const specs: string[] = [];
    let chars = 0;
    const cloned: [number, CaseSpec][] = [];
    const byId: number[] = [];
    // A slow synchronous dataset does not block the heartbeat: when the event loop is due a
    // turn, the batch leaves with what it has (or, before its first case, waits for the turn).
    const turns = eventLoopTurns();
    try {
      const cursor = this.cursorAt(evalId, runnable, from);
      let done = false;
      while (specs.length < request.max && chars < MAX_BATCH_CHARS) {
        const turn = cursor.sync ? turns.due() : undefined;
        if (turn) {
          if (specs.length > 0) break;
          await turn;
        }
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
        const json = this.encode(evalId, next.value, specs.length, cloned, byId);
        specs.push(json);
        chars += json.length;
      }
      reply.done = done;
      if (done) this.cursors.delete(evalId);
    } catch (error) {
      this.cursors.delete(evalId);
      // Its type and where the user's code threw it, as an unsupervised run says them; an
      // eval's definition at fault is said as it is (remote-evals.ts throws it again as such).
      if (error instanceof DefinitionError) {
        reply.error = error.message;
        reply.definition = true;
      } else reply.error = thrownWhere(error);
    }
    reply.json = `[${specs.join(",")}]`;
    if (cloned.length > 0) reply.cloned = cloned;
    if (byId.length > 0) reply.byId = byId;
    return reply;
  }

  /**
   * A case's JSON; "null" for one JSON cannot carry: structured clone carries it (a Date, a Map,
   * a BigInt: `cloned`), or, when it cannot either (a function), its copy goes as JSON would
   * write it (the same dataset hash as a run in one process) and the attempt runs this
   * process's own case, found by its id (`byId`).
   */
  private encode(
    evalId: string,
    spec: CaseSpec,
    at: number,
    cloned: [number, CaseSpec][],
    byId: number[],
  ): string {
    if (isPlainSpec(spec)) return JSON.stringify(spec);
    try {
      cloned.push([at, structuredClone(spec)]);
      return "null";
    } catch {}
    byId.push(at);
    const served = this.served.get(evalId) ?? new Map<string, CaseSpec>();
    this.served.set(evalId, served);
    served.set(spec.id, spec);
    try {
      return JSON.stringify(spec);
    } catch {
      return JSON.stringify(jsonSafeCopy(spec));
    }
  }

  /**
   * The case an attempt sent by case id runs: the one sent as a copy, else (an attempt an earlier
   * eval process sent the copy of) the eval's case of that id, read again.
   */
  find(runnable: Runnable, caseId: string): Promise<CaseSpec | undefined> | CaseSpec {
    const served = this.served.get(runnable.id)?.get(caseId);
    if (served) return served;
    let cases = this.allCases.get(runnable.id);
    if (!cases) {
      cases = this.readAll(runnable);
      this.allCases.set(runnable.id, cases);
    }
    return cases.then((byId) => byId.get(caseId));
  }

  private async readAll(runnable: Runnable): Promise<Map<string, CaseSpec>> {
    const byId = new Map<string, CaseSpec>();
    const cases = runnable.cases();
    if (Symbol.iterator in cases) {
      for (const spec of cases as Iterable<CaseSpec>)
        if (!byId.has(spec.id)) byId.set(spec.id, spec);
      return byId;
    }
    const iterator = (cases as AsyncIterable<CaseSpec>)[Symbol.asyncIterator]();
    for (;;) {
      const next = await nextCase(iterator, this.signal, this.waitMs);
      if (next.done) return byId;
      if (!byId.has(next.value.id)) byId.set(next.value.id, next.value);
    }
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
