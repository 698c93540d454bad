import { EventEmitter } from "node:events";
import { processWide } from "./process-wide.js";

// biome-ignore lint/suspicious/noExplicitAny: process listeners take what their event gives.
type Listener = (...args: any[]) => void;

/** A listener niceeval keeps on `process`. */
interface Kept {
  event: string | symbol;
  listener: Listener;
  /** Node's own, found as niceeval loaded: without them a signal listener added later hears nothing. */
  node: boolean;
  /** Put back but not named: the hook that tells this module of removals, no listener of the run's. */
  unsaid?: true;
}

/** A kept listener that was gone after an attempt, and put back ({@link restoreListeners}). */
export interface RemovedListener {
  event: string;
  /** Node's own (its signal handling and IPC channel count on it), not niceeval's. */
  node: boolean;
}

// Taken as this module loads: code under test may replace them (process.on is EventEmitter's).
const on = EventEmitter.prototype.on;
const off = EventEmitter.prototype.off;
const listenersOf = EventEmitter.prototype.listeners;
const listenerCount = EventEmitter.prototype.listenerCount;
const apply = Reflect.apply;

/**
 * Node turns a signal listener into a signal handler, and counts the IPC channel's listeners,
 * from listeners of these two events. `process.removeAllListeners()` removes them too: put back
 * first, before niceeval's own, they see those added again as Node would.
 */
const NODE_HOOKS = ["newListener", "removeListener"] as const;

/**
 * The process listeners niceeval keeps (the eval process's channel to its supervisor, the run's
 * signal and uncaught-error handlers, its exit hooks), process-wide as two copies of niceeval in
 * one process share `process`. Checked after each attempt (runner/tampered.ts): code under test
 * that removed one (`process.removeAllListeners()`, `process.off(event, …)`) would leave the eval
 * process deaf to its supervisor, or an uncaught error free to end the run.
 */
const state = processWide("process-listeners", () => {
  const kept = NODE_HOOKS.flatMap((event) =>
    (apply(listenersOf, process, [event]) as Listener[]).map((listener) => ({
      event,
      listener,
      node: true,
    })),
  ) as Kept[];
  const shared = { kept, changed: true };
  // Told of every listener removed from `process` (`removeAllListeners` too, but for those of
  // this event itself), so the check after an attempt that removed none costs one comparison.
  const removed: Listener = () => {
    shared.changed = true;
  };
  kept.push({ event: "removeListener", listener: removed, node: false, unsaid: true });
  apply(on, process, ["removeListener", removed]);
  return shared;
});

/**
 * Adds `listener` to `process` for `event` and keeps it there: one that code under test removes
 * is put back after the attempt, which is errored naming it. Returns what removes it for good.
 */
export function keepListener(event: string | symbol, listener: Listener): () => void {
  const kept: Kept = { event, listener, node: false };
  state.kept.push(kept);
  apply(on, process, [event, listener]);
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    const at = state.kept.indexOf(kept);
    if (at >= 0) state.kept.splice(at, 1);
    apply(off, process, [event, listener]);
  };
}

/**
 * The kept listeners no longer on `process`, each put back (Node's first, in the order they were
 * added); undefined when none was removed, the common case.
 */
export function restoreListeners(): RemovedListener[] | undefined {
  const kept = state.kept;
  if (!state.changed && !hooksRemoved(kept)) return undefined;
  state.changed = false;
  let removed: RemovedListener[] | undefined;
  for (let i = 0; i < kept.length; i++) {
    const { event, listener, node, unsaid } = kept[i]!;
    const now = apply(listenersOf, process, [event]) as Listener[];
    let found = false;
    for (let j = 0; j < now.length && !found; j++) found = now[j] === listener;
    if (found) continue;
    apply(on, process, [event, listener]);
    if (unsaid) continue;
    removed ??= [];
    const name = String(event);
    if (!removed.some((r) => r.event === name && r.node === node)) {
      removed[removed.length] = { event: name, node };
    }
  }
  return removed;
}

/**
 * True when `process` holds fewer `removeListener` listeners than niceeval keeps: removing those
 * (`removeAllListeners("removeListener")`) is the one removal no listener is told of.
 */
function hooksRemoved(kept: readonly Kept[]): boolean {
  let hooks = 0;
  for (let i = 0; i < kept.length; i++) if (kept[i]!.event === "removeListener") hooks++;
  return (apply(listenerCount, process, ["removeListener"]) as number) < hooks;
}

/** Why an attempt is errored when it removed process listeners niceeval keeps. */
export function removedListenersMessage(removed: readonly RemovedListener[]): string {
  const own = removed.filter((r) => !r.node).map((r) => `'${r.event}'`);
  const node = removed.filter((r) => r.node).map((r) => `'${r.event}'`);
  const parts: string[] = [];
  if (own.length) parts.push(`niceeval's process ${listed(own)} listener${plural(own)}`);
  if (node.length) {
    parts.push(
      `Node's own process ${listed(node)} listener${plural(node)} (which make signal listeners work)`,
    );
  }
  const all = own.length + node.length > 1 || node.length > 0;
  return `the code under test removed ${parts.join(" and ")} while this attempt ran (or one running beside it); niceeval put ${all ? "them" : "it"} back so the run goes on. Do not call process.removeAllListeners() without an event name, nor remove listeners you did not add: remove your own with process.off(event, yourListener)`;
}

function listed(names: readonly string[]): string {
  if (names.length < 2) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

const plural = (names: readonly string[]) => (names.length > 1 ? "s" : "");
