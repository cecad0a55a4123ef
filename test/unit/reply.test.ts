// Suggest Replies on the shipped (smoke) model, models/reply: the TypeScript encoder, memory read and
// greedy loop against PyTorch's (test/fixtures/reply-parity.json, written by export_reply.py), one
// labelled candidate per key, ranked and deterministic, and the awkward inputs the issue names: no
// nouns or adjectives, a typed key the memory lacks, a very long post, other scripts, empty text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { replyLines, mappersOf } from '../../extension/cli/replyCommand';
import { parseArgs } from '../../extension/cli/args';
import { EngineError } from '../../extension/engine/errors';
import type { RunContext } from '../../extension/engine/systems/context';
import { ReplySystem } from '../../extension/engine/systems/reply';
import { modelDir } from '../../extension/engine/systems/registry';
import { ReplyRequest, ReplyResult } from '../../extension/protocol';
import { badModelNaming, editManifest, fixture, modelsDir, rehash, repoRoot, tempDir } from './helpers';

const quiet = { device: 'cpu' as const, threads: 1, log: () => {} };
const noop: RunContext = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };
let loaded: Promise<ReplySystem> | undefined;
const load = () => (loaded ??= ReplySystem.load(modelDir(modelsDir, 'reply'), quiet));
const run = async (r: Omit<ReplyRequest, 'op'>) =>
  ReplyResult.parse(await (await load()).run(ReplyRequest.parse({ op: 'reply', ...r }), noop));

interface Parity {
  model: 'esed' | 'nrm';
  post: string;
  key: string;
  input_ids: number[];
  state_first: number[];
  query_first?: number[];
  read_weights?: number[];
  read_first?: number[];
  greedy_ids: number[];
}

const near = (a: ArrayLike<number>, b: readonly number[], tol: number) => b.every((x, i) => Math.abs(a[i] - x) <= tol);

test('the shipped model: TypeScript reads the memory and decodes exactly as PyTorch did (parity fixture)', async () => {
  const fx = JSON.parse(readFileSync(fixture('reply-parity.json'), 'utf8')) as Parity;
  const system = await load();
  assert.equal(system.variant, fx.model);
  assert.deepEqual(system.tokenize(fx.post), fx.input_ids, 'the tokenizer reads the post as sentencepiece did');
  const post = await system.encode(fx.input_ids);
  assert.ok(near(post.state, fx.state_first, 1e-4), "the decoder's first state differs");
  let read: Float32Array | null = null;
  if (fx.model === 'esed') {
    assert.ok(post.query && near(post.query, fx.query_first ?? [], 1e-4), 'the query p differs');
    const r = system.read(post, fx.key);
    assert.ok(near(r.weights, fx.read_weights ?? [], 1e-3), `read weights ${r.weights} vs ${fx.read_weights}`);
    assert.ok(near(r.read, fx.read_first ?? [], 1e-3), 'the read r differs');
    read = r.read;
  }
  assert.deepEqual(await system.greedy(post, read), fx.greedy_ids);
});

test('a post gets one candidate per key, labelled "key — mapping", ranked by length-normalised likelihood, the same every time', async () => {
  const text = 'I love playing tennis with my old friends on a sunny day.';
  const r = await run({ text, mappers: ['identity'] });
  const system = await load();
  assert.equal(r.architecture, 'esed');
  assert.ok(r.candidates.length >= 2, `only ${r.candidates.length} candidates`);
  assert.equal(new Set(r.candidates.map((c) => c.key)).size, r.candidates.length, 'two candidates share a key');
  for (const c of r.candidates) {
    assert.ok(system.mapper.has(c.key), `${c.key} is no memory key`);
    assert.match(c.label, / — (identity|neighbour)$/);
    assert.ok(c.text.trim().length > 0, `empty reply for ${c.label}`);
    assert.equal(c.readWeights?.length, system.arch.slots);
  }
  const inMemory = r.postKeys.filter((k) => k.inMemory).map((k) => k.lemma);
  for (const k of inMemory)
    assert.ok(
      r.candidates.some((c) => c.key === k && c.label === `${k} — identity`),
      `no identity candidate for ${k}`,
    );
  const scores = r.candidates.map((c) => c.score);
  assert.deepEqual(
    scores,
    [...scores].sort((a, b) => b - a),
    'not ranked best first',
  );
  assert.deepEqual((await run({ text, mappers: ['identity'] })).candidates, r.candidates, 'not deterministic');
  assert.deepEqual(replyLines(r)[0], `${r.candidates[0].label}: ${r.candidates[0].text}`);
});

