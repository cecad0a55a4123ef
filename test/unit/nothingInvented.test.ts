/**
 * Nothing invented: the built-in systems that restate their input (the abstractive summary, the
 * round-trip, replies, essays from topic words) write names and numbers only when the input has
 * them, and no system writes profanity, slurs or training-text boilerplate — each enforced at
 * decoding by the guards (decode/guards.ts, decode/bannedWords.ts), shown here on toy pieces and on
 * the shipped models, one test per system. Invented items are counted as the faithfulness metric
 * counts them (metrics/faithfulness.ts: capitalised words inside a sentence, numbers).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { beamSearch } from '../../extension/engine/decode/beam';
import { KnownWords, PieceGuard, type GuardFlags, type RowGuard } from '../../extension/engine/decode/guards';
import { BOILERPLATE, PROFANITY, closesBanned } from '../../extension/engine/decode/bannedWords';
import { unsupportedItems } from '../../extension/engine/metrics/faithfulness';
import type { RunContext } from '../../extension/engine/systems/context';
import { EssaySystem } from '../../extension/engine/systems/essay';
import { KeyMapper } from '../../extension/engine/systems/keyMapper';
import { ReplySystem } from '../../extension/engine/systems/reply';
import { RoundTripSystem } from '../../extension/engine/systems/roundtrip';
import { SummarizeSystem } from '../../extension/engine/systems/summarize';
import { modelDir } from '../../extension/engine/systems/registry';
import {
  EssayRequest,
  EssayResult,
  ReplyRequest,
  ReplyResult,
  RoundTripRequest,
  RoundTripResult,
  SummarizeRequest,
  SummarizeResult,
} from '../../extension/protocol';
import { modelsDir } from './helpers';
import { tableModel } from './toyModel';

// ---- the guard's rules on pieces that spell letter by letter ------------------------------------

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
/** Pieces: the end token, each letter alone and after a space, capitals after a space, digits, a full stop. */
const PIECES = [
  '</s>',
  ...LETTERS,
  ...LETTERS.toUpperCase(),
  ...[...LETTERS].map((c) => `▁${c}`),
  ...[...LETTERS.toUpperCase()].map((c) => `▁${c}`),
  ...'0123456789',
  ...[...'0123456789'].map((d) => `▁${d}`),
  '.',
  ',',
];
const EOS = 0;
const id = (p: string) => {
  const i = PIECES.indexOf(p);
  if (i < 0) throw new Error(`no piece ${p}`);
  return i;
};
/** The ids that spell `text` (words after the first with a leading space piece). */
const spell = (text: string) => text.split(' ').flatMap((w) => [id(`▁${w[0]}`), ...[...w.slice(1)].map(id)]);
const guard = (flags: Partial<GuardFlags>, input = '') =>
  new PieceGuard({
    pieces: PIECES,
    eos: EOS,
    flags: { vocabulary: false, artefacts: false, repetition: false, ...flags },
    input,
  });

test('every word of the profanity and slur list is refused where it would end, in any output; a longer word that starts with one is not', () => {
  const g = guard({ banned: true });
  assert.ok(PROFANITY.size > 200, `the list has ${PROFANITY.size} words`);
  for (const word of ['ass', 'fuck', 'shit', 'bitch', 'retard', 'nigger', 'faggot'])
    assert.ok(PROFANITY.has(word), word);
  for (const word of PROFANITY) {
    const ids = spell(`the ${word}`);
    assert.ok(!g.forRow(ids)(EOS), `"${word}" may end the output`);
    assert.ok(!g.forRow(ids)(id('.')), `"${word}" may be followed by a full stop`);
    assert.ok(guard({ banned: false }).forRow(ids)(EOS), `without the rule "${word}" ends the output`);
  }
  assert.ok(g.forRow(spell('the ass'))(id('e')), '"asse…" may go on');
  assert.ok(g.forRow(spell('the assess'))(EOS), '"assess" is a word');
});

