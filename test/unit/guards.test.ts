/**
 * The decoding guards (decode/guards.ts) on toy models whose pieces spell words: each guard keeps a
 * model from what it prefers (a non-word, ".S.", "the the", a repeated 3-gram, a number not in the
 * input), in every strategy, and each is gone when the guards are off (decodingGuard(..., false),
 * the setting draftsmith.decoding.guards); Continue Story's minimum length holds the end token back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { beamSearch } from '../../extension/engine/decode/beam';
import { constrainedBeamSearch } from '../../extension/engine/decode/constrainedBeam';
import { maskDisallowed, topKOfCandidates } from '../../extension/engine/decode/constraints';
import { greedy, topKSample } from '../../extension/engine/decode/sampling';
import {
  ALL_GUARDS,
  KnownWords,
  PieceGuard,
  trimUnfinishedWord,
  type GuardFlags,
} from '../../extension/engine/decode/guards';
import type { StepModel } from '../../extension/engine/decode/types';
import { decodingGuard } from '../../extension/engine/systems/decodingGuards';
import { minimumWords } from '../../extension/engine/systems/story';
import { EngineRequest } from '../../extension/protocol';
import { loadModelFolder, Manifest } from '../../extension/engine/runtime/manifest';
import { tableModel } from './toyModel';

const PIECES = [
  '<pad>',
  '<unk>',
  '<s>',
  '</s>', // 0-3
  '▁the',
  '▁cat',
  '▁sat',
  '.',
  'S', // 4-8
  '▁xq',
  'z',
  '▁ca',
  't',
  '▁mat', // 9-13
  '▁on',
  '▁19',
  '90',
  '▁Zor',
  'ro', // 14-18
  ',',
  '▁S',
  '▁a',
  'org',
  '▁the', // 19-23 (23: a second spelling of "▁the", so a table can prefer it)
  "'",
  '▁I',
  '▁don',
  'm',
  '://',
  '▁cats', // 24-29
  '▁', // 30: a bare space (sentencepiece writes " 0" as "▁" + "0")
  '▁"',
  'Zor', // 31-32: an opening quote, a name glued to it
];
const id = (p: string) => PIECES.indexOf(p);
const [BOS, EOS] = [2, 3];
const V = PIECES.length;
const KNOWN = new KnownWords(['the', 'cat', 'sat', 'on', 'mat', 'a', 'cats', 'i', 'don']);
const text = (ids: number[]) =>
  ids
    .map((t) => PIECES[t])
    .join('')
    .replace(/▁/g, ' ')
    .trim();

function guard(flags: Partial<GuardFlags> = {}, input = '', prefix?: number[]) {
  return new PieceGuard({
    pieces: PIECES,
    eos: EOS,
    flags: { vocabulary: false, artefacts: false, repetition: false, ...flags },
    known: KNOWN,
    input,
    prefix,
  });
}

/** A model that writes `script` token by token (0.6 each) and would otherwise spread the rest over everything. */
function scripted(script: number[]): StepModel<number[][]> {
  return tableModel(V, (p) => {
    const want = p.length < script.length ? script[p.length] : EOS;
    const out: Record<number, number> = {};
    const others = PIECES.map((_, i) => i).filter((i) => i > EOS && i !== want);
    for (const t of others) out[t] = 0.3 / others.length;
    out[EOS] = want === EOS ? 0.6 : 0.1;
    if (want !== EOS) out[want] = 0.6;
    return out;
  });
}

test('KnownWords answers whole words and prefixes from a sorted list', () => {
  const k = KnownWords.parse('cat\nthe\n\nCats\nmat\n');
  assert.equal(k.size, 4);
  assert.ok(k.has('cat') && k.has('cats') && !k.has('ca'));
  assert.ok(k.hasPrefix('ca') && k.hasPrefix('cats') && !k.hasPrefix('cx') && !k.hasPrefix('catz'));
});

