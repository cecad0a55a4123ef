// Round-Trip Paragraph (extension/engine/systems/roundtrip.ts): the TypeScript greedy loop against
// PyTorch's (parity fixtures written by export_roundtrip.py), the result a writer sees for an ordinary
// paragraph, and every awkward input the issue names: one sentence, fifty, a list, a code block, no
// sentence punctuation, other scripts, empty text and binary junk.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { EngineError } from '../../extension/engine/errors';
import { RoundTripSystem, roundTripScores } from '../../extension/engine/systems/roundtrip';
import { modelDir } from '../../extension/engine/systems/registry';
import type { RunContext } from '../../extension/engine/systems/context';
import { notProse, sentenceSpans } from '../../extension/engine/text/reader';
import { int64Tensor, openSession } from '../../extension/engine/runtime/onnx';
import { fixture, modelsDir, repoRoot } from './helpers';

const quiet = { device: 'cpu' as const, threads: 1, log: () => {} };
const noop: RunContext = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };

interface Parity {
  model: 'standard' | 'hier' | 'hier-attn';
  sentences: string[];
  sentence_ids: number[][];
  h_first: number[];
  greedy_ids: number[][];
  attention: number[][] | null;
}

/** Each exported folder with the fixture export_roundtrip.py wrote for it. */
const PARITY: { name: string; dir: string; fixture: string }[] = [
  { name: 'the shipped model', dir: modelDir(modelsDir, 'roundtrip'), fixture: fixture('roundtrip-parity.json') },
  ...(['standard', 'hier'] as const).map((m) => {
    const dir = path.join(repoRoot, 'test', 'fixtures', 'roundtrip-models', m);
    return { name: `the ${m} test model`, dir, fixture: path.join(dir, 'parity.json') };
  }),
];

const systems = new Map<string, Promise<RoundTripSystem>>();
const load = (dir = modelDir(modelsDir, 'roundtrip')) => {
  let s = systems.get(dir);
  if (!s) systems.set(dir, (s = RoundTripSystem.load(dir, quiet)));
  return s;
};

test('every model variant has a parity fixture and a test folder (standard, hier, hier-attn)', () => {
  const models = PARITY.map((p) => (JSON.parse(readFileSync(p.fixture, 'utf8')) as Parity).model).sort();
  assert.deepEqual(models, ['hier', 'hier-attn', 'standard']);
});

for (const p of PARITY) {
  test(`${p.name}: TypeScript greedy decoding writes exactly the ids PyTorch wrote`, async () => {
    assert.ok(existsSync(p.fixture), `${p.fixture} is missing: export_roundtrip.py writes it`);
    const fx = JSON.parse(readFileSync(p.fixture, 'utf8')) as Parity;
    const system = await load(p.dir);
    assert.equal(system.variant, fx.model, 'the folder and its fixture are of different models');
    // The tokenizer reads each sentence as sentencepiece did in training.
    assert.deepEqual(
      fx.sentences.map((s) => system.encodeSentence(s)),
      fx.sentence_ids,
    );
    const d = await system.decodeIds(fx.sentence_ids);
    assert.deepEqual(d.sentences, fx.greedy_ids);
    if (fx.attention) {
      assert.ok(d.attention, 'the attention model returned no attention');
      assert.equal(d.attention.length, fx.attention.length);
      fx.attention.forEach((row, k) =>
        row.forEach((a, i) =>
          assert.ok(Math.abs(d.attention![k][i] - a) < 1e-4, `attention[${k}][${i}] ${d.attention![k][i]} vs ${a}`),
        ),
      );
    } else {
      assert.equal(d.attention, null);
    }
  });
}

