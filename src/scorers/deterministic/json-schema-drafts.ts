/** The JSON Schema drafts `eval.json-schema-valid` reads. */
export type Draft = "2020-12" | "2019-09" | "draft-07";

/** The drafts, newest first. */
export const DRAFTS: readonly Draft[] = ["2020-12", "2019-09", "draft-07"];

/** The draft a schema without `$schema` is read as, unless the `draft` option says otherwise. */
export const DEFAULT_DRAFT: Draft = "2020-12";

/** Each draft's meta-schema URI, as `$schema` names it. */
export const DIALECT: Readonly<Record<Draft, string>> = {
  "2020-12": "https://json-schema.org/draft/2020-12/schema",
  "2019-09": "https://json-schema.org/draft/2019-09/schema",
  "draft-07": "http://json-schema.org/draft-07/schema",
};

function normalise(uri: string): string {
  return uri.replace(/^https?:\/\//, "").replace(/#$/, "");
}

const byUri = new Map(DRAFTS.map((draft) => [normalise(DIALECT[draft]), draft]));

/** The draft a `$schema` value names, or why it names none that is supported. */
export function draftOfDialect(dialect: unknown): Draft | { readonly reason: string } {
  if (typeof dialect !== "string") {
    return { reason: `$schema must be a string URI, got ${JSON.stringify(dialect)}` };
  }
  const draft = byUri.get(normalise(dialect));
  if (draft) return draft;
  return {
    reason: `unsupported $schema ${JSON.stringify(dialect)}: use draft 2020-12, 2019-09 or draft-07 (without $schema a schema is read as the \`draft\` option, 2020-12 by default)`,
  };
}

/** Whether a value names a supported draft (for the `draft` option). */
export function isDraft(value: unknown): value is Draft {
  return typeof value === "string" && (DRAFTS as readonly string[]).includes(value);
}
