// NumPy's default random generator, bit for bit, so that a seeded significance test draws the same
// resamples as sacreBLEU (which calls numpy.random.default_rng(seed)).
//
// Reference implementation matched (NumPy 1.17+; checked against NumPy 2.4.6):
//   - numpy/random/bit_generator.pyx: SeedSequence (hashmix, mix, mix_entropy, generate_state),
//     from an integer seed, pool size 4;
//   - numpy/random/_pcg64.pyx + src/pcg64/pcg64.h: PCG64 (PCG XSL-RR 128/64), seeded with
//     generate_state(4, uint64) as (state, increment) by pcg_setseq_128_srandom_r; next_uint32
//     returns the low then the high half of one 64-bit output;
//   - numpy/random/src/distributions/distributions.c: random_bounded_uint64_fill with Lemire's
//     method on 32-bit draws (Generator.integers(0, n) and Generator.choice(n, replace=True) for
//     n ≤ 2^32), and random_bounded_bool_fill (Generator.integers(2, dtype=bool): one 32-bit draw
//     gives 32 booleans, lowest bit first).
// test/unit/significance.test.ts pins the first draws against NumPy's.

const MASK64 = (1n << 64n) - 1n;
const MASK128 = (1n << 128n) - 1n;
const PCG_MULT = 0x2360ed051fc65da44385df649fccf645n;

const INIT_A = 0x43b0d7e5;
const MULT_A = 0x931e8875;
const INIT_B = 0x8b51f9dd;
const MULT_B = 0x58f38ded;
const MIX_MULT_L = 0xca01f9dd;
const MIX_MULT_R = 0x4973f715;

/** SeedSequence(seed).generate_state(nWords) as uint32 words. */
export function seedSequenceState(seed: number, nWords: number): number[] {
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new RangeError(`the seed must be a whole number ≥ 0, not ${seed}`);
  }
  // _int_to_uint32_array: lowest 32 bits first.
  const entropy: number[] = [];
  let n = seed;
  if (n === 0) entropy.push(0);
  while (n > 0) {
    entropy.push(n % 2 ** 32);
    n = Math.floor(n / 2 ** 32);
  }
  let hashConst = INIT_A;
  const hashmix = (value: number): number => {
    let v = (value ^ hashConst) >>> 0;
    hashConst = Math.imul(hashConst, MULT_A) >>> 0;
    v = Math.imul(v, hashConst) >>> 0;
    return (v ^ (v >>> 16)) >>> 0;
  };
  const mix = (x: number, y: number): number => {
    const r = (Math.imul(MIX_MULT_L, x) - Math.imul(MIX_MULT_R, y)) >>> 0;
    return (r ^ (r >>> 16)) >>> 0;
  };
  const pool = [0, 0, 0, 0];
  for (let i = 0; i < pool.length; i++) pool[i] = hashmix(i < entropy.length ? entropy[i] : 0);
  for (let src = 0; src < pool.length; src++) {
    for (let dst = 0; dst < pool.length; dst++) if (src !== dst) pool[dst] = mix(pool[dst], hashmix(pool[src]));
  }
  for (let src = pool.length; src < entropy.length; src++) {
    for (let dst = 0; dst < pool.length; dst++) pool[dst] = mix(pool[dst], hashmix(entropy[src]));
  }
  let hc = INIT_B;
  const out: number[] = [];
  for (let i = 0; i < nWords; i++) {
    let v = (pool[i % pool.length] ^ hc) >>> 0;
    hc = Math.imul(hc, MULT_B) >>> 0;
    v = Math.imul(v, hc) >>> 0;
    out.push((v ^ (v >>> 16)) >>> 0);
  }
  return out;
}

/** numpy.random.default_rng(seed): PCG64 behind a Generator, with the draws sacreBLEU uses. */
export class NumpyGenerator {
  private state: bigint;
  private readonly inc: bigint;
  private hasUint32 = false;
  private uinteger = 0;

  constructor(seed: number) {
    const w = seedSequenceState(seed, 8);
    // generate_state(4, uint64): pairs of uint32 read little-endian; words 0,1 are the state's high
    // and low halves, 2,3 the sequence's (PCG_128BIT_CONSTANT(high, low)).
    const u64 = (i: number) => (BigInt(w[2 * i + 1]) << 32n) | BigInt(w[2 * i]);
    const initState = (u64(0) << 64n) | u64(1);
    const initSeq = (u64(2) << 64n) | u64(3);
    this.inc = ((initSeq << 1n) | 1n) & MASK128;
    this.state = 0n;
    this.step();
    this.state = (this.state + initState) & MASK128;
    this.step();
  }

  /** The 128-bit state and increment, as NumPy's bit_generator.state shows them. */
  get pcgState(): { state: bigint; inc: bigint } {
    return { state: this.state, inc: this.inc };
  }

  private step(): void {
    this.state = (this.state * PCG_MULT + this.inc) & MASK128;
  }

  /** pcg64_random_r: step, then XSL-RR output. */
  nextUint64(): bigint {
    this.step();
    const hi = this.state >> 64n;
    const x = (hi ^ this.state) & MASK64;
    const rot = hi >> 58n;
    return ((x >> rot) | (x << ((64n - rot) & 63n))) & MASK64;
  }

  nextUint32(): number {
    if (this.hasUint32) {
      this.hasUint32 = false;
      return this.uinteger;
    }
    const next = this.nextUint64();
    this.hasUint32 = true;
    this.uinteger = Number(next >> 32n);
    return Number(next & 0xffffffffn);
  }

  /** Generator.integers(0, n, size=count) (= choice(n, count, replace=True)) for 1 ≤ n ≤ 2^32 − 1:
   * buffered_bounded_lemire_uint32. Row-major, as NumPy fills a (rows, cols) array. */
  integers(n: number, count: number): Uint32Array {
    if (!Number.isInteger(n) || n < 1 || n > 0xffffffff)
      throw new RangeError(`integers(0, n) needs 1 ≤ n < 2^32, not ${n}`);
    const out = new Uint32Array(count);
    if (n === 1) return out;
    const rngExcl = n; // rng + 1
    const threshold = (0xffffffff - (n - 1)) % rngExcl;
    const big = BigInt(rngExcl);
    for (let i = 0; i < count; i++) {
      // m = draw · rngExcl as a 64-bit product: high word is the result, low word the leftover.
      let m = BigInt(this.nextUint32()) * big;
      let leftover = Number(m & 0xffffffffn);
      if (leftover < rngExcl) {
        while (leftover < threshold) {
          m = BigInt(this.nextUint32()) * big;
          leftover = Number(m & 0xffffffffn);
        }
      }
      out[i] = Number(m >> 32n);
    }
    return out;
  }

  /** Generator.integers(2, size=count, dtype=bool): random_bounded_bool_fill. */
  booleans(count: number): Uint8Array {
    const out = new Uint8Array(count);
    let buf = 0;
    let bcnt = 0;
    for (let i = 0; i < count; i++) {
      if (bcnt === 0) {
        buf = this.nextUint32();
        bcnt = 31;
      } else {
        buf >>>= 1;
        bcnt -= 1;
      }
      out[i] = buf & 1;
    }
    return out;
  }
}