test('vocabulary guard: a piece may extend a word only towards a known word, and close it only when complete', () => {
  const allowed = guard({ vocabulary: true }).forRow([]);
  assert.ok(allowed(id('▁the')) && allowed(id('▁ca')));
  assert.ok(!allowed(id('▁xq')), '"xq" starts no known word');
  const afterCa = guard({ vocabulary: true }).forRow([id('▁ca')]);
  assert.ok(afterCa(id('t')), '"ca" + "t" = "cat"');
  assert.ok(!afterCa(id('.')) && !afterCa(EOS) && !afterCa(id('▁sat')), '"ca" is not a word: nothing may close it');
  // A word of the input is allowed though unknown; a number only when the input holds it.
  const withInput = guard({ vocabulary: true }, 'Zorro was born in 1990.');
  assert.ok(withInput.forRow([])(id('▁Zor')) && withInput.forRow([id('▁Zor')])(id('ro')));
  assert.ok(withInput.forRow([id('▁the')])(id('▁19')) && withInput.forRow([id('▁the'), id('▁19')])(id('90')));
  assert.ok(!guard({ vocabulary: true }).forRow([id('▁the')])(id('▁19')), 'no number that the input lacks');
  assert.ok(!guard({ vocabulary: true }).forRow([])(id('▁Zor')));
  // Lone letters other than "a" and "I" are no words.
  assert.ok(!guard({ vocabulary: true }).forRow([id('▁S')])(id('.')));
  assert.ok(guard({ vocabulary: true }).forRow([id('▁a')])(id('▁cat')));
  // Endings after an apostrophe: the ones English glues to that word ("I'm", "don't"; not "I't").
  assert.ok(guard({ vocabulary: true }).forRow([id('▁I'), id("'")])(id('m')));
  assert.ok(!guard({ vocabulary: true }).forRow([id('▁I'), id("'")])(id('t')));
  assert.ok(guard({ vocabulary: true }).forRow([id('▁don'), id("'")])(id('t')));
  assert.ok(
    !guard({ vocabulary: true }).forRow([id('▁on'), id("'")])(id('t')),
    '"on\'t": a word in n that takes no n\'t',
  );
  assert.ok(!guard({ vocabulary: true }).forRow([id('▁don'), id("'")])(id('m')));
});

test('vocabulary guard in greedy decoding: the known word instead of the non-word the model prefers; none with the guards off', async () => {
  // The model wants "the xqz sat": "xqz" is no word.
  const model = scripted([id('▁the'), id('▁xq'), id('z'), id('▁sat')]);
  const off = await greedy(model, [[]], { bos: BOS, eos: EOS, maxLength: 8, banned: [0, 1, 2] });
  assert.equal(text(off.tokens), 'the xqz sat');
  const setup = { tokenizer: { pieces: () => PIECES } as never, known: KNOWN, eos: EOS };
  assert.equal(decodingGuard(setup, false, ''), undefined, 'guards: false is plain decoding');
  const on = await greedy(model, [[]], {
    bos: BOS,
    eos: EOS,
    maxLength: 8,
    banned: [0, 1, 2],
    guard: decodingGuard(setup, undefined, ''),
  });
  assert.ok(!/xq/.test(text(on.tokens)), text(on.tokens));
  for (const w of text(on.tokens).match(/\p{L}+/gu) ?? [])
    assert.ok(KNOWN.has(w.toLowerCase()), `${w} in ${text(on.tokens)}`);
});

