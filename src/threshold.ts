// One comparison of a figure with the threshold it must reach, for the CLI's gates and evaluate().

/**
 * How far under a threshold a mean, a sum or a rate may fall and still meet it: what adding and
 * dividing in floating point loses (three scores of 0.7 average to 0.6999999999999998, 0.7 + 0.1
 * is 0.7999999999999999), far below any difference a threshold is meant to tell.
 */
export const ROUNDING = 1e-9;

/**
 * Whether `value` is under `threshold` by more than rounding.
 * @example
 * below((0.7 + 0.7 + 0.7) / 3, 0.7); // false: it meets 0.7
 */
export const below = (value: number, threshold: number): boolean => value < threshold - ROUNDING;
