import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { SummarizeSystem } from '../../extension/engine/systems/summarize';
import { CancelledError } from '../../extension/engine/errors';
import { int64Tensor, openSession } from '../../extension/engine/runtime/onnx';
import { emptyCaches, feedCaches, layerViews } from '../../extension/engine/runtime/layerCaches';
import { fixture, modelsDir, article } from './helpers';

const dir = path.join(modelsDir, 'summarize');
const quiet = { device: 'cpu' as const, threads: 1, log: () => {} };
const parity = JSON.parse(readFileSync(fixture('summarize-parity.json'), 'utf8')) as {
  text: string;
  input_ids: number[];
  topic_attention: number[];
  greedy_ids: number[];
  first_log_probs_top: number[];
  first_log_probs_values: number[];
};
const noop = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };
let system: Promise<SummarizeSystem> | undefined;
const load = () => (system ??= SummarizeSystem.load(dir, quiet));

test('the exported encoder computes the same topic-aware attention as PyTorch did', async () => {
  const { session } = await openSession(path.join(dir, 'encoder.onnx'), quiet);
  const ids = parity.input_ids;
  const out = await session.run({
    input_ids: int64Tensor(ids, [1, ids.length]),
    attention_mask: int64Tensor(
      ids.map(() => 1),
      [1, ids.length],
    ),
  });
  const alpha = out.topic_attention.data as Float32Array;
  assert.equal(alpha.length, parity.topic_attention.length);
  parity.topic_attention.forEach((a, i) => assert.ok(Math.abs(alpha[i] - a) < 1e-4, `α[${i}] ${alpha[i]} vs ${a}`));
  assert.ok(Math.abs(alpha.reduce((s, x) => s + x, 0) - 1) < 1e-4, 'α sums to one over the tokens (Eq. 11)');
  // One decoder step from <s> gives PyTorch's top tokens with the same log-probabilities.
  const { session: dec } = await openSession(path.join(dir, 'decoder.onnx'), quiet);
  const manifest = JSON.parse(readFileSync(path.join(dir, 'model.json'), 'utf8'));
  const a = manifest.architecture;
  const feeds: Record<string, ReturnType<typeof int64Tensor>> = {
    input_ids: int64Tensor([manifest.specialTokens.bos], [1, 1]),
    memory_mask: out.memory_mask,
  };
  feedCaches(feeds, 'cross_key_values', layerViews(out.cross_key_values, 'cross_key_values'));
  feedCaches(feeds, 'past_key_values', emptyCaches(a.decoderLayers, 1, a.heads, a.dModel / a.heads));
  if (dec.inputNames.includes('source_ids')) feeds.source_ids = int64Tensor(ids, [1, ids.length]);
  const step = await dec.run(feeds);
  const lp = step.log_probs.data as Float32Array;
  parity.first_log_probs_top.forEach((id, i) =>
    assert.ok(Math.abs(lp[id] - parity.first_log_probs_values[i]) < 1e-3, `token ${id}`),
  );
});

test('a text the abstractive model cannot restate without inventing names is refused with a clear message, not a crash', async () => {
  const s = await load();
  const req = { op: 'summarize' as const, text: 'zA Mlg', mode: 'abstractive' as const };
  await assert.rejects(
    s.run({ ...req, decoding: { beamSize: 1, maxLength: 6 } }, noop),
    (e: Error & { code?: string }) => e.code === 'bad-input' && /without inventing names or numbers/.test(e.message),
  );
});

test('summarizing an article gives a non-empty summary that is not the article itself', async () => {
  const s = await load();
  const r = await s.run({ op: 'summarize', text: article }, noop);
  assert.ok(r.summary.trim().length > 0);
  assert.ok(!article.includes(r.summary.trim()) || r.summary.length < article.length / 2);
  assert.equal(r.truncated, false);
  assert.equal(r.usedChars, article.length);
  assert.equal(r.hitMaxLength, null, 'the model ended this summary itself, well inside the default limit');
  assert.equal(r.topPhrases.length, 5);
  for (const p of r.topPhrases) assert.equal(article.slice(p.start, p.end), p.text);
  const total = r.tokens.reduce((sum, t) => sum + t.weight, 0);
  assert.ok(Math.abs(total - 1) < 1e-3, `token weights sum to ${total}`);
});

