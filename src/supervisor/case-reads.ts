import { casesStruckOut, MAX_STRIKES } from "./causes.js";
import type { CasesReply, CasesRequest } from "./protocol.js";

/** A read of an eval's cases the CLI waits for, and the crashes it was under way at. */
interface Read {
  request: CasesRequest;
  resolve: (reply: CasesReply) => void;
  strikes: number;
  /** Sent to the eval process that is ready (a careful one waits to go alone). */
  sent: boolean;
}

/** A careful eval's reads are back to full size past this many cases a read. */
const CAREFUL_UP_TO = 4096;

/**
 * The reads of eval cases the supervisor has asked the eval process for (one at a time per eval)
 * and not yet had answered. Each goes to the eval process that is ready, again to the next one
 * after a crash, and ends the eval's cases once it was under way at MAX_STRIKES crashes (a
 * dataset that brings the process down); a run that stops or gives up answers them all. After
 * a crash an eval's reads are careful: they start again at one case and double with each answer
 * (the cases before the one a dataset crashes on still come, and a crash that was not the
 * dataset's costs little), and each goes alone, with no attempt in flight (a crash while it
 * is under way is its own, not an attempt's, as a suspect attempt runs alone too).
 */
export class CaseReads {
  private readonly reads = new Map<string, Read>();
  /** Most cases a read of an eval asks for, since a crash happened while one was under way. */
  private readonly sizes = new Map<string, number>();
  /** Ended ({@link end}): reads asked for from now on are answered at once, with its error. */
  private over: { error?: string } | undefined;

  /** `post`: send to the eval process that is ready (false when none is); `need`: start one. */
  constructor(
    private readonly post: (request: CasesRequest) => boolean,
    private readonly need: () => void,
  ) {}

  get size(): number {
    return this.reads.size;
  }

  /** A careful read is under way: nothing else may be sent until it is answered. */
  get aloneUnderWay(): boolean {
    for (const read of this.reads.values())
      if (read.sent && this.sizes.has(read.request.evalId)) return true;
    return false;
  }

  /** A read was sent and is not answered yet: a suspect attempt waits for it. */
  get anyUnderWay(): boolean {
    for (const read of this.reads.values()) if (read.sent) return true;
    return false;
  }

  /** A careful read waits to be sent alone ({@link sendAlone}). */
  get waitingAlone(): boolean {
    for (const read of this.reads.values()) if (!read.sent) return true;
    return false;
  }

  read(request: Omit<CasesRequest, "t">): Promise<CasesReply> {
    // Ended: no eval process will answer a read any more.
    if (this.over) return Promise.resolve(ended({ t: "cases", ...request }, this.over.error));
    const size = this.sizes.get(request.evalId);
    const max = size === undefined ? request.max : Math.min(size, request.max);
    return new Promise((resolve) => {
      const read: Read = {
        request: { t: "cases", ...request, max },
        resolve,
        strikes: 0,
        sent: false,
      };
      this.reads.set(request.evalId, read);
      if (size === undefined) this.send(read);
      this.need();
    });
  }

  /** A new eval process is ready: every read under way goes to it (a careful one, alone). */
  resend(): void {
    for (const read of this.reads.values()) {
      read.sent = false;
      if (!this.sizes.has(read.request.evalId)) this.send(read);
    }
  }

  /** Send one careful read, while nothing else is in flight. */
  sendAlone(): void {
    for (const read of this.reads.values()) {
      if (read.sent) continue;
      this.send(read);
      return;
    }
  }

  private send(read: Read): void {
    read.sent = this.post(read.request);
  }

  answer(reply: CasesReply): void {
    const read = this.reads.get(reply.evalId);
    if (!read || read.request.from !== reply.from) return;
    this.reads.delete(reply.evalId);
    const size = this.sizes.get(reply.evalId);
    if (size !== undefined) {
      if (size * 2 >= CAREFUL_UP_TO) this.sizes.delete(reply.evalId);
      else this.sizes.set(reply.evalId, size * 2);
    }
    read.resolve(reply);
    this.need();
  }

  /**
   * The eval process they went to ended (`cause`): each is struck, and ended at the last strike
   * (`hangMs`, --hang-timeout, tells a kill for a silent event loop, which is advised on).
   */
  crashed(cause: string, hangMs: number): void {
    for (const [evalId, read] of this.reads) {
      if (!read.sent) continue;
      this.sizes.set(evalId, 1);
      read.request.max = 1;
      if (++read.strikes < MAX_STRIKES) continue;
      this.reads.delete(evalId);
      read.resolve(ended(read.request, casesStruckOut(cause, hangMs)));
    }
  }

  /** No more cases: the run stopped, or (`error`) no eval process can read them. */
  end(error?: string): void {
    this.over ??= error !== undefined ? { error } : {};
    for (const read of this.reads.values()) read.resolve(ended(read.request, error));
    this.reads.clear();
  }
}

/** No case after `request`: because of `error`, or, without one, because the run stopped. */
function ended(request: CasesRequest, error: string | undefined): CasesReply {
  return {
    t: "cases",
    evalId: request.evalId,
    from: request.from,
    json: "[]",
    done: true,
    ...(error !== undefined ? { error } : { stopped: true }),
  };
}