test('a reply cut off at the length limit says which limit, as the other systems do; one the model ended says none', async () => {
  const text = 'I love playing tennis with my old friends on a sunny day.';
  const cut = await run({ text, mappers: ['identity'], decoding: { maxLength: 2, minLength: 0 } });
  assert.ok(cut.candidates.length > 0);
  for (const c of cut.candidates) {
    assert.ok(c.tokens <= 2, `${c.tokens} tokens for a limit of 2`);
    if (c.tokens === 2) assert.deepEqual(c.hitMaxLength, { maxLength: 2, limitedBy: 'request' }, c.text);
  }
  assert.ok(
    cut.candidates.some((c) => c.hitMaxLength !== null),
    'no candidate reached a limit of 2 tokens',
  );
  const whole = await run({ text, mappers: ['identity'] });
  for (const c of whole.candidates)
    if (c.hitMaxLength === null) assert.ok(c.tokens < (await load()).arch.maxReplyTokens);
  const huge = await run({ text, mappers: ['identity'], decoding: { maxLength: 512 } });
  for (const c of huge.candidates) if (c.hitMaxLength) assert.equal(c.hitMaxLength.limitedBy, 'model');
});

test('the mappers steer by other keys: antonyms and neighbours give other memory keys, labelled with the mapping', async () => {
  const system = await load();
  const r = await run({
    text: 'What a big day for the whole family!',
    mappers: ['identity', 'synonym', 'antonym', 'neighbour'],
    maxCandidates: 20,
  });
  const mappers = new Set(r.candidates.map((c) => c.mapper));
  assert.ok(mappers.has('identity') && mappers.has('neighbour'), [...mappers].join(', '));
  for (const c of r.candidates.filter((c) => c.mapper !== 'identity')) {
    assert.match(c.label, new RegExp(`^\\S+ → ${c.key} — ${c.mapper}$`));
    assert.notEqual(c.key, c.from.toLowerCase());
  }
  // The post is chosen so that the antonym has something to do: "big" is a key of it, and WordNet's
  // antonym "little" a key of the memory. Asserted, so that the check below always runs.
  assert.ok(
    r.postKeys.some((k) => k.lemma === 'big' && k.pos === 'adj'),
    `"big" is no adjective key of the post: ${JSON.stringify(r.postKeys)}`,
  );
  assert.ok(system.mapper.has('little'), 'the memory has no key "little"');
  assert.ok(
    r.candidates.some((c) => c.label === 'big → little — antonym'),
    r.candidates.map((c) => c.label).join('; '),
  );
});

test('a typed key steers the one reply; one the memory lacks is refused with the nearest known keys', async () => {
  const system = await load();
  const known = system.keys[0];
  const r = await run({ text: 'How was your weekend?', key: known.toUpperCase() });
  assert.equal(r.candidates.length, 1);
  assert.equal(r.candidates[0].mapper, 'typed');
  assert.equal(r.candidates[0].key, known);
  await assert.rejects(
    run({ text: 'How was your weekend?', key: 'xylophonist' }),
    (e: unknown) =>
      e instanceof EngineError &&
      e.code === 'bad-input' &&
      /no key "xylophonist"; the nearest keys it knows are: \w+/.test(e.message),
  );
});

test('a post without nouns or adjectives gets no candidate and a note that says to type a key', async () => {
  const r = await run({ text: 'And then it went to it.' });
  assert.deepEqual(r.candidates, []);
  assert.deepEqual(r.postKeys, []);
  assert.match(r.notes.join(' '), /no nouns or adjectives.*type a key/i);
});

test('a very long post is read from its end, and the note says how much and how to choose the part', async () => {
  const text = `${'The committee discussed the budget for the new library at great length. '.repeat(200)}Do you like the music at the festival?`;
  const r = await run({ text, mappers: ['identity'] });
  assert.equal(r.truncated, true);
  assert.ok(r.usedFrom > 0 && r.usedFrom < text.length);
  assert.match(r.notes[0], /longer than the model reads \(\d+ subwords\): the replies answer its last \d+ characters/);
  assert.match(r.notes[0], /Select only the part to answer to choose another\.$/);
  assert.ok(r.candidates.length > 0);
  assert.ok(
    r.postKeys.some((k) => k.lemma === 'music' || k.lemma === 'festival'),
    'the keys come from the part read',
  );
});

