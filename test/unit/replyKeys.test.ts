// The parts of Suggest Replies that need no model: the post's semantic keys (wink-nlp nouns and
// adjectives), WordNet synonyms and antonyms, the key mapper (as a writer would recognise it), the
// memory read of Eqs. 11-12 with β = 100, and float16 decoding of the shipped memory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EngineError } from '../../extension/engine/errors';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { halfToFloat, readFloat16File } from '../../extension/engine/runtime/float16';
import { KeyMapper, keyLabel } from '../../extension/engine/systems/keyMapper';
import { memoryRead } from '../../extension/engine/systems/reply';
import { semanticKeys } from '../../extension/engine/text/keys';
import { antonyms, synonyms } from '../../extension/engine/text/wordnet';
import { tempDir } from './helpers';

test('the keys of a post are its nouns and adjectives, as lemmas, in order, without function words or fillers', () => {
  const keys = semanticKeys('I love playing tennis with my old friends on a sunny day.');
  assert.deepEqual(
    keys.map((k) => k.lemma),
    ['tennis', 'old', 'friend', 'sunny', 'day'],
  );
  assert.deepEqual(
    keys.map((k) => k.pos),
    ['noun', 'adj', 'noun', 'adj', 'noun'],
  );
  assert.equal(keys[2].word, 'friends', "the post's own word is kept for the label");
  assert.deepEqual(
    semanticKeys('The dogs are barking at the bigger cats.').map((k) => k.lemma),
    ['dog', 'big', 'cat'],
  );
  // Verbs, pronouns and dialogue fillers steer nothing.
  assert.deepEqual(semanticKeys('and then it went to it'), []);
  assert.deepEqual(semanticKeys('Yeah, thanks, guys, something like that.'), []);
  assert.deepEqual(semanticKeys(''), []);
});

test('WordNet gives the synonyms and antonyms a writer expects', () => {
  assert.ok(synonyms('champion', 'noun').includes('champ'));
  assert.ok(synonyms('big', 'adj').includes('large'));
  assert.deepEqual(antonyms('big', 'adj'), ['little']);
  assert.ok(antonyms('hot', 'adj').includes('cold'));
  assert.ok(antonyms('day', 'noun').includes('night'));
  assert.ok(antonyms('love', 'noun').includes('hate'));
  // "huge" has no antonym of its own: those of the head adjective it is similar to ("large": "small").
  assert.ok(antonyms('huge', 'adj').includes('small'));
  assert.deepEqual(antonyms('tennis', 'noun'), []);
  assert.deepEqual(synonyms('qwertyuiop', 'noun'), []);
});

/** A mapper over a small memory; word vectors are one-hot-ish by hand so neighbours are known. */
function toyMapper(): KeyMapper {
  const vectors: Record<string, number[]> = {
    tennis: [1, 0, 0],
    football: [0.9, 0.1, 0],
    music: [0, 1, 0],
    song: [0.1, 0.95, 0],
    night: [0, 0, 1],
    little: [0, 0.2, 0.9],
    large: [0.5, 0.5, 0],
    hero: [0.7, 0, 0.3],
    champion: [0.72, 0, 0.28],
    badminton: [0.95, 0, 0.05],
  };
  const unit = (v: number[]) => {
    const n = Math.hypot(...v);
    return Float32Array.from(v.map((x) => x / n));
  };
  return new KeyMapper(
    ['tennis', 'football', 'music', 'song', 'night', 'little', 'large', 'hero'],
    (w) => (vectors[w] ? unit(vectors[w]) : null),
    (w) => w.replace(/s$/, ''),
  );
}