test('summaries: a name inside a sentence only when the source has it ("the Zorro" refused unless the source names Zorro, also after an initial or an opening quote); a sentence may start with any known word', async () => {
  const known = new KnownWords(['the', 'cat', 'sat', 'on', 'mat', 'zorro']);
  const names = (input: string, on = true) =>
    new PieceGuard({
      pieces: PIECES,
      eos: EOS,
      known,
      input,
      flags: { vocabulary: true, artefacts: false, repetition: false, sourceNames: on },
    });
  assert.ok(
    !names('The cat sat on the mat.').forRow([id('▁the')])(id('▁Zor')),
    'a name the source lacks, mid-sentence',
  );
  assert.ok(names('The cat sat on the mat.', false).forRow([id('▁the')])(id('▁Zor')), 'the rule off: any known word');
  assert.ok(names('Zorro sat on the mat.').forRow([id('▁the')])(id('▁Zor')), 'a name of the source');
  assert.ok(names('The cat sat.').forRow([])(id('▁Zor')), 'the first word of the output starts a sentence');
  assert.ok(names('The cat sat.').forRow([id('▁the'), id('▁cat'), id('.')])(id('▁Zor')), 'after a full stop');
  assert.ok(
    !names('The cat sat.').forRow([id('▁the'), id('▁cat'), id(',')])(id('▁Zor')),
    'after a comma the sentence goes on',
  );
  // Where a sentence starts is the reader's rule, which the faithfulness metric counts by.
  assert.ok(
    !names('The cat sat.').forRow([id('▁the'), id('▁cat'), id('▁"')])(id('Zor')),
    'an opening quote mid-sentence: the sentence goes on',
  );
  assert.ok(names('The cat sat.').forRow([id('▁"')])(id('Zor')), 'an opening quote at the start: a sentence starts');
  assert.ok(
    names('The cat sat.').forRow([id('▁the'), id('▁cat'), id('.'), id('▁"')])(id('Zor')),
    'an opening quote after a full stop',
  );
  assert.ok(
    !names('The S. cat sat.').forRow([id('▁the'), id('▁S'), id('.')])(id('▁Zor')),
    'after an initial ("S.") the sentence goes on',
  );
  assert.ok(
    names('The cat sat.').forRow([id('▁the'), id('▁cats'), id('.')])(id('▁Zor')),
    "after a word's full stop, a new sentence",
  );
  // In decoding: the model wants "the Zorro sat"; the summary of a source without Zorro does not name him.
  const model = scripted([id('▁the'), id('▁Zor'), id('ro'), id('▁sat')]);
  const setup = { tokenizer: { pieces: () => PIECES } as never, known, eos: EOS };
  const opts = { bos: BOS, eos: EOS, maxLength: 8, banned: [0, 1, 2] };
  const plain = await greedy(model, [[]], { ...opts, guard: decodingGuard(setup, undefined, 'the cat sat') });
  assert.equal(text(plain.tokens), 'the Zorro sat', 'the common guards alone let a known name through');
  const faithful = await greedy(model, [[]], {
    ...opts,
    guard: decodingGuard(setup, undefined, 'the cat sat', undefined, { sourceNames: true }),
  });
  assert.ok(!/Zor/.test(text(faithful.tokens)), text(faithful.tokens));
});

test('a row cut off at the length limit loses the word it was in the middle of ("the cat sat on the ca"), not a whole one', async () => {
  const model = scripted([id('▁the'), id('▁cat'), id('▁sat'), id('▁on'), id('▁the'), id('▁ca'), id('t')]);
  const g = guard({ vocabulary: true });
  const cut = await greedy(model, [[]], { bos: BOS, eos: EOS, maxLength: 6, banned: [0, 1, 2], guard: g });
  assert.equal(cut.hitMaxLength, true);
  assert.equal(text(cut.tokens), 'the cat sat on the ca');
  assert.equal(text(trimUnfinishedWord(cut.tokens, g)), 'the cat sat on the');
  const whole = [id('▁the'), id('▁ca'), id('t')];
  assert.equal(text(trimUnfinishedWord(whole, g)), 'the cat', 'a complete word stays');
  assert.deepEqual(trimUnfinishedWord([id('▁xq')], g), [], 'nothing complete: nothing kept');
});

