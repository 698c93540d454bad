import type { StandardSchemaV1 } from "@standard-schema/spec";
import { issueDottedPath } from "./standard-schema.js";

/** Flatten Standard Schema issues into `{ path, message }` with a dotted path, "(root)" when empty. */
export function formatIssues(
  issues: readonly StandardSchemaV1.Issue[],
): { path: string; message: string }[] {
  return issues.map((issue) => ({ path: issueDottedPath(issue), message: issue.message }));
}
