/**
 * Fit an audit into `maxBytes` of JSON by cutting its longest strings first (each cut is
 * marked with how much was dropped), so the structure and the short fields stay readable.
 */
export function boundAudit(audit: unknown, maxBytes: number): unknown {
  const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");
  const total = size(audit);
  if (total <= maxBytes) return audit;
  const marker = { truncated: { originalBytes: total, maxBytes } };
  const copy: Record<string, unknown> =
    typeof audit === "object" && audit !== null && !Array.isArray(audit)
      ? { ...(structuredClone(audit) as Record<string, unknown>), ...marker }
      : { value: structuredClone(audit), ...marker };
  for (let round = 0; round < 64; round++) {
    const over = size(copy) - maxBytes;
    if (over <= 0) return copy;
    const longest = longestString(copy);
    if (!longest || longest.value.length < 64) break;
    const keep = Math.max(
      0,
      Math.min(longest.value.length - over - 48, Math.floor(longest.value.length / 2)),
    );
    longest.set(`${longest.value.slice(0, keep)}…[cut ${longest.value.length - keep} characters]`);
  }
  return {
    truncated: { originalBytes: total, maxBytes },
    note: "the audit did not fit in maxAuditBytes even after cutting its texts",
  };
}

type Slot = { value: string; set: (value: string) => void };

function longestString(root: unknown): Slot | undefined {
  let best: Slot | undefined;
  const visit = (holder: Record<string, unknown> | unknown[], key: string | number) => {
    const value = (holder as Record<string | number, unknown>)[key];
    if (typeof value === "string") {
      if (!best || value.length > best.value.length) {
        best = { value, set: (next) => ((holder as Record<string | number, unknown>)[key] = next) };
      }
    } else if (value && typeof value === "object") {
      for (const child of Object.keys(value))
        visit(value as Record<string, unknown>, Array.isArray(value) ? Number(child) : child);
    }
  };
  visit({ root }, "root");
  return best;
}
