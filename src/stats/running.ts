/**
 * A mean and a standard deviation folded one value at a time, without keeping the values. The mean
 * is the compensated sum over n (Neumaier's summation), so it does not depend on the order the
 * values came in: eight 1s and two 0s average exactly 0.8 whichever come first, and a threshold of
 * 0.8 is met by both orders. The spread is Welford's, which is stable in any order.
 */
export class RunningMean {
  n = 0;
  private sum = 0;
  private lost = 0;
  private welford = 0;
  private m2 = 0;

  add(x: number): void {
    this.n++;
    const total = this.sum + x;
    // What the addition rounded away, from whichever term was the smaller.
    this.lost += Math.abs(this.sum) >= Math.abs(x) ? this.sum - total + x : x - total + this.sum;
    this.sum = total;
    const delta = x - this.welford;
    this.welford += delta / this.n;
    this.m2 += delta * (x - this.welford);
  }

  /** The mean, or null before any value. */
  get mean(): number | null {
    return this.n > 0 ? (this.sum + this.lost) / this.n : null;
  }

  /** The sample standard deviation, or null below two values. */
  get sd(): number | null {
    return this.n > 1 ? Math.sqrt(this.m2 / (this.n - 1)) : null;
  }
}
