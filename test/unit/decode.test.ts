import { test } from 'node:test';
import assert from 'node:assert/strict';
import { beamSearch } from '../../extension/engine/decode/beam';
import { greedy, sampleTopK, seededRandom, topKSample } from '../../extension/engine/decode/sampling';
import { bannedByNgram, topK } from '../../extension/engine/decode/constraints';
import { tableModel as toyTable } from './toyModel';

const BOS = 0,
  EOS = 1,
  A = 2,
  B = 3,
  C = 4;
const V = 5;

/** Greedy takes A first (0.6) but every continuation after A is poor; B (0.4) leads to a sure end. */
const tableModel = (next: (prefix: number[]) => Record<number, number>) => toyTable(V, next);

const trap = tableModel((p): Record<number, number> => {
  if (p.length === 0) return { [A]: 0.6, [B]: 0.4 };
  if (p[0] === A) return { [C]: 0.34, [A]: 0.33, [EOS]: 0.33 };
  return { [EOS]: 1 };
});

test('beam search finds the more probable sequence that greedy decoding misses', async () => {
  const g = await greedy(trap, [[]], { bos: BOS, eos: EOS, maxLength: 2 });
  assert.deepEqual(g.tokens.slice(0, 1), [A]);
  const hyps = await beamSearch(trap, [[], []], {
    bos: BOS,
    eos: EOS,
    beamSize: 2,
    maxLength: 5,
    minLength: 0,
    lengthPenalty: 0,
    noRepeatNgramSize: 0,
  });
  assert.deepEqual(hyps[0].tokens, [B]);
  assert.ok(Math.abs(hyps[0].logProb - Math.log(0.4)) < 1e-6);
});

test('beam search respects the minimum length by forbidding an early end', async () => {
  const m = tableModel(() => ({ [EOS]: 0.9, [C]: 0.1 }));
  const hyps = await beamSearch(m, [[], []], {
    bos: BOS,
    eos: EOS,
    beamSize: 2,
    maxLength: 6,
    minLength: 3,
    lengthPenalty: 1,
    noRepeatNgramSize: 0,
  });
  assert.equal(hyps[0].tokens.length, 3);
});

test('n-gram blocking stops a model that wants to repeat itself', async () => {
  const parrot = tableModel((p) => ({ [p.length % 2 === 0 ? A : B]: 0.9, [C]: 0.05, [EOS]: 0.05 }));
  const hyps = await beamSearch(parrot, [[]], {
    bos: BOS,
    eos: EOS,
    beamSize: 1,
    maxLength: 8,
    minLength: 0,
    lengthPenalty: 1,
    noRepeatNgramSize: 2,
  });
  const bigrams = hyps[0].tokens.slice(1).map((t, i) => `${hyps[0].tokens[i]},${t}`);
  assert.equal(new Set(bigrams).size, bigrams.length, `repeated bigram in ${hyps[0].tokens}`);
  assert.deepEqual([...bannedByNgram([A, B, A], 2)], [B]);
});

test('banned tokens (pad, unk) are never produced', async () => {
  const m = tableModel(() => ({ [A]: 0.9, [EOS]: 0.1 }));
  const g = await greedy(m, [[]], { bos: BOS, eos: EOS, maxLength: 4, banned: [A] });
  assert.ok(!g.tokens.includes(A));
});

test('top-k sampling draws only from the k most probable tokens and repeats with the same seed', async () => {
  const row = new Float32Array([Math.log(0.5), Math.log(0.3), Math.log(0.15), Math.log(0.05)]);
  const random = seededRandom(7);
  const seen = new Set<number>();
  for (let i = 0; i < 500; i++) seen.add(sampleTopK(new Float32Array(row), 2, 1, random));
  assert.deepEqual([...seen].sort(), [0, 1]);
  const m = tableModel(() => ({ [A]: 0.4, [B]: 0.3, [C]: 0.2, [EOS]: 0.1 }));
  const opts = { bos: BOS, eos: EOS, maxLength: 12, k: 3, temperature: 1, seed: 42 };
  const s1 = await topKSample(m, [[]], opts);
  const s2 = await topKSample(m, [[]], opts);
  assert.deepEqual(s1.tokens, s2.tokens);
  assert.ok(s1.tokens.every((t) => t !== EOS));
});

test('a low temperature makes sampling nearly greedy', () => {
  const row = new Float32Array([Math.log(0.4), Math.log(0.35), Math.log(0.25)]);
  const random = seededRandom(1);
  let first = 0;
  for (let i = 0; i < 200; i++) if (sampleTopK(new Float32Array(row), 3, 0.02, random) === 0) first++;
  assert.ok(first > 190, `${first}/200`);
});

test('topK returns indices of the largest values in order', () => {
  assert.deepEqual(topK(new Float32Array([0.1, 0.9, -Infinity, 0.5, 0.7]), 3), [1, 4, 3]);
});

