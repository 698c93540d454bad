/** Lower-case words joined by dashes, for ids derived from names and descriptions. */
export function slug(text: string, maxLength = 64): string {
  const joined = text
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return joined.slice(0, maxLength).replace(/-+$/g, "");
}

/** The id of an eval built from an adapter: `<adapter>.<description>` unless given. */
export function evalIdFor(adapterName: string, description: string, explicit?: string): string {
  if (explicit !== undefined) return explicit;
  const described = slug(description);
  return described ? `${slug(adapterName)}.${described}` : slug(adapterName);
}