test('artefact guard: no letter glued after a full stop (".S."), no lone letter glued to punctuation, no stutter', async () => {
  const model = scripted([id('▁the'), id('▁cat'), id('.'), id('S'), id('.')]);
  const off = await greedy(model, [[]], { bos: BOS, eos: EOS, maxLength: 8, banned: [0, 1, 2] });
  assert.equal(text(off.tokens), 'the cat.S.');
  const on = await greedy(model, [[]], {
    bos: BOS,
    eos: EOS,
    maxLength: 8,
    banned: [0, 1, 2],
    guard: guard({ artefacts: true }),
  });
  assert.ok(!/\.S/.test(text(on.tokens)), text(on.tokens));
  const g = guard({ artefacts: true });
  assert.ok(!g.forRow([id('▁cat'), id(',')])(id('S')), '"cat,S"');
  assert.ok(!g.forRow([id('▁the'), id('▁S')])(id('.')), '"the S."');
  assert.ok(!g.forRow([])(id('.')), 'punctuation first');
  assert.ok(!g.forRow([id('▁cat'), id('.')])(id(',')), '".,"');
  assert.ok(!g.forRow([id('▁the'), id('org')])(id('org')), '"orgorg"');
  assert.ok(g.forRow([id('▁cat'), id('.')])(id('▁the')) && g.forRow([id('▁cat')])(id('.')));
  assert.ok(!g.forRow([id('▁the'), id('▁cat')])(id('://')), '"cat://"');
  assert.ok(!g.forRow([id('▁I'), id("'")])(id(',')) && !g.forRow([id('▁I'), id("'")])(id('▁the')), '"I\', the"');
  assert.ok(g.forRow([id('▁the'), id('▁cats'), id("'")])(id('▁mat')), '"the cats\' mat"');
  // A bare space whose word was refused: no second space, no punctuation or end after it ("a new  time", "new .").
  assert.ok(!g.forRow([id('▁the'), id('▁')])(id('▁cat')), 'a double space');
  assert.ok(
    !g.forRow([id('▁the'), id('▁')])(id('.')) && !g.forRow([id('▁the'), id('▁')])(EOS),
    'a space before "." or the end',
  );
  assert.ok(!g.forRow([id('▁the'), id('▁')])(id('://')), 'a stray mark after a space');
  assert.ok(g.forRow([id('▁the'), id('▁')])(id('90')), 'a bare space then its word');
  // What the input itself spells stays allowed ("U.S." in a news story; here "cat.S").
  assert.ok(guard({ artefacts: true }, 'the cat.S of it').forRow([id('▁cat'), id('.')])(id('S')));
});

test('artefact guard: no capital glued after a small letter inside a word ("catS"), unless the input writes it so', async () => {
  const model = scripted([id('▁the'), id('▁cat'), id('S'), id('▁sat')]);
  const run = (g?: PieceGuard) =>
    greedy(model, [[]], { bos: BOS, eos: EOS, maxLength: 6, banned: [0, 1, 2], guard: g });
  assert.match(text((await run()).tokens), /catS/, 'the model prefers "catS"');
  assert.doesNotMatch(text((await run(guard({ artefacts: true }))).tokens), /catS/);
  assert.match(
    text((await run(guard({ artefacts: true }, 'Our catS are famous.'))).tokens),
    /catS/,
    'the input has "catS"',
  );
});

test('repetition guard: no word twice in a row, no word 3-gram twice; the token-level rule is separate', async () => {
  const g = guard({ repetition: true });
  // "the" + "the" (another piece id, so the token-level n-gram rule would not see it).
  assert.ok(!g.forRow([id('▁the'), id('▁the')])(id('▁cat')), '"the the"');
  assert.ok(!g.forRow([id('▁the'), id('▁the')])(EOS));
  assert.ok(g.forRow([id('▁the'), id('.'), id('▁the')])(id('▁cat')), 'punctuation between: not a doubled word');
  const abc = [id('▁the'), id('▁cat'), id('▁sat'), id('▁on'), id('▁the'), id('▁cat')];
  assert.ok(!g.forRow([...abc, id('▁sat')])(id('.')), '"the cat sat" twice');
  assert.ok(g.forRow([...abc, id('▁on')])(id('.')));
  // A beam search over a parrot that wants "the cat sat" again and again.
  const parrot = scripted([...abc, id('▁sat'), id('▁on'), id('▁the'), id('▁mat')]);
  const opts = {
    bos: BOS,
    eos: EOS,
    beamSize: 2,
    maxLength: 12,
    minLength: 0,
    lengthPenalty: 1,
    noRepeatNgramSize: 0,
    banned: [0, 1, 2],
  };
  const off = await beamSearch(parrot, [[], []], opts);
  assert.match(text(off[0].tokens), /the cat sat on the cat sat/);
  const on = await beamSearch(parrot, [[], []], { ...opts, guard: guard({ repetition: true }) });
  const words =
    text(on[0].tokens)
      .toLowerCase()
      .match(/\p{L}+/gu) ?? [];
  const grams = words.slice(2).map((w, i) => `${words[i]} ${words[i + 1]} ${w}`);
  assert.equal(new Set(grams).size, grams.length, text(on[0].tokens));
  assert.ok(
    words.every((w, i) => i === 0 || w !== words[i - 1]),
    text(on[0].tokens),
  );
  // Round-Trip's sentences: the earlier ones count (a prefix).
  assert.ok(
    !guard({ repetition: true }, '', [id('▁the'), id('▁cat'), id('▁sat'), id('.')]).forRow([
      id('▁the'),
      id('▁cat'),
      id('▁sat'),
    ])(EOS),
  );
});

