import { NiceevalError } from "../errors.js";

/** Run `work`, failing with a clear error if it takes longer than `ms` (no limit when undefined). */
export async function withTimeout<T>(
  work: () => T | Promise<T>,
  ms: number | undefined,
  what: string,
): Promise<T> {
  if (ms === undefined || ms <= 0 || !Number.isFinite(ms)) return work();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new NiceevalError(
            "TIMEOUT",
            `${what} timed out after ${ms} ms; raise the timeout or make it faster`,
          ),
        ),
      ms,
    );
  });
  try {
    return await Promise.race([Promise.resolve().then(work), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