test('a word that can only become a profane one is refused as it is written, so a beam with nothing else to write cannot keep it', () => {
  const known = new KnownWords(['the', 'fuck', 'fucking', 'ass', 'assess', 'cat']);
  const g = new PieceGuard({
    pieces: PIECES,
    eos: EOS,
    flags: { vocabulary: true, artefacts: false, repetition: false, banned: true },
    known,
    input: '',
  });
  assert.ok(
    !g.forRow(spell('the fuc'))(id('k')),
    '"fuck" is refused at its last letter: every known word it starts is banned',
  );
  assert.ok(g.forRow(spell('the as'))(id('s')), '"ass" may go on to "assess"');
  assert.ok(g.forRow(spell('the ca'))(id('t')));
});

test('training-text boilerplate is refused at its last word: "contributed to this report", "the opinions expressed", "click here"', () => {
  const g = guard({ banned: true });
  for (const phrase of BOILERPLATE) {
    const ids = spell(`so ${phrase.join(' ')}`);
    assert.ok(!g.forRow(ids)(EOS), `"${phrase.join(' ')}" may end the output`);
  }
  assert.ok(closesBanned(['contributed', 'to', 'this'], 'report'));
  assert.ok(!closesBanned(['wrote', 'to', 'this'], 'report'), 'the words before it decide');
  assert.ok(g.forRow(spell('she wrote this report'))(EOS), 'a report is no boilerplate');
  assert.ok(g.forRow(spell('she expressed her opinions'))(EOS));
});

test('a digit glued to letters is refused ("The US1"), unless the input writes one so ("MP3")', () => {
  const ids = spell('the US');
  assert.ok(!guard({ artefacts: true }, 'The US and 1 more').forRow(ids)(id('1')));
  assert.ok(guard({ artefacts: false }, 'The US and 1 more').forRow(ids)(id('1')), 'the rule off');
  assert.ok(guard({ artefacts: true }, 'an MP3 player').forRow(spell('an MP'))(id('3')));
  assert.ok(guard({ artefacts: true }, 'a 1').forRow(spell('a'))(id('▁1')), 'a number after a space');
});

test("with names from the input, numbers are also the input's own, even for a model without a word list", () => {
  const ids = spell('in');
  assert.ok(!guard({ sourceNames: true }, 'It rained in May.').forRow(ids)(id('▁1')), 'a number the input lacks');
  assert.ok(guard({ sourceNames: true }, 'It rained 1 day.').forRow(ids)(id('▁1')), "the input's number");
  assert.ok(guard({}, 'It rained in May.').forRow(ids)(id('▁1')), 'without the rule');
});

test('a number is written only as a whole number of the input: not "800" of "$40,800", nor "40" or "40,8" of it', () => {
  const g = guard({ sourceNames: true }, 'The bill came to $40,800 in 1990s money, 40.8 times the estimate.');
  assert.ok(!g.forRow(spell('in'))(id('▁8')), '"800" is part of "40,800", no number of its own');
  assert.ok(!g.forRow(spell('in 40'))(EOS), '"40" is not the whole "40,800"');
  assert.ok(!g.forRow(spell('in 40'))(id('▁a')), '"40" may not end before another word');
  assert.ok(!g.forRow(spell('in 40,8'))(EOS), '"40,8" is not the whole "40,800"');
  assert.ok(!g.forRow(spell('in 40,80'))(id('1')), '"40,801" is not it either');
  assert.ok(g.forRow(spell('in 40,800'))(EOS), 'the whole number');
  assert.ok(g.forRow(spell('in 40,800'))(id('.')), 'the whole number, then a full stop');
  assert.ok(g.forRow(spell('in 40.8'))(EOS), 'the other number that starts so');
  assert.ok(g.forRow(spell('in 1990s'))(EOS), '"1990" with its suffix');
  assert.ok(!g.forRow(spell('in 199'))(id('s')), '"199" is no number of the input');
});

test('a name the input writes only with its digits is not written without them: "Person" of "#Person1#", "MI" of "MI5"', () => {
  const g = guard({ sourceNames: true }, '#Person1#: Did MI5 call? #Person2#: No, Tom did.');
  assert.ok(!g.forRow(spell('then Person'))(id('▁a')), '"Person" alone is no name of the input');
  assert.ok(!g.forRow(spell('then Person'))(EOS), 'nor at the end');
  assert.ok(g.forRow(spell('then Person'))(id('1')), '"Person1" is');
  assert.ok(!g.forRow(spell('the MI'))(id('.')), '"MI" of "MI5"');
  assert.ok(g.forRow(spell('then Tom'))(id('.')), 'a name the input writes alone');
  assert.ok(guard({}, '#Person1#: Hi.').forRow(spell('then Person'))(id('▁a')), 'without the rule');
});