test('topK agrees with a full sort on any row: ties to the lower index, NaN and -Infinity never, any length', () => {
  const random = seededRandom(7);
  for (let trial = 0; trial < 300; trial++) {
    const n = 1 + Math.floor(random() * 70);
    // Few distinct values, so that ties are common; some NaN and -Infinity, anywhere in a block of four.
    const row = Float32Array.from({ length: n }, () => {
      const r = random();
      return r < 0.1 ? NaN : r < 0.2 ? -Infinity : Math.round(random() * 8) - 20;
    });
    const k = 1 + Math.floor(random() * 10);
    const expected = [...row.keys()]
      .filter((i) => row[i] > -Infinity)
      .sort((a, b) => row[b] - row[a] || a - b)
      .slice(0, k);
    assert.deepEqual(topK(row, k), expected, `row ${Array.from(row)} k ${k}`);
  }
});

test('decoding stops as soon as it is cancelled', async () => {
  const m = tableModel(() => ({ [A]: 1 }));
  let steps = 0;
  await assert.rejects(
    greedy(
      m,
      [[]],
      { bos: BOS, eos: EOS, maxLength: 100 },
      {
        onStep: () => {
          steps++;
        },
        checkCancelled: () => {
          if (steps >= 3) throw new Error('cancelled');
        },
      },
    ),
    /cancelled/,
  );
  assert.equal(steps, 3);
});

// A text cut off at the length limit is reported, never passed off as a finished one.
const endless = tableModel(() => ({ [A]: 0.6, [B]: 0.4 }));
const endsAfterTwo = tableModel((p): Record<number, number> => (p.length < 2 ? { [A]: 1 } : { [EOS]: 1 }));

test('every strategy says when it stopped at the maximum length instead of at the end token', async () => {
  const beams = await beamSearch(endless, [[], []], {
    bos: BOS,
    eos: EOS,
    beamSize: 2,
    maxLength: 3,
    minLength: 0,
    lengthPenalty: 1,
    noRepeatNgramSize: 0,
  });
  assert.equal(beams[0].tokens.length, 3);
  assert.ok(
    beams.every((h) => h.hitMaxLength),
    'a beam cut off at 3 tokens is not reported',
  );
  const g = await greedy(endless, [[]], { bos: BOS, eos: EOS, maxLength: 3 });
  assert.deepEqual([g.tokens.length, g.hitMaxLength], [3, true]);
  const s = await topKSample(endless, [[]], { bos: BOS, eos: EOS, maxLength: 3, k: 2, temperature: 1, seed: 1 });
  assert.deepEqual([s.tokens.length, s.hitMaxLength], [3, true]);
});

test('a text that ends on the end token is not reported as cut off, even on the last step allowed', async () => {
  const beams = await beamSearch(trap, [[], []], {
    bos: BOS,
    eos: EOS,
    beamSize: 2,
    maxLength: 5,
    minLength: 0,
    lengthPenalty: 0,
    noRepeatNgramSize: 0,
  });
  assert.deepEqual(beams[0].tokens, [B]);
  assert.equal(beams[0].hitMaxLength, false);
  // Two tokens and the end token in three steps: exactly at the limit, and ended by the model.
  const exact = await beamSearch(endsAfterTwo, [[]], {
    bos: BOS,
    eos: EOS,
    beamSize: 1,
    maxLength: 3,
    minLength: 0,
    lengthPenalty: 1,
    noRepeatNgramSize: 0,
  });
  assert.deepEqual([exact[0].tokens, exact[0].hitMaxLength], [[A, A], false]);
  const g = await greedy(endsAfterTwo, [[]], { bos: BOS, eos: EOS, maxLength: 3 });
  assert.deepEqual([g.tokens, g.hitMaxLength], [[A, A], false]);
  const s = await topKSample(endsAfterTwo, [[]], { bos: BOS, eos: EOS, maxLength: 3, k: 1, temperature: 1, seed: 1 });
  assert.deepEqual([s.tokens, s.hitMaxLength], [[A, A], false]);
  // One step short of the end token: cut off.
  const short = await greedy(endsAfterTwo, [[]], { bos: BOS, eos: EOS, maxLength: 2 });
  assert.deepEqual([short.tokens, short.hitMaxLength], [[A, A], true]);
});

test("top-k sampling stops before the token its caller's end rejects, and does not call that a length cut-off", async () => {
  // The caller counts "words": A starts one, B continues it; three words are asked for.
  const m = tableModel((p): Record<number, number> => (p.length % 2 === 0 ? { [A]: 1 } : { [B]: 1 }));
  const words = (tokens: readonly number[]) => tokens.filter((t) => t === A).length;
  const seen: number[][] = [];
  const s = await topKSample(
    m,
    [[]],
    { bos: BOS, eos: EOS, maxLength: 20, k: 1, temperature: 1, seed: 1, endsBefore: (t) => words(t) > 3 },
    { onStep: (_step, tokens) => seen.push([...tokens]) },
  );
  assert.deepEqual(s.tokens, [A, B, A, B, A, B]);
  assert.equal(s.hitMaxLength, false);
  assert.deepEqual(seen.at(-1), s.tokens, 'the dropped token was streamed');
});

