// A module namespace lists its exports alphabetically; the report should follow the file.

const DECLARATION =
  /\bexport\s+(?:declare\s+)?(?:const|let|var|class|(?:async\s+)?function\s*\*?)\s*([A-Za-z_$][\w$]*)/g;
const LIST = /\bexport\s*(?:type\s*)?\{([^}]*)\}/g;
const DEFAULT = /\bexport\s+default\b|\bexport\s*=|\bmodule\.exports\s*=/g;
const COMMONJS = /\bexports\.([A-Za-z_$][\w$]*)\s*=/g;

/**
 * Order export names as the source declares them (`export const`, `export function`,
 * `export { a, b as c }`, `export default`); names the source does not show (re-exports,
 * generated ones) keep their namespace order after the others.
 */
export function exportsInDeclarationOrder(
  names: readonly string[],
  source: string | undefined,
): string[] {
  if (source === undefined) return [...names];
  const position = new Map<string, number>();
  const note = (name: string, at: number) => {
    if (!position.has(name)) position.set(name, at);
  };
  for (const match of source.matchAll(DECLARATION)) note(match[1]!, match.index);
  for (const match of source.matchAll(COMMONJS)) note(match[1]!, match.index);
  for (const match of source.matchAll(LIST)) {
    match[1]!.split(",").forEach((item, i) => {
      const exported = item
        .trim()
        .split(/\s+as\s+/)
        .pop()
        ?.replace(/^type\s+/, "");
      // Names of one list keep the list's order.
      if (exported) note(exported, match.index + i / 1e4);
    });
  }
  for (const match of source.matchAll(DEFAULT)) note("default", match.index);
  const known = names.filter((name) => position.has(name));
  known.sort((a, b) => position.get(a)! - position.get(b)!);
  return [...known, ...names.filter((name) => !position.has(name))];
}