test('the guards in top-k sampling and constrained beam search: every draw allowed', async () => {
  const model = scripted([id('▁the'), id('▁xq'), id('z'), id('.'), id('S'), id('.')]);
  for (let seed = 1; seed <= 20; seed++) {
    const s = await topKSample(model, [[]], {
      bos: BOS,
      eos: EOS,
      maxLength: 10,
      k: 4,
      temperature: 1,
      seed,
      banned: [0, 1, 2],
      guard: guard(ALL_GUARDS),
    });
    const out = text(s.tokens);
    assert.ok(!/xq|\.S|\bS\b/.test(out), out);
  }
  const c = await constrainedBeamSearch(model, [[], []], [[[id('▁mat')]]], {
    bos: BOS,
    eos: EOS,
    beamSize: 2,
    maxLength: 10,
    minLength: 0,
    lengthPenalty: 1,
    noRepeatNgramSize: 0,
    banned: [0, 1, 2],
    endsWord: (t) => PIECES[t].startsWith('▁') || !/\p{L}/u.test(PIECES[t]),
    guard: guard(ALL_GUARDS),
  });
  assert.ok(!/xq|\.S/.test(text(c[0].tokens)) && /mat/.test(text(c[0].tokens)), text(c[0].tokens));
});

test('beam search with a graph that ranks candidates (stepTop): the guard is asked about them, the full row when too few pass', async () => {
  const inner = scripted([id('▁the'), id('▁xq'), id('z'), id('▁sat')]);
  let fullRows = 0;
  const model: StepModel<number[][]> = {
    ...inner,
    async step(tokens, state) {
      fullRows++;
      return inner.step(tokens, state);
    },
    async stepTop(tokens, state) {
      const { logProbs, state: next } = await inner.step(tokens, state);
      const perRow = 1;
      const ids: number[] = [];
      const lps: number[] = [];
      tokens.forEach((_, r) => {
        const row = Array.from(logProbs.subarray(r * V, (r + 1) * V))
          .map((v, t) => ({ v, t }))
          .sort((a, b) => b.v - a.v || a.t - b.t)
          .slice(0, perRow);
        for (const { v, t } of row) {
          ids.push(t);
          lps.push(v);
        }
      });
      return { top: { perRow, ids, logProbs: Float32Array.from(lps) }, state: next };
    },
  };
  const hyps = await beamSearch(model, [[]], {
    bos: BOS,
    eos: EOS,
    beamSize: 1,
    maxLength: 6,
    minLength: 0,
    lengthPenalty: 1,
    noRepeatNgramSize: 0,
    banned: [0, 1, 2],
    guard: guard({ vocabulary: true }),
  });
  assert.ok(!/xq/.test(text(hyps[0].tokens)), text(hyps[0].tokens));
  assert.ok(fullRows > 0, 'the full row was read where the ranked candidates ran out');
  // topKOfCandidates skips what the guard bans.
  assert.deepEqual(
    topKOfCandidates([9, 4, 5], [-1, -2, -3], 0, 3, 2, new Set(), V, (t) => t !== 9),
    [1, 2],
  );
});

test('maskDisallowed asks only about the best candidates, and restores a row where nothing is allowed', () => {
  const row = Float32Array.from({ length: 200 }, (_, i) => -i);
  const asked = new Set<number>();
  assert.equal(
    maskDisallowed(row, 2, (t) => {
      asked.add(t);
      return t % 2 === 1;
    }),
    true,
  );
  assert.ok(asked.size <= 16, `asked about ${asked.size} tokens`);
  assert.equal(row[0], -Infinity);
  assert.equal(row[1], -1);
  const none = Float32Array.from({ length: 50 }, (_, i) => -i);
  assert.equal(
    maskDisallowed(none, 3, () => false),
    false,
  );
  assert.deepEqual(
    Array.from(none),
    Array.from({ length: 50 }, (_, i) => -i),
  );
});

