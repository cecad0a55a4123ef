/**
 * The decoding pipeline: the steps that change scores are one ordered list of
 * processors that every loop applies, and constrained beam search is a strategy of beam search's loop.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { beamSearch, beamStrategy, searchLoop } from '../../extension/engine/decode/beam';
import {
  constrainedBeamSearch,
  constrainedStrategy,
  lexicalConstraints,
  type Constraint,
} from '../../extension/engine/decode/constrainedBeam';
import { greedy, topKSample } from '../../extension/engine/decode/sampling';
import {
  bannedIds,
  mayEnd,
  minLength,
  noRepeatNgram,
  ProcessorList,
  standardProcessors,
  wordGuard,
  type ScoreProcessor,
} from '../../extension/engine/decode/processors';
import { YieldClock, type StepModel } from '../../extension/engine/decode/types';
import { beamDecoding, neverWritten } from '../../extension/engine/systems/decodingOptions';
import { tableModel } from './toyModel';

const BOS = 0,
  EOS = 1,
  A = 2,
  B = 3,
  C = 4,
  PAD = 5;
const V = 6;

test('a processor list bans in list order, then asks its predicates only about what the bans left', () => {
  const calls: string[] = [];
  const asked: number[] = [];
  const p = (name: string, ban: number[]): ScoreProcessor => ({
    name,
    ban: (_row, out) => {
      calls.push(name);
      for (const t of ban) out.add(t);
    },
  });
  const ask: ScoreProcessor = {
    name: 'ask',
    allow: () => {
      calls.push('ask');
      return (t) => {
        asked.push(t);
        return t !== C;
      };
    },
  };
  const list = new ProcessorList([p('first', [A]), ask, p('second', [B])]);
  const row = Float32Array.from([-5, -6, -0.1, -0.2, -0.3, -7]);
  list.apply(row, { tokens: [] }, 1);
  assert.deepEqual(calls, ['first', 'second', 'ask'], 'bans in order, then the predicate');
  assert.deepEqual([row[A], row[B]], [-Infinity, -Infinity]);
  assert.ok(!asked.includes(A) && !asked.includes(B), `the predicate was asked about a banned token: ${asked}`);
  assert.equal(row[C], -Infinity, 'the predicate masked the best token left');
  assert.equal(row[BOS], -5, 'the best allowed token stays');
  // Two predicates: a token must pass both.
  const both = new ProcessorList([
    wordGuard({ forRow: () => (t) => t !== A }),
    wordGuard({ forRow: () => (t) => t !== B }),
  ]).allowed({ tokens: [] })!;
  assert.deepEqual([A, B, C].map(both), [false, false, true]);
});

test('the standard list holds only the rules the options turn on, guard last', () => {
  assert.deepEqual(
    standardProcessors({ eos: EOS }).map((p) => p.name),
    [],
  );
  assert.deepEqual(
    standardProcessors({
      eos: EOS,
      banned: [PAD],
      minLength: 2,
      mayEnd: () => true,
      noRepeatNgramSize: 2,
      guard: { forRow: () => () => true },
    }).map((p) => p.name),
    ['banned-ids', 'min-length', 'may-end', 'no-repeat-ngram', 'word-guard'],
  );
});

/** A model that likes PAD, wants to end at once, and then repeats "A B". */
const toy = tableModel(V, (p): Record<number, number> => {
  if (p.length === 0) return { [PAD]: 0.4, [EOS]: 0.35, [A]: 0.25 };
  return p[p.length - 1] === A ? { [B]: 0.6, [C]: 0.1, [EOS]: 0.3 } : { [A]: 0.7, [C]: 0.1, [EOS]: 0.2 };
});
const run = (extra: object) => greedy(toy, [[]], { bos: BOS, eos: EOS, maxLength: 6, ...extra });

