import type { StandardSchemaV1 } from "@standard-schema/spec";

/** Flatten Standard Schema issues into `{ path, message }` with a dotted path. */
export function formatIssues(
  issues: readonly StandardSchemaV1.Issue[],
): { path: string; message: string }[] {
  return issues.map((issue) => ({
    path: (issue.path ?? [])
      .map((segment) => (typeof segment === "object" ? segment.key : segment))
      .map((key) => (typeof key === "number" ? `[${key}]` : String(key)))
      .join(".")
      .replace(/\.\[/g, "["),
    message: issue.message,
  }));
}