test("the shipped model's encoder and first step give PyTorch's state (top layer) and end decision", async () => {
  const fx = JSON.parse(readFileSync(fixture('roundtrip-parity.json'), 'utf8')) as Parity & {
    first_end_logit?: number;
  };
  const dir = modelDir(modelsDir, 'roundtrip');
  const m = JSON.parse(readFileSync(path.join(dir, 'model.json'), 'utf8'));
  const H: number = m.architecture.hidden;
  const { session: enc } = await openSession(path.join(dir, m.files.encoder), quiet);
  // h is [layers, 1, H]: the top layer's state is its last H values.
  const top = (t: { data: unknown }) => Array.from((t.data as Float32Array).slice(-H));
  const close = (actual: number[], expected: number[], what: string) =>
    expected.forEach((v, i) => assert.ok(Math.abs(actual[i] - v) < 1e-4, `${what}[${i}] ${actual[i]} vs ${v}`));
  if (fx.model === 'standard') {
    const ids = fx.sentence_ids.flat().reverse();
    const e = await enc.run({ input_ids: int64Tensor(ids, [1, ids.length]) });
    close(top(e.h), fx.h_first, 'encoder h');
    return;
  }
  const { session: step } = await openSession(path.join(dir, m.files.sentenceStep), quiet);
  const rows = fx.sentence_ids
    .slice()
    .reverse()
    .map((s) => s.slice().reverse());
  const T = Math.max(...rows.map((r) => r.length));
  const e = await enc.run({
    input_ids: int64Tensor(
      rows.flatMap((r) => r.concat(new Array<number>(T - r.length).fill(m.specialTokens.pad))),
      [rows.length, T],
    ),
    lengths: int64Tensor(
      rows.map((r) => r.length),
      [rows.length],
    ),
  });
  const s = await step.run({
    prev: e.start,
    h: e.h,
    c: e.c,
    ...(step.inputNames.includes('memory') ? { memory: e.memory } : {}),
  });
  close(top(s.h_out), fx.h_first, 'first sentence step h');
  if (fx.first_end_logit !== undefined)
    close([(s.end_logit.data as Float32Array)[0]], [fx.first_end_logit], 'end_logit');
});

const PARAGRAPH =
  'The river rose after three days of rain. Farmers moved their cattle to the hills. ' +
  'By Sunday the water had reached the old mill. The mayor opened the school as a shelter.';

test('a paragraph round-trips: the result names what was read, what was written, and scores it', async () => {
  const s = await load();
  const r = await s.run({ op: 'roundtrip', text: PARAGRAPH }, noop);
  assert.equal(r.source, PARAGRAPH);
  assert.deepEqual(
    r.input.map((x) => x.text),
    [
      'The river rose after three days of rain.',
      'Farmers moved their cattle to the hills.',
      'By Sunday the water had reached the old mill.',
      'The mayor opened the school as a shelter.',
    ],
  );
  for (const x of r.input) assert.equal(PARAGRAPH.slice(x.start, x.end), x.text);
  assert.equal(r.totalSentences, 4);
  assert.equal(r.truncatedBy, null);
  assert.deepEqual([r.usedStart, r.usedEnd], [0, PARAGRAPH.length]);
  assert.equal(r.reconstruction, r.output.map((o) => o.text).join(' '));
  // The 1.5x rule of the paper's decoding: never more output than that.
  assert.ok(
    r.stats.outputTokens <= r.limits.maxTokens,
    `${r.stats.outputTokens} tokens for a limit of ${r.limits.maxTokens}`,
  );
  assert.equal(r.limits.maxTokens, Math.ceil(1.5 * r.stats.usedInputTokens));
  if (r.architecture !== 'standard') assert.ok(r.output.length <= Math.ceil(1.5 * 4));
  // Scores of the reconstruction against the input, and one alignment row per output sentence.
  for (const v of [r.scores.rouge1.f1, r.scores.rouge2.f1, r.scores.rougeW.f1]) assert.ok(v >= 0 && v <= 1);
  assert.ok(r.scores.bleu.score >= 0 && r.scores.bleu.score <= 100);
  assert.equal(r.scores.coherence.alignment.length, r.output.length);
  assert.deepEqual(
    r.scores.coherence.inputSentences,
    r.input.map((x) => x.text),
  );
  if (r.architecture === 'hier-attn') {
    for (const o of r.output) {
      assert.ok(o.attention && o.attention.length === 4, 'attention over the four input sentences');
      assert.ok(Math.abs(o.attention.reduce((a, b) => a + b, 0) - 1) < 1e-4);
    }
  }
  assert.ok(r.stats.encodeMs >= 0 && r.stats.decodeMs > 0);
});

test('the scores judge the text, not the model: a perfect reconstruction scores BLEU 100, ROUGE 1 and L 0', async () => {
  const input = ['The river rose after rain.', 'Farmers moved the cattle.', 'The mayor opened the school.'];
  const same = roundTripScores(input, input);
  assert.ok(Math.abs(same.bleu.score - 100) < 1e-9);
  assert.equal(same.rouge1.f1, 1);
  assert.ok(Math.abs(same.rougeW.f1 - 1) < 1e-12);
  assert.equal(same.coherence.L, 0);
  assert.deepEqual(
    same.coherence.alignment.map((a) => a.input),
    [0, 1, 2],
  );
  // The same sentences in reverse order: ROUGE-1 stays 1, but L (Eq. 18) sees the order broken.
  const reversed = roundTripScores(input, input.slice().reverse());
  assert.equal(reversed.rouge1.f1, 1);
  assert.deepEqual(
    reversed.coherence.alignment.map((a) => a.input),
    [2, 1, 0],
  );
  // Pairs (1,2), (1,3), (2,3): |−1 − 1| + |−2 − 2| + |−1 − 1| = 8 over 3 pairs.
  assert.ok(Math.abs((reversed.coherence.L ?? NaN) - 8 / 3) < 1e-12);
});