test('story minimum length: the end token is held back until the words asked for are nearly written', async () => {
  // A model that wants to end after every word.
  const eager = tableModel(V, () => ({ [EOS]: 0.9, [id('▁cat')]: 0.05, [id('▁mat')]: 0.05 }));
  const words = (ids: readonly number[]) => ids.filter((t) => PIECES[t].startsWith('▁')).length;
  const plain = await topKSample(eager, [[]], {
    bos: BOS,
    eos: EOS,
    maxLength: 40,
    k: 3,
    temperature: 1,
    seed: 3,
    minLength: 1,
  });
  assert.ok(plain.tokens.length < 5, 'the model ends early on its own');
  const min = minimumWords(20);
  const held = await topKSample(eager, [[]], {
    bos: BOS,
    eos: EOS,
    maxLength: 40,
    k: 3,
    temperature: 1,
    seed: 3,
    minLength: 1,
    mayEnd: (t) => words(t) >= min,
  });
  assert.ok(words(held.tokens) >= min, `${words(held.tokens)} words, at least ${min} asked`);
  assert.ok(minimumWords(150) >= 120 && minimumWords(150) <= 150, 'within 20 % of the length asked');
});

test('the request schema takes guards as a boolean on every generating request', () => {
  for (const r of [
    { op: 'summarize', text: 'x' },
    { op: 'essay', topics: 'x' },
    { op: 'story', prompt: 'x' },
    { op: 'premise' },
    { op: 'roundtrip', text: 'x' },
    { op: 'reply', text: 'x' },
  ]) {
    assert.ok(EngineRequest.safeParse({ ...r, guards: false }).success, r.op);
    assert.ok(!EngineRequest.safeParse({ ...r, guards: 'no' }).success, r.op);
  }
});

test('every shipped model names a small sorted known-word list that loads, and a manifest naming a non-.txt list is refused', async () => {
  const models = path.join(__dirname, '..', '..', '..', 'models');
  for (const system of ['summarize', 'essay', 'story', 'roundtrip', 'reply'] as const) {
    const folder = await loadModelFolder(path.join(models, system), system);
    const file = folder.file('knownWords');
    assert.ok(statSync(file).size < 1024 * 1024, `${file} is under 1 MB`);
    const words = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    assert.ok(words.length > 1000, file);
    assert.ok(
      words.every((w) => w === w.toLowerCase() && !/\s/.test(w)),
      file,
    );
    assert.ok(words.includes('the') && !words.includes('s'), file);
  }
  const m = JSON.parse(readFileSync(path.join(models, 'reply', 'model.json'), 'utf8'));
  assert.ok(Manifest.safeParse(m).success);
  assert.ok(!Manifest.safeParse({ ...m, files: { ...m.files, knownWords: 'words.json' } }).success);
});

// ---- the shipped models: every system honours `guards` ------------------------------------------

const quiet = { device: 'cpu' as const, threads: 1, log: () => {} };
const noop = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };
const shipped = (system: string) => path.join(__dirname, '..', '..', '..', 'models', system);

