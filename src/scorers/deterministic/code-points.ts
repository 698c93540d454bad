/** Any surrogate code unit: a string without one has as many code points as code units. */
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * How many Unicode code points `text` holds (what JSON Schema's `minLength` and `maxLength`
 * count): a surrogate pair is one, a lone surrogate is one. Counted in place: spreading a string
 * into an array of characters costs a pointer per character, which for a 50 MB output is
 * seconds and hundreds of megabytes. A string without surrogates (V8 answers at once for one
 * stored a byte per character) is its length.
 */
export function codePointCount(text: string): number {
  if (!SURROGATE.test(text)) return text.length;
  let count = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}