test('one sentence round-trips; coherence L is undefined (there is no pair to compare)', async () => {
  const r = await (await load()).run({ op: 'roundtrip', text: 'The river rose after three days of rain.' }, noop);
  assert.equal(r.input.length, 1);
  assert.equal(r.scores.coherence.L, null);
});

test('fifty sentences: the model reads the first eight (what it was trained on), and says so', async () => {
  const text = Array.from({ length: 50 }, (_, i) => `Sentence number ${i + 1} tells of the river.`).join(' ');
  const r = await (await load()).run({ op: 'roundtrip', text }, noop);
  assert.equal(r.input.length, 8);
  assert.equal(r.totalSentences, 50);
  assert.equal(r.truncatedBy, 'sentences');
  assert.equal(r.stats.inputTokens, null, 'the unread sentences were not counted');
  // What Apply would replace: the first eight sentences exactly, the rest untouched.
  assert.equal(text.slice(r.usedStart, r.usedEnd), text.split(' Sentence number 9 ')[0]);
  const three = await (await load()).run({ op: 'roundtrip', text, maxSentences: 3 }, noop);
  assert.equal(three.input.length, 3);
  assert.equal(three.maxSentences, 3);
});

test('long sentences: the model reads as many as fit its token limit, and says so', async () => {
  const long =
    'The committee that met on Tuesday in the old town hall discussed the bridge, the school, the roads, the taxes, the parks and the river in great detail.';
  const text = Array.from({ length: 20 }, () => long).join(' ');
  const r = await (await load()).run({ op: 'roundtrip', text, maxSentences: 32 }, noop);
  assert.equal(r.truncatedBy, 'tokens');
  const m = JSON.parse(readFileSync(path.join(modelDir(modelsDir, 'roundtrip'), 'model.json'), 'utf8'));
  assert.ok(r.stats.usedInputTokens <= m.maxInputTokens && r.input.length < 20);
});

test('no sentence punctuation: a short line is one sentence; a long run is refused with a reason', async () => {
  const s = await load();
  const r = await s.run({ op: 'roundtrip', text: 'we walked to the market and bought apples and bread' }, noop);
  assert.equal(r.input.length, 1);
  const run = Array.from({ length: 400 }, (_, i) => ['river', 'bridge', 'market', 'farmer'][i % 4]).join(' ');
  await assert.rejects(
    s.run({ op: 'roundtrip', text: run }, noop),
    (e: unknown) =>
      e instanceof EngineError && e.code === 'bad-input' && /without sentence punctuation/.test(e.message),
  );
  // A megabyte without a full stop is refused as quickly (it is never tokenized to the end).
  const started = performance.now();
  await assert.rejects(s.run({ op: 'roundtrip', text: 'a'.repeat(1_000_000) }, noop), /without sentence punctuation/);
  assert.ok(performance.now() - started < 20_000);
});

test('a megabyte of prose: the first sentences are read, nothing hangs', async () => {
  const text = 'The council met on Tuesday. Café owners asked for longer hours! '.repeat(16_000);
  const r = await (await load()).run({ op: 'roundtrip', text }, noop);
  assert.equal(r.input.length, 8);
  assert.ok(r.usedEnd < 1000 && r.totalSentences > 30_000);
});

const refuses = (text: string, what: RegExp) => async () => {
  await assert.rejects(
    (await load()).run({ op: 'roundtrip', text }, noop),
    (e: unknown) => e instanceof EngineError && e.code === 'bad-input' && what.test(e.message),
  );
};

