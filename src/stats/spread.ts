/**
 * Spread, relative to the values' size, below which values are one value but for rounding: their
 * mean is off by up to about n·2^-53 of their size (eight 0.9s average to 0.9000000000000001), a
 * spread that correlates ±1 with anything and gives an interval of zero width. 1e-9 is far above
 * that up to a million values and far below any spread of scores worth a correlation or an
 * interval; the sign-flip test allows rounding as much.
 */
export const NEGLIGIBLE_SPREAD = 1e-9;

/**
 * Whether `sd`, a spread of values whose largest magnitude is `size`, is theirs and not rounding
 * around one value.
 * @example
 * hasSpread(1e-17, 0.9); // false: three 0.9s
 */
export const hasSpread = (sd: number, size: number): boolean =>
  sd > NEGLIGIBLE_SPREAD * Math.abs(size);