/** The words of `out` that are neither in the model's words.txt nor in `input`, as the guard counts words. */
function unknownWords(system: string, out: string, input: string): string[] {
  const known = KnownWords.parse(readFileSync(path.join(shipped(system), 'words.txt'), 'utf8'));
  const inInput = new Set((input.match(/[\p{L}\p{M}]+/gu) ?? []).map((w) => w.toLowerCase()));
  const bad: string[] = [];
  for (const m of out.matchAll(/[\p{L}\p{M}]+/gu)) {
    const at = m.index ?? 0;
    if (at >= 2 && /['\u2019]/.test(out[at - 1]) && /\p{L}/u.test(out[at - 2])) continue; // a suffix ("don't")
    const w = m[0].toLowerCase();
    if (!inInput.has(w) && !known.has(w)) bad.push(w);
  }
  return bad;
}

const words = (t: string) => t.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
function repeated(t: string): string | null {
  const w = words(t);
  for (let i = 1; i < w.length; i++) if (w[i] === w[i - 1]) return `${w[i]} ${w[i]}`;
  const seen = new Set<string>();
  for (let i = 2; i < w.length; i++) {
    const g = `${w[i - 2]} ${w[i - 1]} ${w[i]}`;
    if (seen.has(g)) return g;
    seen.add(g);
  }
  return null;
}

const NEWS =
  'The city council voted on Tuesday to approve a new budget that raises spending on public schools by four percent. ' +
  'The mayor said the money would pay for more teachers and repairs to old buildings. The budget will take effect in July.';

test('Summarize (abstractive): the guards on by default, off with guards: false', async () => {
  const { SummarizeSystem } = await import('../../extension/engine/systems/summarize');
  const s = await SummarizeSystem.load(shipped('summarize'), quiet);
  const on = (await s.run({ op: 'summarize', text: NEWS, mode: 'abstractive' }, noop)).summary;
  assert.deepEqual(unknownWords('summarize', on, NEWS), [], on);
  assert.ok(!/[.!?][A-Za-z]/.test(on), on);
  assert.equal(repeated(on), null, on);
  const off = (await s.run({ op: 'summarize', text: NEWS, mode: 'abstractive', guards: false }, noop)).summary;
  const plain = (await s.run({ op: 'summarize', text: NEWS, mode: 'abstractive', guards: false }, noop)).summary;
  assert.equal(off, plain);
});

test('Continue Story: the length asked for within 20 %, words known or from the prompt, guards on or off', async () => {
  const { StorySystem } = await import('../../extension/engine/systems/story');
  const story = await StorySystem.load(shipped('story'), quiet);
  const prompt = 'On her first day at the new school, Mia got lost.';
  for (const guards of [undefined, false]) {
    for (const seed of [1, 2, 3]) {
      const r = await story.run(
        { op: 'story', prompt, words: 60, sampling: { seed }, ...(guards === false ? { guards } : {}) },
        noop,
      );
      assert.ok(
        r.wordCount >= 0.8 * 60 && r.wordCount <= 60,
        `${r.wordCount} words of 60 (seed ${seed}, guards ${guards})`,
      );
      if (guards === undefined) {
        assert.deepEqual(unknownWords('story', r.continuation, prompt), [], r.continuation);
        assert.equal(repeated(r.continuation), null, r.continuation);
      }
    }
  }
});

test('Essay, Round-Trip and Suggest Replies decode with the guards, and without them when asked', async () => {
  const { EssaySystem } = await import('../../extension/engine/systems/essay');
  const { RoundTripSystem } = await import('../../extension/engine/systems/roundtrip');
  const { ReplySystem } = await import('../../extension/engine/systems/reply');
  const essay = await EssaySystem.load(shipped('essay'), quiet);
  // Topics far from its training stories: unguarded, the model spells words it never saw ("strustruged").
  const topics = 'python, rust, compiler, release';
  const e = (await essay.run({ op: 'essay', topics, decoding: { maxLength: 60 } }, noop)).candidates[0].text;
  assert.deepEqual(unknownWords('essay', e, topics), [], e);
  assert.equal(repeated(e), null, e);
  const eOff = (await essay.run({ op: 'essay', topics, decoding: { maxLength: 60 }, guards: false }, noop))
    .candidates[0].text;
  assert.notEqual(e, eOff, 'the guards change what the essay model writes on these topics');

  const rt = await RoundTripSystem.load(shipped('roundtrip'), quiet);
  const para =
    'The committee reviewed the proposal on Monday. Its members asked for a clearer plan for the new park. The chairman said the town would vote on it next month.';
  const r = (await rt.run({ op: 'roundtrip', text: para }, noop)).reconstruction;
  assert.deepEqual(unknownWords('roundtrip', r, para), [], r);
  assert.equal(repeated(r), null, r);
  const rOff = (await rt.run({ op: 'roundtrip', text: para, guards: false }, noop)).reconstruction;
  const plain = await rt.decodeIds(para.split(/(?<=\.) /).map((x) => rt.encodeSentence(x)));
  assert.equal(
    rOff,
    rt
      .outputSentences(plain)
      .map((x) => x.text)
      .join(' '),
    "guards: false is the paper's plain greedy decoding",
  );

  const reply = await ReplySystem.load(shipped('reply'), quiet);
  const post = 'I just adopted a little dog and he chews everything.';
  for (const c of (await reply.run({ op: 'reply', text: post, maxCandidates: 3 }, noop)).candidates) {
    assert.deepEqual(unknownWords('reply', c.text, post), [], c.text);
    assert.equal(repeated(c.text), null, c.text);
  }
});