test('text longer than the model reads is cut, and the result says how much was used', async () => {
  const s = await load();
  const long = Array.from({ length: 12 }, () => article).join('\n\n');
  const r = await s.run({ op: 'summarize', text: long, maxInputTokens: 64, decoding: { maxLength: 8 } }, noop);
  assert.equal(r.truncated, true);
  assert.ok(r.usedChars > 0 && r.usedChars < long.length);
  assert.equal(r.stats.usedInputTokens, 64);
});

test('a megabyte document is summarized from its beginning without tokenizing the rest', async () => {
  const s = await load();
  const huge = Array.from({ length: Math.ceil(1_000_000 / article.length) }, () => article).join('\n\n');
  const r = await s.run({ op: 'summarize', text: huge, decoding: { beamSize: 1, maxLength: 8 } }, noop);
  assert.equal(r.truncated, true);
  assert.equal(r.stats.inputTokens, null, 'the whole megabyte was not counted');
  assert.ok(r.usedChars < 10_000 && r.summary.length > 0);
});

test('a summary stopped by the length limit before the model ended it says so and names the limit', async () => {
  const s = await load();
  // The model's minimum summary length is above 4 tokens, so the end token cannot come first.
  const r = await s.run({ op: 'summarize', text: article, decoding: { beamSize: 2, maxLength: 4 } }, noop);
  assert.equal(r.stats.outputTokens, 4);
  assert.deepEqual(r.hitMaxLength, { maxLength: 4, limitedBy: 'request' });
});

test('empty, blank and binary input get a clear message instead of a summary', async () => {
  const s = await load();
  await assert.rejects(s.run({ op: 'summarize', text: '' }, noop), /no text to summarize/);
  await assert.rejects(s.run({ op: 'summarize', text: ' \n\t \n' }, noop), /no text to summarize/);
  const binary = String.fromCharCode(...Array.from({ length: 400 }, (_, i) => (i * 37) % 256));
  await assert.rejects(s.run({ op: 'summarize', text: binary }, noop), /binary data/);
});

test('any script and emoji are handled without failing', async () => {
  const s = await load();
  const r = await s.run(
    {
      op: 'summarize',
      text: 'Der Bürgermeister 北京 Москва 🙂 said the bridge opens in May.',
      decoding: { maxLength: 10 },
    },
    noop,
  );
  assert.ok(r.summary.length > 0);
});

test('a cancel during generation stops it with a cancellation, not a summary', async () => {
  const s = await load();
  let steps = 0;
  await assert.rejects(
    s.run(
      { op: 'summarize', text: article },
      {
        progress: () => {
          steps++;
        },
        partial: () => {},
        checkCancelled: () => {
          if (steps > 3) throw new CancelledError();
        },
      },
    ),
    CancelledError,
  );
});

test('the same input gives the same summary (beam search is deterministic)', async () => {
  const s = await load();
  const a = await s.run(
    {
      op: 'summarize',
      text: parity.text,
      decoding: { beamSize: 1, maxLength: 12, noRepeatNgramSize: 0, minLength: 0 },
    },
    noop,
  );
  const b = await s.run(
    {
      op: 'summarize',
      text: parity.text,
      decoding: { beamSize: 1, maxLength: 12, noRepeatNgramSize: 0, minLength: 0 },
    },
    noop,
  );
  assert.equal(a.summary, b.summary);
});

test('as a likelihood model, the summarizer finds its own summary of an article likelier than an unrelated sentence', async () => {
  const s = await load();
  const own = (await s.run({ op: 'summarize', text: article, decoding: { beamSize: 1 } }, noop)).summary;
  const ownLp = await s.tokenLogProbs(article, own);
  const otherLp = await s.tokenLogProbs(article, 'The recipe needs two cups of flour, butter and a pinch of salt.');
  for (const lp of [...ownLp, ...otherLp]) assert.ok(lp <= 0 && Number.isFinite(lp));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  assert.ok(mean(ownLp) > mean(otherLp), `own ${mean(ownLp)} vs unrelated ${mean(otherLp)}`);
  await assert.rejects(s.tokenLogProbs('   ', own), /no source text/);
});
