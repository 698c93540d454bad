/**
 * State that must be one per process, even when niceeval is loaded more than once (the CLI's
 * copy and an eval file's copy can be distinct module instances, as can two installs in a
 * monorepo): judge settings, providers, schedulers, caches and usage ledgers live here.
 */
export function processWide<T>(name: string, create: () => T): T {
  const key = Symbol.for(`niceeval.${name}`);
  const global = globalThis as Record<symbol, unknown>;
  if (!(key in global)) global[key] = create();
  return global[key] as T;
}
