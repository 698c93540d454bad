// Imports by a tsconfig.json alias (`paths`, `baseUrl`), found as TypeScript finds them, so an
// eval file can import `@/lib/answer` as the project's own code does.
import { resolve } from "node:path";
import { existingFile } from "./ts-shared.js";
import { type Aliases, aliasesOf } from "./tsconfig.js";

/**
 * The file an import by name from `from` names through the nearest tsconfig.json's `paths` (the
 * pattern that matches best: an exact one, else the longest prefix before its `*`; each of its
 * places in order) and then `baseUrl`, as a real path; undefined when none names a file (the
 * import is then a package's).
 */
export function resolveAlias(specifier: string, from: string): string | undefined {
  const aliases = aliasesOf(from);
  if (aliases === undefined) return undefined;
  for (const place of aliasPlaces(specifier, aliases)) {
    const found = existingFile(place);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Whether the nearest tsconfig.json of `from` has an alias that could map `specifier`. */
export function aliasMayMap(specifier: string, from: string): boolean {
  const aliases = aliasesOf(from);
  return aliases !== undefined && aliasPlaces(specifier, aliases).length > 0;
}

/** What `aliases` make of `specifier`, in the order TypeScript tries them. */
export function aliasPlaces(specifier: string, aliases: Aliases): string[] {
  const places: string[] = [];
  const match = bestPattern(Object.keys(aliases.paths), specifier);
  if (match !== undefined)
    for (const place of aliases.paths[match.pattern] ?? [])
      places.push(resolve(aliases.pathsBase, place.replace("*", match.star)));
  if (aliases.baseUrl !== undefined) places.push(resolve(aliases.baseUrl, specifier));
  return places;
}

/** The `paths` pattern `specifier` matches, with what its `*` stands for. */
function bestPattern(
  patterns: readonly string[],
  specifier: string,
): { pattern: string; star: string } | undefined {
  if (patterns.includes(specifier)) return { pattern: specifier, star: "" };
  let best: { pattern: string; star: string; prefix: number } | undefined;
  for (const pattern of patterns) {
    const star = pattern.indexOf("*");
    if (star < 0 || pattern.indexOf("*", star + 1) >= 0) continue;
    const prefix = pattern.slice(0, star);
    const suffix = pattern.slice(star + 1);
    if (
      specifier.length >= prefix.length + suffix.length &&
      specifier.startsWith(prefix) &&
      specifier.endsWith(suffix) &&
      (best === undefined || prefix.length > best.prefix)
    )
      best = {
        pattern,
        star: specifier.slice(prefix.length, specifier.length - suffix.length),
        prefix: prefix.length,
      };
  }
  return best && { pattern: best.pattern, star: best.star };
}