test(
  'a code block is refused: the model reconstructs prose',
  refuses('```ts\nconst x = 1;\nconsole.log(x);\n```', /code block/),
);
test(
  'code without a fence is refused too',
  refuses('const total = items.reduce((a, b) => a + b, 0);\nif (total > 10) {\n  report(total);\n}', /looks like code/),
);
test(
  'a list is refused: its items are not the sentences of a paragraph',
  refuses('- buy apples\n- buy bread\n- call the plumber', /looks like a list \(3 of its 3 lines/),
);
test(
  'a numbered list is refused',
  refuses('1. Preheat the oven.\n2. Mix the flour and eggs.\n3. Bake for an hour.', /list/),
);
test(
  'Chinese is refused: the model reads English',
  refuses('东京是日本的首都。这座城市很大。人们每天乘坐地铁上班。', /reads English/),
);
test(
  'Arabic is refused: the model reads English',
  refuses('مرحبا بالعالم. هذه فقرة قصيرة. نحن نكتب جملا.', /reads English/),
);
test('an empty or blank selection is refused', refuses(' \n\t ', /empty/));
test(
  'binary junk is refused',
  refuses(String.fromCharCode(...Array.from({ length: 600 }, (_, i) => (i * 37) % 256)), /binary/),
);

test('prose that merely looks a little like code or a list is not refused', () => {
  assert.equal(notProse(PARAGRAPH), undefined);
  assert.equal(
    notProse('He bought three things; apples, bread and milk.\nThen he went home and slept.\nIn the morning he ate.'),
    undefined,
  );
  assert.equal(notProse('There are two reasons. 1. It rained. The river rose.'), undefined);
  assert.equal(notProse('Return to the house if it rains.'), undefined);
});

test('mixed English with a few words of another script still round-trips, counting the unknown subwords', async () => {
  const r = await (
    await load()
  ).run({ op: 'roundtrip', text: 'We visited 東京 in the spring. The trains were quick and clean.' }, noop);
  assert.equal(r.input.length, 2);
  assert.ok(r.unknownTokens >= 1);
});

test('sentence spans point into the text as written, line breaks and all', () => {
  const text = 'First line\nwraps here.  Second one!\n\nA heading\n\n  Last (really) one?';
  const spans = sentenceSpans(text);
  assert.deepEqual(
    spans.map((s) => s.text),
    ['First line wraps here.', 'Second one!', 'A heading', 'Last (really) one?'],
  );
  for (const s of spans) assert.equal(text.slice(s.start, s.end).replace(/\s+/g, ' '), s.text);
});

test('a cancel between sentence steps stops decoding', async () => {
  const s = await load();
  let calls = 0;
  const ctx: RunContext = {
    ...noop,
    checkCancelled: () => {
      if (++calls > 2) throw new EngineError('cancelled', 'Cancelled.');
    },
  };
  await assert.rejects(
    s.run({ op: 'roundtrip', text: PARAGRAPH }, ctx),
    (e: unknown) => e instanceof EngineError && e.code === 'cancelled',
  );
});

test('any text at all gets a reconstruction whose spans lie in that text, or a clear bad-input error', async () => {
  const fc = (await import('fast-check')).default;
  const runs = Math.max(10, Math.round(Number(process.env.PROPERTY_RUNS ?? 200) / 4));
  const nasty = fc.constantFrom(
    '\u0000',
    '\uD800',
    '\u202E',
    'שלום עולם.',
    'مرحبا.',
    '東京。',
    '👩‍👩‍👧‍👦',
    'Mr.',
    'U.S.',
    '...',
    '?!',
    '\n\n',
    '- ',
    '1. ',
    '```',
    ';',
    '{',
  );
  const word = fc.stringMatching(/^[A-Za-z]{1,10}$/);
  const text = fc.oneof(
    fc
      .array(fc.oneof(nasty, word, fc.string({ unit: 'grapheme', maxLength: 6 })), { maxLength: 40 })
      .chain((parts) => fc.constantFrom(' ', '. ', '\n').map((sep) => parts.join(sep))),
    fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('latin1')),
  );
  const s = await load();
  let answered = 0;
  await fc.assert(
    fc.asyncProperty(text, async (t) => {
      try {
        const r = await s.run({ op: 'roundtrip', text: t }, noop);
        answered++;
        assert.ok(r.input.length >= 1 && r.usedStart >= 0 && r.usedEnd <= t.length && r.usedStart < r.usedEnd);
        for (const x of r.input) assert.equal(t.slice(x.start, x.end).replace(/\s+/g, ' '), x.text);
        assert.ok(r.stats.outputTokens <= r.limits.maxTokens);
      } catch (e) {
        assert.ok(
          e instanceof EngineError && e.code === 'bad-input',
          `${JSON.stringify(t).slice(0, 200)}: ${String(e)}`,
        );
      }
    }),
    { numRuns: runs },
  );
  console.log(`roundtrip: ${answered} of ${runs} hostile texts were round-tripped, the rest got a bad-input error`);
});
