/**
 * Ids in the viewer's URL paths. An id that is `.` or `..` would be taken as a relative path
 * segment (and percent-encoding the dots does not stop a URL parser from it), so it gets a `~` in
 * front, as does any id that starts with `~`; `decodeSegment` takes one `~` off. Shared by the
 * server's routes and the web app (live and static).
 * @example
 * encodeSegment(".."); // "~.."
 * decodeSegment("~.."); // ".."
 */
export function encodeSegment(id: string): string {
  return encodeURIComponent(id === "." || id === ".." || id.startsWith("~") ? `~${id}` : id);
}

/** The id of a path segment (already percent-decoded) that {@link encodeSegment} wrote. */
export function decodeSegment(segment: string): string {
  return segment.startsWith("~") ? segment.slice(1) : segment;
}