test('other scripts are refused with a clear message; empty and binary text too', async () => {
  for (const text of ['Я очень люблю играть в теннис с друзьями.', '我喜欢和朋友一起打网球。']) {
    await assert.rejects(
      run({ text }),
      (e: unknown) => e instanceof EngineError && e.code === 'bad-input' && /reads English/.test(e.message),
      text,
    );
  }
  await assert.rejects(run({ text: '  \n ' }), /no post to reply to/);
  await assert.rejects(run({ text: '\u0000\u0001\u0002\u0003 binary \u0004\u0005\u0006' }), /binary data/);
});

test('--mapper takes names, comma lists and "all"; anything else is refused', () => {
  assert.equal(mappersOf(parseArgs(['reply', 'x'])), undefined);
  assert.deepEqual(mappersOf(parseArgs(['reply', 'x', '--mapper', 'synonym,antonym', '--mapper', 'synonym'])), [
    'synonym',
    'antonym',
  ]);
  assert.deepEqual(mappersOf(parseArgs(['reply', 'x', '--mapper', 'all'])), [
    'identity',
    'synonym',
    'antonym',
    'neighbour',
  ]);
  assert.throws(() => mappersOf(parseArgs(['reply', 'x', '--mapper', 'hypernym'])), /--mapper must be/);
});

test('draftsmith reply prints "label: reply" lines best first, the keys on standard error; bad options and no keys exit non-zero', () => {
  const cli = (args: string[]) =>
    spawnSync(process.execPath, [path.join(repoRoot, 'dist', 'cli.js'), ...args], {
      encoding: 'utf8',
      timeout: 120_000,
    });
  const ok = cli(['reply', 'I love playing tennis with my old friends on a sunny day.']);
  assert.equal(ok.status, 0, ok.stderr);
  const lines = ok.stdout.trim().split('\n');
  assert.ok(lines.length >= 2 && lines.every((l) => /^\S+( → \S+)? — (identity|neighbour): \S/.test(l)), ok.stdout);
  assert.match(ok.stderr, /^keys of the post: tennis, old, friend/m);
  const json = cli(['reply', 'Do you like music?', '--key', 'music', '--json']);
  assert.equal(json.status, 0, json.stderr);
  assert.equal(ReplyResult.parse(JSON.parse(json.stdout)).candidates[0].label, 'music — typed');
  const none = cli(['reply', 'And then it went to it.']); // the note says to give --key
  assert.equal(none.status, 1);
  assert.match(none.stderr, /no nouns or adjectives/);
  const bad = cli(['reply', 'Hello there, friend.', '--mapper', 'hypernym']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--mapper must be/);
  const unknown = cli(['reply', 'Hello there, friend.', '--key', 'xylophonist']);
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /nearest keys it knows are/);
});

test('a reply folder whose memory or keys disagree with model.json is refused, naming the file', async () => {
  const dir = tempDir('reply-model');
  const from = modelDir(modelsDir, 'reply');
  for (const f of await fs.readdir(from)) await fs.copyFile(path.join(from, f), path.join(dir, f));
  // A memory cut short (a truncated copy whose hash was updated: the size check still catches it).
  const memory = path.join(dir, 'memory.bin');
  await fs.writeFile(memory, (await fs.readFile(memory)).subarray(0, 1000));
  await rehash(dir, 'memory.bin');
  await assert.rejects(
    ReplySystem.load(dir, quiet),
    badModelNaming(memory, /has 1000 bytes; model\.json's architecture needs \d+ float16 values/),
  );
  // keys.json for another memory shape.
  await fs.copyFile(path.join(from, 'memory.bin'), memory);
  await rehash(dir, 'memory.bin');
  await editManifest(dir, (m) => {
    m.architecture.keys = 7;
  });
  await assert.rejects(
    ReplySystem.load(dir, quiet),
    badModelNaming(path.join(dir, 'keys.json'), /describes \d+ keys x 8 slots x \d+; model\.json says 7 x 8 x \d+/),
  );
});
