import type { StandardSchemaV1 } from "@standard-schema/spec";

/** Whether a value is a Standard Schema (zod 4, valibot, arktype…): it carries a `~standard.validate`. */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if (typeof value !== "object" && typeof value !== "function") return false;
  if (value === null) return false;
  const standard = (value as { "~standard"?: { validate?: unknown } })["~standard"];
  return (
    typeof standard === "object" && standard !== null && typeof standard.validate === "function"
  );
}

/** A Standard Schema issue path as a JSON Pointer (`/items/2/price`), "(root)" when empty. */
export function issuePointer(issue: StandardSchemaV1.Issue): string {
  const path = issue.path;
  if (!path || path.length === 0) return "(root)";
  let pointer = "";
  for (const segment of path) {
    const key = typeof segment === "object" ? segment.key : segment;
    pointer += `/${String(key).replaceAll("~", "~0").replaceAll("/", "~1")}`;
  }
  return pointer;
}
