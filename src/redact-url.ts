// Connection strings in messages, locations and stored command lines: with their password masked.

/**
 * A connection string fit for messages and `location`: the password (in the user part or a
 * `password` parameter) replaced by `***`. Works on strings `URL` cannot parse, too, and on an
 * argument that holds one (`--store=postgres://…`).
 */
export function redactUrl(url: string): string {
  return (
    url
      // The password is everything between the user's ":" and the last "@", even characters a
      // URL would want percent-encoded ("@", "#", "/", "?", whitespace) when they were not: a
      // driver that reads up to the last "@" must not find the rest of it in a message, and a
      // URL parser takes a space or a tab in a password too.
      .replace(/([a-z][a-z0-9+.-]*:\/\/[^:@/?#\n]*):[^\n]*@/gi, "$1:***@")
      .replace(/([?&]password=)[^&#]*/gi, "$1***")
  );
}