test("beam search over each row's best candidates (a graph's TopK) writes exactly what it writes over whole rows, constraints and ties included", async () => {
  const W = 40;
  // Log-probs that depend on the whole prefix, rounded so that ties happen, some tokens impossible.
  const hash = (p: number[], t: number) => p.reduce((h, x) => (h * 31 + x + 7) % 1009, t * 17 + 3);
  const random = toyTable(W, (p) =>
    Object.fromEntries(
      Array.from({ length: W }, (_, t) => [t, hash(p, t) % 7 === 0 ? 0 : 1 + (hash(p, t) % 5)] as const).filter(
        ([, w]) => w > 0,
      ),
    ),
  );
  /** The same model with stepTop: each row's best `perRow` ids, sorted as onnxruntime's TopK sorts them. */
  let wholeRows = 0;
  const withTop = (perRow: number): typeof random => ({
    ...random,
    step(tokens, state) {
      wholeRows++;
      return random.step(tokens, state);
    },
    async stepTop(tokens, state) {
      const out = await random.step(tokens, state);
      const ids: number[] = [];
      const logProbs: number[] = [];
      for (let r = 0; r < tokens.length; r++) {
        const row = out.logProbs.subarray(r * W, (r + 1) * W);
        const order = Array.from(row.keys())
          .sort((a, b) => row[b] - row[a] || a - b)
          .slice(0, perRow);
        for (const i of order) {
          ids.push(i);
          logProbs.push(row[i]);
        }
      }
      return { top: { perRow, ids, logProbs: Float32Array.from(logProbs) }, state: out.state };
    },
  });
  for (const opts of [
    {
      bos: BOS,
      eos: EOS,
      beamSize: 4,
      maxLength: 12,
      minLength: 5,
      lengthPenalty: 1,
      noRepeatNgramSize: 2,
      banned: [0, 2, 3],
    },
    { bos: BOS, eos: EOS, beamSize: 3, maxLength: 9, minLength: 0, lengthPenalty: 0.6, noRepeatNgramSize: 0 },
  ]) {
    const start = Array.from({ length: opts.beamSize }, () => [] as number[]);
    const full = await beamSearch(random, start, opts);
    // 2K+1 candidates are often too few once the n-grams ban some (the fallback reads the whole row); 20 seldom.
    for (const perRow of [2 * opts.beamSize + 1, 20, W]) {
      wholeRows = 0;
      assert.deepEqual(await beamSearch(withTop(perRow), start, opts), full, `${perRow} candidates per row`);
      if (perRow === W) assert.equal(wholeRows, 0, 'the whole vocabulary as candidates never needs a whole row');
      if (perRow === 2 * opts.beamSize + 1 && opts.noRepeatNgramSize > 0)
        assert.ok(wholeRows > 0, 'the fallback to whole rows was exercised');
    }
  }
});

test("greedy, top-k and beam search score a hypothesis alike: the end token's log-prob is in it", async () => {
  // A, then the end (0.5) or B (0.3) or C (0.2): every strategy that picks the best writes [A] and ends.
  const m = tableModel((p): Record<number, number> =>
    p.length === 0 ? { [A]: 1 } : { [EOS]: 0.5, [B]: 0.3, [C]: 0.2 },
  );
  const ended = Math.log(0.5);
  const g = await greedy(m, [[]], { bos: BOS, eos: EOS, maxLength: 5 });
  const s = await topKSample(m, [[]], { bos: BOS, eos: EOS, maxLength: 5, k: 1, temperature: 1, seed: 3 });
  const [b] = await beamSearch(m, [[]], {
    bos: BOS,
    eos: EOS,
    beamSize: 1,
    maxLength: 5,
    minLength: 0,
    lengthPenalty: 0,
    noRepeatNgramSize: 0,
  });
  for (const [name, h] of [
    ['greedy', g],
    ['top-k', s],
    ['beam', b],
  ] as const) {
    assert.deepEqual(h.tokens, [A], name);
    assert.ok(Math.abs(h.logProb - ended) < 1e-6, `${name}: ${h.logProb} vs ${ended}`);
  }
  // A token the caller's end drops is not scored either.
  const cut = await topKSample(m, [[]], {
    bos: BOS,
    eos: EOS,
    maxLength: 5,
    k: 1,
    temperature: 1,
    seed: 3,
    endsBefore: (t) => t.length > 0,
  });
  assert.deepEqual([cut.tokens, cut.logProb], [[], 0]);
});
