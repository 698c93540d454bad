/**
 * A small seeded PRNG (xoshiro128**, Blackman and Vigna 2018), so that bootstrap intervals
 * are the same for the same seed on every machine. Not for cryptography.
 */

/** A seeded source of random numbers. */
export interface Random {
  /** The next 32-bit unsigned integer. */
  uint32(): number;
  /** A float in [0, 1) with 32 bits of randomness. */
  float(): number;
  /** An integer in [0, n), for n up to 2^32 (multiply-shift: bias below n / 2^32). */
  int(n: number): number;
}

/** 2^-32 */
const INV_2_32 = 1 / 4294967296;

/** Expands a 32-bit seed into the four state words (splitmix32), so that nearby seeds diverge. */
export function seedState(seed: number): Uint32Array {
  const state = new Uint32Array(4);
  let x = seed >>> 0;
  for (let i = 0; i < 4; i++) {
    x = (x + 0x9e3779b9) >>> 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    state[i] = (z ^ (z >>> 16)) >>> 0;
  }
  // The all-zero state is the one state xoshiro cannot leave.
  if ((state[0]! | state[1]! | state[2]! | state[3]!) === 0) state[0] = 1;
  return state;
}

/**
 * xoshiro128** seeded from one number.
 * @example
 * const random = createRandom(42);
 * random.int(6); // the same die roll for seed 42, everywhere
 */
export function createRandom(seed: number): Random {
  const s = seedState(seed);
  let s0 = s[0]!;
  let s1 = s[1]!;
  let s2 = s[2]!;
  let s3 = s[3]!;
  const uint32 = (): number => {
    const r = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = rotl(s3, 11);
    return r;
  };
  return {
    uint32,
    float: () => uint32() * INV_2_32,
    int: (n) => Math.floor(uint32() * INV_2_32 * n),
  };
}

const rotl = (x: number, k: number): number => (x << k) | (x >>> (32 - k));