test('the key mapper: identity, synonym, antonym and neighbour give memory keys, labelled as the quick pick shows them', () => {
  const m = toyMapper();
  const key = (lemma: string, pos: 'noun' | 'adj', word = lemma) => ({ word, lemma, pos });
  assert.deepEqual(m.map(key('tennis', 'noun'), 'identity'), {
    from: 'tennis',
    key: 'tennis',
    mapper: 'identity',
    label: 'tennis — identity',
  });
  assert.equal(m.map(key('champion', 'noun'), 'identity'), null, 'champion is no memory key');
  assert.equal(m.map(key('champion', 'noun'), 'synonym')?.label, 'champion → hero — synonym');
  assert.equal(m.map(key('big', 'adj'), 'synonym')?.key, 'large');
  assert.equal(m.map(key('big', 'adj'), 'antonym')?.label, 'big → little — antonym');
  assert.equal(m.map(key('day', 'noun'), 'antonym')?.key, 'night');
  assert.equal(m.map(key('tennis', 'noun'), 'neighbour')?.label, 'tennis → football — neighbour');
  assert.equal(m.map(key('badminton', 'noun'), 'neighbour')?.key, 'tennis');
  assert.equal(m.map(key('tennis', 'noun'), 'antonym'), null);
  assert.equal(m.map(key('friend', 'noun', 'Friends'), 'neighbour'), null, 'no vector, no neighbour');
  assert.equal(keyLabel('Friends', 'friend', 'typed'), 'Friends → friend — typed');
});

test('a typed key: a memory key (or its lemma) steers; an unknown one is refused with the nearest known keys', () => {
  const m = toyMapper();
  assert.deepEqual(m.typed(' Music '), { from: 'Music', key: 'music', mapper: 'typed', label: 'music — typed' });
  assert.equal(m.typed('songs').key, 'song');
  assert.throws(
    () => m.typed('badminton'),
    (e: unknown) =>
      e instanceof EngineError &&
      e.code === 'bad-input' &&
      /no key "badminton"/.test(e.message) &&
      /nearest keys it knows are: tennis, football/.test(e.message),
  );
  assert.throws(() => m.typed('!!!'), /Type a word/);
});

test('the memory read (Eqs. 11-12): with β = 100 the softmax all but picks the block row nearest the query; zero rows never count', () => {
  const D = 4;
  const unit = (v: number[]) => {
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  };
  const rows = [unit([1, 0, 0, 0]), unit([0.6, 0.8, 0, 0]), unit([0, 0, 1, 0]), [0, 0, 0, 0]];
  const memory = Float32Array.from([...unit([9, 9, 9, 9]), ...rows.flat()]); // another row first: the tested block starts at offset D
  const query = Float32Array.from(unit([0.5, 0.9, 0, 0]));
  const { read, weights } = memoryRead(query, memory, D, 4, D, 100);
  assert.equal(weights.length, 4);
  assert.ok(weights[1] > 0.99, `the nearest row should take the read: ${weights}`);
  assert.equal(weights[3], 0, 'a zero (padding) row got weight');
  assert.ok(Math.abs(weights.reduce((a, b) => a + b, 0) - 1) < 1e-9);
  for (let d = 0; d < D; d++) assert.ok(Math.abs(read[d] - rows[1][d]) < 0.01);
  // With β = 1 the read is a blend, not a choice: β is what makes it a content-based selection.
  const soft = memoryRead(query, memory, D, 4, D, 1);
  assert.ok(soft.weights[1] < 0.6 && soft.weights[0] > 0.2);
  // A block of padding only reads nothing.
  assert.deepEqual(Array.from(memoryRead(query, new Float32Array(8), 0, 2, 4, 100).read), [0, 0, 0, 0]);
});

test('float16 values decode as numpy writes them', () => {
  assert.equal(halfToFloat(0x3c00), 1);
  assert.equal(halfToFloat(0xc000), -2);
  assert.equal(halfToFloat(0x3555), 0.333251953125);
  assert.equal(halfToFloat(0x0001), 2 ** -24);
  assert.equal(halfToFloat(0x0000), 0);
  assert.equal(halfToFloat(0x7c00), Infinity);
});

test('a float16 file (the shipped memory and embeddings) reads as the same values, every bit pattern', async () => {
  const file = path.join(tempDir('f16'), 'all.bin');
  const bits = Buffer.alloc(65536 * 2);
  for (let h = 0; h < 65536; h++) bits.writeUInt16LE(h, 2 * h);
  await fs.writeFile(file, bits);
  const values = await readFloat16File(file, 65536, 'every half');
  for (let h = 0; h < 65536; h++) assert.ok(Object.is(values[h], Math.fround(halfToFloat(h))), `0x${h.toString(16)}`);
  await assert.rejects(
    readFloat16File(file, 3, 'three halves'),
    /has 131072 bytes; model\.json's architecture needs 3 float16 values/,
  );
});