test('"The US17177711" cannot be written: no digit glued to a name, no number the input lacks', () => {
  const input = 'The US had 17 of the 177 votes.';
  const g = guard({ artefacts: true, sourceNames: true }, input);
  assert.ok(!g.forRow(spell('the US'))(id('1')), '"US1"');
  assert.ok(!g.forRow(spell('the US 17'))(id('1')), '"171…" starts no number of the input');
  assert.ok(g.forRow(spell('the US 17'))(EOS), '"17" is one');
  assert.ok(g.forRow(spell('the US 17'))(id('7')), '"177" is one');
  assert.ok(guard({}, input).forRow(spell('the US 17'))(id('1')), 'without the rules');
});

test('"bosto" is no word: a word ends only where a known word (or one of the input) does', () => {
  const g = new PieceGuard({
    pieces: PIECES,
    eos: EOS,
    flags: { vocabulary: true, artefacts: false, repetition: false },
    known: new KnownWords(['in', 'boston', 'the']),
    input: '',
  });
  assert.ok(!g.forRow(spell('in bosto'))(EOS));
  assert.ok(!g.forRow(spell('in bosto'))(id('.')));
  assert.ok(!g.forRow(spell('in bosto'))(id('▁t')));
  assert.ok(g.forRow(spell('in boston'))(EOS));
  assert.ok(guard({}).forRow(spell('in bosto'))(EOS), 'without the rule');
});

// ---- beam search with nothing allowed left: the row is dropped, never written unconstrained ------

/** A model that would write each of `paths` (spelled as `spell` does) with its probability, then end. */
const scripted = (paths: [string, number][]) => {
  const spelled = paths.map(([text, p]) => ({ ids: [...spell(text), EOS], p }));
  return tableModel(PIECES.length, (prefix) => {
    const next: Record<number, number> = {};
    for (const { ids, p } of spelled)
      if (ids.length > prefix.length && prefix.every((t, i) => ids[i] === t))
        next[ids[prefix.length]] = (next[ids[prefix.length]] ?? 0) + p;
    return next;
  });
};
const text = (ids: readonly number[]) =>
  ids
    .map((t) => PIECES[t])
    .join('')
    .replace(/▁/g, ' ')
    .trim();
const beam = (paths: [string, number][], guard: RowGuard, beamSize = 2) =>
  beamSearch(
    scripted(paths),
    Array.from({ length: beamSize }, () => []),
    {
      bos: PIECES.length,
      eos: EOS,
      beamSize,
      maxLength: 20,
      minLength: 0,
      lengthPenalty: 1,
      noRepeatNgramSize: 0,
      guard,
    },
  );

test('"The FBI has been charged with the flight.": a name the source lacks is not written, however likely', async () => {
  const g = guard({ sourceNames: true }, 'The police have been charged with the flight.');
  const hyps = await beam(
    [
      ['the FBI has', 0.9],
      ['the police', 0.1],
    ],
    g,
  );
  for (const h of hyps) assert.ok(!text(h.tokens).includes('FB'), text(h.tokens));
  assert.equal(text(hyps[0].tokens), 'the police');
});

test('a beam whose every candidate is refused ends before the unfinished word ("in bosto"), never "in bostox"', async () => {
  const g = new PieceGuard({
    pieces: PIECES,
    eos: EOS,
    flags: { vocabulary: true, artefacts: false, repetition: false },
    known: new KnownWords(['in', 'boston']),
    input: '',
  });
  const hyps = await beam([['in bostox', 1]], g, 1);
  assert.deepEqual(
    hyps.map((h) => text(h.tokens)),
    ['in'],
  );
});