test('each processor on and off on a toy model', async () => {
  // banned ids: PAD is the model's first choice.
  assert.deepEqual((await run({})).tokens, [PAD, A, B, A, B, A]);
  assert.ok(!(await run({ banned: [PAD] })).tokens.includes(PAD));
  // min length: without it the model ends at once (after its banned favourite).
  assert.deepEqual((await run({ banned: [PAD] })).tokens, []);
  assert.equal((await run({ banned: [PAD], minLength: 3 })).tokens.length >= 3, true);
  // may-end (top-k at k = 1 is greedy): the caller's own rule holds the end back.
  const sample = (extra: object) =>
    topKSample(toy, [[]], { bos: BOS, eos: EOS, maxLength: 6, k: 1, temperature: 1, seed: 1, banned: [PAD], ...extra });
  assert.deepEqual((await sample({})).tokens, []);
  assert.deepEqual((await sample({ mayEnd: (t: readonly number[]) => t.length >= 2 })).tokens.slice(0, 2), [A, B]);
  // n-gram blocking: "A B" once only.
  const off = (await run({ banned: [PAD], minLength: 6 })).tokens;
  assert.deepEqual(off, [A, B, A, B, A, B]);
  const on = (await run({ banned: [PAD], minLength: 6, noRepeatNgramSize: 2 })).tokens;
  assert.deepEqual(on.slice(0, 3), [A, B, A]);
  assert.notEqual(on[3], B, `the bigram "A B" was written twice: ${on}`);
  // the word guard: asked per candidate, it keeps B out.
  const guarded = (await run({ banned: [PAD], minLength: 6, guard: { forRow: () => (t: number) => t !== B } })).tokens;
  assert.ok(!guarded.includes(B), `${guarded}`);
});

test('each ban processor alone names exactly its tokens', () => {
  const row = { tokens: [A, B, A] };
  const bans = (p: ScoreProcessor) => {
    const out = new Set<number>();
    p.ban!(row, out);
    return [...out].sort();
  };
  assert.deepEqual(bans(bannedIds([PAD, BOS])), [BOS, PAD].sort());
  assert.deepEqual(bans(minLength(EOS, 4)), [EOS]);
  assert.deepEqual(bans(minLength(EOS, 3)), []);
  assert.deepEqual(bans(mayEnd(EOS, (t) => t.length > 5)), [EOS]);
  assert.deepEqual(bans(noRepeatNgram(2)), [B]);
  const lexical = lexicalConstraints([[[C]]], EOS, () => true);
  const banned = new Set<number>();
  lexical.ban!({ tokens: [], progress: { met: [false] } }, banned);
  assert.deepEqual([...banned], [EOS], 'the end waits for the required word');
  banned.clear();
  lexical.ban!({ tokens: [C], progress: { met: [true] } }, banned);
  assert.deepEqual([...banned], []);
});

// Constrained beam search as a strategy of the beam loop: the same results as its own loop gave
// (the values below were written by the implementation before it became a strategy), and the same
// again through a graph's TopK candidates.
const W = 30;
function hashed(seed: number): StepModel<number[][]> {
  const hash = (p: number[], t: number) => p.reduce((h, x) => (h * 31 + x + 7 + seed) % 1009, t * 17 + 3 + seed);
  return tableModel(W, (p) =>
    Object.fromEntries(
      Array.from({ length: W }, (_, t) => [t, hash(p, t) % 7 === 0 ? 0 : 1 + (hash(p, t) % 5)] as const).filter(
        ([, w]) => w > 0,
      ),
    ),
  );
}
function withTop(m: StepModel<number[][]>, perRow: number, counter: { wholeRows: number }): StepModel<number[][]> {
  return {
    ...m,
    step(tokens, state) {
      counter.wholeRows++;
      return m.step(tokens, state);
    },
    async stepTop(tokens, state) {
      const out = await m.step(tokens, state);
      const ids: number[] = [];
      const logProbs: number[] = [];
      for (let r = 0; r < tokens.length; r++) {
        const row = out.logProbs.subarray(r * W, (r + 1) * W);
        for (const i of Array.from(row.keys())
          .sort((a, b) => row[b] - row[a] || a - b)
          .slice(0, perRow)) {
          ids.push(i);
          logProbs.push(row[i]);
        }
      }
      return { top: { perRow, ids, logProbs: Float32Array.from(logProbs) }, state: out.state };
    },
  };
}
const copts = {
  bos: 0,
  eos: 1,
  beamSize: 3,
  maxLength: 16,
  minLength: 2,
  lengthPenalty: 1,
  noRepeatNgramSize: 2,
  banned: [0, 2],
  endsWord: (t: number) => t % 4 !== 3,
};
const required: Constraint[] = [[[7, 9]], [[13], [20]]];
const start = () => Array.from({ length: 3 }, () => [] as number[]);

