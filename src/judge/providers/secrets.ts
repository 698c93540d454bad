// The secrets a call to a judge or embedding endpoint carries (its API key, its Authorization,
// the headers given to the provider, a key in its query string), and what the endpoint says back
// with them masked: a server that quotes the key it refused must not put it in a reason, the
// console, a report or the store.

/** Headers niceeval sets whose values are no secret. */
const PUBLIC_HEADERS = new Set(["content-type", "accept", "anthropic-version"]);

/** Query parameters that carry a key (`?key=…`, `api_key`, `api-key`, `token`…). */
const KEY_PARAMETER = /([?&](?:key|api[-_]?key|access[-_]?token|token|secret)=)([^&#]*)/gi;

/**
 * Values shorter than this are not masked: no API key or token is that short, and masking one
 * ("true", "1", a short user name) would garble every text it appears in.
 */
const MIN_SECRET_CHARS = 8;

/** A URL with the keys in its query string masked (`?key=***`), as base URLs are shown. */
export function maskQueryKeys(url: string): string {
  return url.replace(KEY_PARAMETER, "$1***");
}

/**
 * The secret values a request to `url` with `headers` sends, longest first: each header value
 * but niceeval's own public ones, the token of an `Authorization` (`Bearer <token>`) and the user
 * and password of a basic one, and the keys in the URL's query string.
 */
export function sentSecrets(url: string, headers: Readonly<Record<string, string>>): string[] {
  const found = new Set<string>();
  for (const [name, value] of Object.entries(headers)) {
    if (PUBLIC_HEADERS.has(name.toLowerCase()) || typeof value !== "string") continue;
    found.add(value);
    const credentials = /^(\S+)\s+(\S+)$/.exec(value.trim());
    if (!credentials?.[1] || !credentials[2]) continue;
    found.add(credentials[2]);
    if (credentials[1].toLowerCase() === "basic") {
      const decoded = Buffer.from(credentials[2], "base64").toString("utf8");
      const colon = decoded.indexOf(":");
      for (const part of colon === -1
        ? [decoded]
        : [decoded.slice(0, colon), decoded.slice(colon + 1)])
        found.add(part);
    }
  }
  for (const match of url.matchAll(KEY_PARAMETER)) {
    const raw = match[2] ?? "";
    found.add(raw);
    found.add(decodeOrKeep(raw));
  }
  return [...found]
    .filter((value) => value.trim().length >= MIN_SECRET_CHARS)
    .sort((a, b) => b.length - a.length);
}

/** `text` with every occurrence of each of `secrets` replaced by `***`. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let masked = text;
  for (const secret of secrets)
    if (masked.includes(secret)) masked = masked.split(secret).join("***");
  return masked;
}

/** A parsed JSON answer with every string in it masked ({@link maskSecrets}); keys as they are. */
export function maskStrings(value: unknown, secrets: readonly string[]): unknown {
  if (secrets.length === 0) return value;
  if (typeof value === "string") return maskSecrets(value, secrets);
  if (Array.isArray(value)) return value.map((item) => maskStrings(item, secrets));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, maskStrings(item, secrets)]),
  );
}

function decodeOrKeep(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return text;
  }
}
