import type { StandardSchemaV1 } from "@standard-schema/spec";

/**
 * Whether a value is a Standard Schema (zod 4, valibot, arktype…): it carries a
 * `~standard.validate`. Functions count, since arktype's schemas are callable.
 * @example
 * isStandardSchema(type("string")); // → true (arktype)
 * isStandardSchema({ type: "string" }); // → false (a JSON Schema)
 */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if (typeof value !== "object" && typeof value !== "function") return false;
  if (value === null) return false;
  let standard: unknown;
  try {
    standard = (value as { "~standard"?: unknown })["~standard"];
  } catch {
    // A getter that throws makes it no schema we can use, not a crash.
    return false;
  }
  return (
    typeof standard === "object" &&
    standard !== null &&
    typeof (standard as { validate?: unknown }).validate === "function"
  );
}

function keyOf(segment: PropertyKey | StandardSchemaV1.PathSegment): PropertyKey {
  return typeof segment === "object" && segment !== null ? segment.key : segment;
}

/** A Standard Schema issue path as a JSON Pointer (`/items/2/price`), "(root)" when empty. */
export function issuePointer(issue: StandardSchemaV1.Issue): string {
  const path = issue.path;
  if (!path || path.length === 0) return "(root)";
  let pointer = "";
  for (const segment of path) {
    pointer += `/${String(keyOf(segment)).replaceAll("~", "~0").replaceAll("/", "~1")}`;
  }
  return pointer;
}

/** A Standard Schema issue path as a dotted path (`items[2].price`), "(root)" when empty. */
export function issueDottedPath(issue: StandardSchemaV1.Issue): string {
  const path = issue.path;
  if (!path || path.length === 0) return "(root)";
  let dotted = "";
  for (const segment of path) {
    const key = keyOf(segment);
    dotted += typeof key === "number" ? `[${key}]` : `${dotted === "" ? "" : "."}${String(key)}`;
  }
  return dotted;
}