test('a reply is never steered by a profane key: the mapper skips it, as a neighbour and as a typed key', () => {
  const vectors: Record<string, number[]> = { thesis: [1, 0], ass: [0.99, 0.1], essay: [0.9, 0.4], donkey: [0, 1] };
  const unit = (v: number[]) => Float32Array.from(v.map((x) => x / Math.hypot(...v)));
  const mapper = new KeyMapper(Object.keys(vectors), (w) => (vectors[w] ? unit(vectors[w]) : null));
  assert.deepEqual(mapper.nearest('thesis', 1), ['essay']);
  assert.ok(!mapper.has('ass'));
  assert.throws(() => mapper.typed('ass'), /no key "ass"/);
});

// ---- the shipped models -------------------------------------------------------------------------

const quiet = { device: 'cpu' as const, threads: 1, log: () => {} };
const noop: RunContext = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };
const profane = (text: string) => (text.toLowerCase().match(/\p{L}+/gu) ?? []).filter((w) => PROFANITY.has(w));
/** Asserts that `output` names nothing and counts nothing `input` lacks, and swears at no one. */
function faithful(output: string, input: string, what: string): void {
  const u = unsupportedItems(output, input);
  assert.deepEqual(u.invented, [], `${what} invented ${u.invented.join(', ')}: ${output}`);
  assert.deepEqual(profane(output), [], `${what}: ${output}`);
}

const NEWS = [
  'the council met on tuesday to discuss the new bridge over the river. residents said the old bridge was unsafe and that repairs had been delayed for years. the council agreed to spend more money on roads next year.',
  'scientists studying the coral reef found that warmer water had bleached large parts of it. they said the reef could recover if the water cooled, but warned that storms were becoming more frequent.',
  'the school closed early after heavy snow fell overnight. parents were asked to collect their children before noon, and buses were cancelled across the region.',
];

test('Summarize (abstractive): names and numbers only from the article', async () => {
  const system = await SummarizeSystem.load(modelDir(modelsDir, 'summarize'), quiet);
  for (const text of NEWS) {
    const r = SummarizeResult.parse(
      await system.run(SummarizeRequest.parse({ op: 'summarize', text, mode: 'abstractive' }), noop),
    );
    faithful(r.summary, text, 'the summary');
  }
  await system.dispose();
});

test('Expand into Essay: names and numbers only from the topic words ("climate, policy, emissions, tax" names no one)', async () => {
  const system = await EssaySystem.load(modelDir(modelsDir, 'essay'), quiet);
  for (const topics of ['climate, policy, emissions, tax', 'girl, park, dog, ball', 'school, friend, game']) {
    const r = EssayResult.parse(await system.run(EssayRequest.parse({ op: 'essay', topics, candidates: 3 }), noop));
    for (const c of r.candidates) faithful(c.text, topics, `the essay on ${topics}`);
  }
  await system.dispose();
});

test('Round-Trip: the reconstruction names and counts only what the paragraph does', async () => {
  const system = await RoundTripSystem.load(modelDir(modelsDir, 'roundtrip'), quiet);
  for (const text of [
    'the girl walked to the park with her dog. they played with a ball until it was dark. then they went home and had dinner.',
    ...NEWS.slice(0, 2),
  ]) {
    const r = RoundTripResult.parse(await system.run(RoundTripRequest.parse({ op: 'roundtrip', text }), noop));
    faithful(r.reconstruction, text, 'the reconstruction');
  }
  await system.dispose();
});

test('Suggest Replies: names and numbers only from the post', async () => {
  const system = await ReplySystem.load(modelDir(modelsDir, 'reply'), quiet);
  for (const text of [
    'what did you do at the weekend?',
    'i love playing tennis with my old friends on a sunny day.',
    'where are you going tonight?',
  ]) {
    const r = ReplyResult.parse(await system.run(ReplyRequest.parse({ op: 'reply', text }), noop));
    for (const c of r.candidates) {
      faithful(c.text, text, 'the reply');
      assert.deepEqual(profane(c.label), [], c.label);
    }
  }
  // The shipped replies are lower-case and seldom name anyone: the guard itself, on the model's pieces.
  const before = system.tokenize("i'm going to");
  const name = system.tokenize("i'm going to London")[before.length];
  assert.ok(!system.guardFor('where are you going tonight?', undefined)?.forRow(before)(name), 'a name the post lacks');
  assert.ok(system.guardFor('are you going to London?', undefined)?.forRow(before)(name), "the post's own name");
  await system.dispose();
});
