// Numbers in reasons and gate messages, written with as many digits as it takes to tell them from
// the number they are compared with.

/** `value` with `digits` decimals, trailing zeros dropped: 0.5, 0.612 (a writer for shownApart). */
export const decimals = (value: number, digits: number): string =>
  String(Number(value.toFixed(digits)));

/** `value` with exactly `digits` decimals: 0.50 (a writer for shownApart). */
export const fixedDecimals = (value: number, digits: number): string => value.toFixed(digits);

/**
 * `value` as `write(value, digits)` writes it, with the fewest digits from `least` up to `most`
 * that read as comparing with `other` the way `value` does (below, equal or above), so that
 * 0.4999999 beside a threshold of 0.5 is not printed "0.5"; with `most` digits when none does.
 * @example
 * shownApart(0.4999999, 0.5, (v, n) => v.toFixed(n), 1, 9); // "0.4999999"
 */
export function shownApart(
  value: number,
  other: number,
  write: (value: number, digits: number) => string,
  least: number,
  most: number,
): string {
  const side = Math.sign(value - other);
  for (let digits = least; digits < most; digits++) {
    const shown = write(value, digits);
    if (Math.sign(Number(shown) - other) === side) return shown;
  }
  return write(value, most);
}