// Written by constrainedBeam.ts before it became a strategy (same model, options and constraints).
const BEFORE: [number[], number[], boolean][] = [
  [[13, 13, 7, 9, 4, 5, 11, 4, 23, 6, 9, 22], [0, 1], false],
  [[13, 13, 7, 9, 4, 5, 11, 4, 23], [0, 1], false],
  [[13, 13, 7, 9, 4], [0, 1], false],
];

test("constrained beam search as a strategy of the beam loop writes what it wrote before, and the same from a graph's TopK", async () => {
  const m = hashed(4);
  const hyps = await constrainedBeamSearch(m, start(), required, copts);
  const direct = await searchLoop(m, start(), constrainedStrategy(required, copts), copts);
  assert.deepEqual(direct, hyps, 'the strategy through the loop is the search');
  assert.deepEqual(
    hyps.map((h) => [h.tokens, h.met, h.hitMaxLength]),
    BEFORE,
  );
  for (const perRow of [7, 12, W]) {
    const counter = { wholeRows: 0 };
    assert.deepEqual(
      await constrainedBeamSearch(withTop(m, perRow, counter), start(), required, copts),
      hyps,
      `${perRow} candidates per row`,
    );
    if (perRow === W) assert.equal(counter.wholeRows, 0, 'the whole vocabulary as candidates never needs a whole row');
  }
});

test('plain beam search is the beam loop with the plain strategy', async () => {
  const m = hashed(3);
  const o = { ...copts, guard: { forRow: (t: readonly number[]) => (x: number) => (x + t.length) % 3 !== 0 } };
  assert.deepEqual(await searchLoop(m, start(), beamStrategy(o), o), await beamSearch(m, start(), o));
});

test("a yield clock is the caller's: it gives the event loop a turn once per interval, and a loop given one uses it", async () => {
  const clock = new YieldClock(20);
  assert.ok(clock.yield() instanceof Promise, 'the first call yields');
  assert.equal(clock.yield(), undefined, 'not again within the interval');
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.ok(clock.yield() instanceof Promise, 'again once the interval has passed');
  let turns = 0;
  const counting = new YieldClock(0);
  const original = counting.yield.bind(counting);
  counting.yield = () => {
    turns++;
    return original();
  };
  await greedy(toy, [[]], { bos: BOS, eos: EOS, maxLength: 4, banned: [PAD], minLength: 4 }, { clock: counting });
  assert.equal(turns, 4, 'one turn asked for per step');
});

test("decoding options are merged once: what was asked, else the model's default, the length capped at the model's", () => {
  const defaults = {
    strategy: 'beam' as const,
    beamSize: 4,
    maxLength: 60,
    minLength: 5,
    lengthPenalty: 1,
    noRepeatNgramSize: 3,
  };
  assert.deepEqual(beamDecoding(defaults, undefined, 100), {
    beamSize: 4,
    limit: { maxLength: 60, limitedBy: 'request' },
    maxLength: 60,
    minLength: 5,
    lengthPenalty: 1,
    noRepeatNgramSize: 3,
  });
  assert.deepEqual(beamDecoding(defaults, { beamSize: 2, maxLength: 300, lengthPenalty: undefined }, 100), {
    beamSize: 2,
    limit: { maxLength: 100, limitedBy: 'model' },
    maxLength: 100,
    minLength: 5,
    lengthPenalty: 1,
    noRepeatNgramSize: 3,
  });
  assert.equal(beamDecoding(defaults, { maxLength: 3 }, 100).minLength, 3, 'a minimum above the limit is the limit');
  assert.deepEqual(neverWritten({ pad: 0, unk: 1, bos: 2, eos: 3 }), [0, 1, 2]);
  assert.deepEqual(neverWritten({ pad: 0, unk: 1, bos: 2, eos: 3, mask: 4 }, [4, 7]), [0, 1, 2, 4, 7]);
});
