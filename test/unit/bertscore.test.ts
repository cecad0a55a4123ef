/**
 * BERTScore: the math by hand (identical texts, [CLS]/[SEP] weighing 0, idf as bert_score's
 * get_idf_dict), its signature, and the numbers bert_score's greedy_cos_idf gives (mirrored in
 * PyTorch by hub_fixtures.py, CHECKS.json) for a tiny all-MiniLM-L6-v2 downloaded from the loopback
 * Hub through the real Hub path; off unless a model is chosen; a clear error for a model that is no encoder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../extension/engine/engine';
import { EngineError } from '../../extension/engine/errors';
import { bertScoreOf } from '../../extension/engine/eval/bertScoreEval';
import { scoreSignatures } from '../../extension/engine/eval/metricList';
import { HubEncoder } from '../../extension/engine/hub/hubEncoder';
import {
  bertScorePair,
  corpusBertScore,
  idfWeights,
  uniformWeights,
  type EncodedText,
} from '../../extension/engine/metrics/bertscore';
import { bertScoreSignature } from '../../extension/engine/metrics/signature';
import type { ScoreRequest, ScoreResult } from '../../extension/protocol';
import { repoRoot } from './helpers';
import { HUB_FIXTURES } from './loopbackHub';
import { config, tempCache, withHub } from './hubTestKit';

const CLS = 101;
const SEP = 102;
const SPECIALS = new Set([CLS, SEP]);

/** A text of the given ids with these 2-d vectors. */
const text = (ids: number[], vectors: number[][]): EncodedText => ({ ids, vectors: vectors.flat(), dim: 2 });

test('identical texts score 1; [CLS] and [SEP] are matched but weigh 0', () => {
  const a = text(
    [CLS, 7, 8, SEP],
    [
      [1, 0],
      [0.6, 0.8],
      [0, 2],
      [-1, 0],
    ],
  );
  const same = bertScorePair(a, a, uniformWeights(SPECIALS), SPECIALS);
  assert.deepEqual(same, { precision: 1, recall: 1, f1: 1 });
  // Draft token 7 (0.6, 0.8) against reference tokens (1, 0) and (0, 1): its best cosine is 0.8. The
  // reference's [CLS] (1, 0) is a match candidate although it weighs nothing in the sums.
  const hyp = text(
    [CLS, 7, SEP],
    [
      [1, 0],
      [0.6, 0.8],
      [1, 0],
    ],
  );
  const ref = text(
    [CLS, 9, SEP],
    [
      [1, 0],
      [0, 3],
      [1, 0],
    ],
  );
  const s = bertScorePair(hyp, ref, uniformWeights(SPECIALS), SPECIALS);
  assert.ok(Math.abs(s.precision - 0.8) < 1e-12, String(s.precision));
  // Reference token 9 (0, 1): its best is the draft's token 7, cosine 0.8.
  assert.ok(Math.abs(s.recall - 0.8) < 1e-12, String(s.recall));
  assert.ok(Math.abs(s.f1 - 0.8) < 1e-12);
});

test('an empty side (only [CLS] and [SEP]) scores 0, as bert_score does', () => {
  const empty = text(
    [CLS, SEP],
    [
      [1, 0],
      [0, 1],
    ],
  );
  const full = text(
    [CLS, 5, SEP],
    [
      [1, 0],
      [1, 1],
      [0, 1],
    ],
  );
  assert.deepEqual(bertScorePair(empty, full, uniformWeights(SPECIALS), SPECIALS), { precision: 0, recall: 0, f1: 0 });
  assert.deepEqual(bertScorePair(full, empty, uniformWeights(SPECIALS), SPECIALS), { precision: 0, recall: 0, f1: 0 });
});

test("idf weights are get_idf_dict's: log((M + 1) / (df + 1)), log(M + 1) for unseen, 0 for [CLS] and [SEP]", () => {
  const refs = [
    [CLS, 1, 2, 2, SEP],
    [CLS, 2, 3, SEP],
    [CLS, 3, SEP],
  ];
  const w = idfWeights(refs, SPECIALS);
  assert.equal(w(1), Math.log(4 / 2));
  assert.equal(w(2), Math.log(4 / 3)); // twice in one reference counts once
  assert.equal(w(3), Math.log(4 / 3));
  assert.equal(w(99), Math.log(4));
  assert.equal(w(CLS), 0);
  assert.equal(w(SEP), 0);
  const u = uniformWeights(SPECIALS);
  assert.deepEqual([u(1), u(99), u(CLS), u(SEP)], [1, 1, 0, 0]);
});

test('the corpus score is the mean of the pairs; idf reweighs the tokens', () => {
  const hyp = text(
    [CLS, 1, 2, SEP],
    [
      [1, 0],
      [1, 0],
      [0, 1],
      [1, 1],
    ],
  );
  const ref = text(
    [CLS, 1, 3, SEP],
    [
      [1, 0],
      [1, 0.1],
      [1, -1],
      [1, 1],
    ],
  );
  const same = text(
    [CLS, 4, SEP],
    [
      [1, 2],
      [3, 1],
      [2, 2],
    ],
  );
  const c = corpusBertScore(
    [
      { hypothesis: hyp, reference: ref },
      { hypothesis: same, reference: same },
    ],
    false,
    SPECIALS,
  );
  assert.ok(Math.abs(c.pairs[1].f1 - 1) < 1e-12, String(c.pairs[1].f1));
  assert.ok(Math.abs(c.f1 - (c.pairs[0].f1 + 1) / 2) < 1e-15);
  const withIdf = corpusBertScore(
    [
      { hypothesis: hyp, reference: ref },
      { hypothesis: same, reference: same },
    ],
    true,
    SPECIALS,
  );
  assert.notEqual(withIdf.pairs[0].precision, c.pairs[0].precision);
});

test('the signature names the encoder, its layer, idf and data type, and says there is no rescaling', () => {
  assert.equal(
    bertScoreSignature({ model: 'Xenova/all-MiniLM-L6-v2', layer: 6, idf: true, dtype: 'fp32' }),
    'nrefs:1|model:Xenova/all-MiniLM-L6-v2|layer:6|idf:yes|rescale:no|dtype:fp32|version:draftsmith-1',
  );
  // Options alone give no BERTScore signature: the layer and data type are the model's.
  assert.equal(scoreSignatures({}).BERTScore, undefined);
});

// ---- the real-family fixture, through the Hub path ----------------------------------------------

const ENCODER = 'fixtures/all-MiniLM-L6-v2';
interface Reference {
  pairs: { hypothesis: string; reference: string }[];
  hyp_ids: number[][];
  ref_ids: number[][];
  idf_off: { per_pair: { P: number; R: number; F: number }[]; corpus: { P: number; R: number; F: number } };
  idf_on: { per_pair: { P: number; R: number; F: number }[]; corpus: { P: number; R: number; F: number } };
}
const CHECK = (
  JSON.parse(readFileSync(path.join(HUB_FIXTURES, 'CHECKS.json'), 'utf8')) as Record<
    string,
    { layer: number; bertscore: Reference }
  >
)[ENCODER];
const REF = CHECK.bertscore;
/** float32 embeddings through onnxruntime against PyTorch's: the scores agree far closer than this. */
const TOLERANCE = 1e-5;

const runtime = { device: 'cpu' as const, threads: 1, log: () => {} };
const watch = { progress: () => {}, isCancelled: () => false };

test("BERTScore of a tiny all-MiniLM-L6-v2 from the Hub matches bert_score's numbers, idf off and on", async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  const hubConfig = { endpoint: hub.endpoint, cacheDir, offline: false, stallSeconds: 30 };
  const encoder = await HubEncoder.open({ kind: 'hub', id: ENCODER }, hubConfig, runtime, watch);
  t.after(() => encoder.dispose());
  assert.equal(encoder.layer, CHECK.layer);
  assert.equal(encoder.dtype, 'fp32');
  assert.deepEqual([...encoder.specials], [CLS, SEP]);
  // transformers.js's WordPiece gives the ids the generator's tokenizer gave (accents, CJK, [UNK]).
  for (const [i, p] of REF.pairs.entries()) {
    assert.deepEqual((await encoder.encode(p.hypothesis)).ids, REF.hyp_ids[i], p.hypothesis);
    assert.deepEqual((await encoder.encode(p.reference)).ids, REF.ref_ids[i], p.reference);
  }
  let worst = 0;
  for (const [name, idf] of [
    ['idf_off', false],
    ['idf_on', true],
  ] as const) {
    const run = await bertScoreOf(REF.pairs, encoder, idf);
    assert.equal(run.summary.idf, idf);
    const expected = REF[name];
    for (const [i, got] of run.pairs.entries()) {
      const want = expected.per_pair[i];
      for (const [a, b] of [
        [got.precision, want.P],
        [got.recall, want.R],
        [got.f1, want.F],
      ]) {
        worst = Math.max(worst, Math.abs(a - b));
        assert.ok(Math.abs(a - b) < TOLERANCE, `${name} pair ${i}: ${a} vs ${b}`);
      }
    }
    const c = expected.corpus;
    for (const [a, b] of [
      [run.summary.precision, c.P],
      [run.summary.recall, c.R],
      [run.summary.f1, c.F],
    ])
      assert.ok(Math.abs(a - b) < TOLERANCE, `${name} corpus: ${a} vs ${b}`);
    assert.equal(
      run.summary.signature,
      `nrefs:1|model:${ENCODER}|layer:${CHECK.layer}|idf:${idf ? 'yes' : 'no'}|rescale:no|dtype:fp32|version:draftsmith-1`,
    );
  }
  t.diagnostic(`largest difference from the reference: ${worst.toExponential(2)}`);
});

const scoreRequest = (options: ScoreRequest['options']): ScoreRequest => ({
  op: 'score',
  hypothesis: 'The rain fell on the quiet town.',
  reference: 'The rain fell over the quiet town.',
  options,
});

test('Score Draft: no encoder chosen, no BERTScore and nothing downloaded; chosen, its score and signature', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  const engine = new Engine(config({ endpoint: hub.endpoint, cacheDir }), () => {});
  const off = (await engine.run(scoreRequest({}))) as ScoreResult;
  assert.equal(off.scores.bertscore, undefined);
  assert.equal(off.signatures.BERTScore, undefined);
  assert.equal(hub.requests.length, 0, hub.requests.join('\n'));
  const on = (await engine.run(
    scoreRequest({ bertscore: { model: { kind: 'hub', id: ENCODER }, idf: true } }),
  )) as ScoreResult;
  const b = on.scores.bertscore;
  assert.ok(b);
  // One pair: the reference's pair of the fixture, scored without idf (idf needs several references).
  assert.equal(b.idf, false);
  assert.ok(Math.abs(b.f1 - REF.idf_off.per_pair[0].F) < TOLERANCE, `${b.f1}`);
  assert.equal(on.signatures.BERTScore, b.signature);
  assert.match(b.signature, /\|idf:no\|rescale:no\|/);
  assert.ok(hub.requests.some((r) => r.startsWith(`/${ENCODER}/resolve/`)));
});

test('a causal language model chosen as the encoder is refused, naming what BERTScore needs', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  const engine = new Engine(config({ endpoint: hub.endpoint, cacheDir }), () => {});
  await assert.rejects(
    engine.run(scoreRequest({ bertscore: { model: { kind: 'hub', id: 'fixtures/distilgpt2' } } })),
    (e: unknown) =>
      e instanceof EngineError &&
      e.code === 'bad-model' &&
      /a gpt2 model \(a decoder-only language model\); BERTScore needs an encoder such as a BERT/.test(e.message) &&
      /draftsmith\.score\.bertscore\.model/.test(e.message),
  );
  // Nothing but the listing and config.json came: the kind is checked before the weights.
  assert.ok(!hub.requests.some((r) => r.endsWith('.onnx')), hub.requests.join('\n'));
});

test('a folder that is no model in transformers.js layout is refused by name', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'draftsmith-encoder-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, 'notes.txt'), 'not a model');
  const engine = new Engine(config({ cacheDir: tempCache(t) }), () => {});
  await assert.rejects(
    engine.run(scoreRequest({ bertscore: { model: { kind: 'folder', dir } } })),
    (e: unknown) => e instanceof EngineError && e.code === 'bad-model' && /has no config\.json/.test(e.message),
  );
});

// ---- the CLI ---------------------------------------------------------------------------------------

/** `draftsmith score ARGS` in a child process (asynchronous: the loopback Hub answers from this one). */
function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(repoRoot, 'dist', 'cli.js'), 'score', ...args, '--quiet'],
      { env: { ...process.env, ...env }, timeout: 120_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test('draftsmith score: -m bertscore and the full table give the reference numbers; nothing loads without the option', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'draftsmith-bertscore-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const ref = path.join(dir, 'ref.txt');
  const hyp = path.join(dir, 'hyp.txt');
  writeFileSync(ref, REF.pairs.map((p) => p.reference).join('\n') + '\n');
  writeFileSync(hyp, REF.pairs.map((p) => p.hypothesis).join('\n') + '\n');
  const env = { DRAFTSMITH_CACHE: cacheDir };
  const encoder = ['--bertscore-model', ENCODER, '--hub-endpoint', hub.endpoint];

  const alone = await cli(
    ['--ref', ref, '--hyp', hyp, '-m', 'bertscore', ...encoder, '--bertscore-idf', '--json'],
    env,
  );
  assert.equal(alone.code, 0, alone.stderr);
  const j = JSON.parse(alone.stdout) as { score: number; precision: number; recall: number; signature: string };
  assert.ok(Math.abs(j.score - REF.idf_on.corpus.F) < TOLERANCE, `${j.score}`);
  assert.ok(Math.abs(j.precision - REF.idf_on.corpus.P) < TOLERANCE, `${j.precision}`);
  assert.match(j.signature, /^nrefs:1\|model:fixtures\/all-MiniLM-L6-v2\|layer:2\|idf:yes\|rescale:no\|dtype:fp32\|/);
  const line = await cli(['--ref', ref, '--hyp', hyp, '-m', 'bertscore', ...encoder], env);
  assert.match(line.stdout, /^BERTScore\|nrefs:1\|.*\|idf:no\|.* = 0\.\d{4} \(P = 0\.\d{4}, R = 0\.\d{4}\)\n$/);

  const table = await cli(['--ref', ref, '--hyp', hyp, ...encoder, '--json'], env);
  assert.equal(table.code, 0, table.stderr);
  const s = JSON.parse(table.stdout) as { bertscore: { f1: number }; signatures: Record<string, string> };
  assert.ok(Math.abs(s.bertscore.f1 - REF.idf_off.corpus.F) < TOLERANCE, `${s.bertscore.f1}`);
  assert.match(s.signatures.BERTScore, /\|idf:no\|/);

  // A folder of drafts: each row scored alone (its pair of the reference), the corpus row their mean.
  const drafts = path.join(dir, 'drafts');
  const refs = path.join(dir, 'refs');
  mkdirSync(drafts);
  mkdirSync(refs);
  for (const i of [0, 1]) {
    writeFileSync(path.join(drafts, `d${i}.txt`), REF.pairs[i].hypothesis);
    writeFileSync(path.join(refs, `d${i}.txt`), REF.pairs[i].reference);
  }
  const folder = await cli(['--hyp', drafts, '--ref', refs, ...encoder, '--json'], env);
  assert.equal(folder.code, 0, folder.stderr);
  const f = JSON.parse(folder.stdout) as {
    drafts: Record<string, number | string>[];
    corpus: Record<string, number>;
    signatures: Record<string, string>;
  };
  const perPair = REF.idf_off.per_pair;
  for (const row of f.drafts) {
    const i = Number(String(row.draft).replace(/\D/g, ''));
    assert.ok(Math.abs(Number(row['bertscore-f1']) - perPair[i].F) < TOLERANCE, JSON.stringify(row));
  }
  assert.equal(f.drafts.length, 2);
  assert.ok(Math.abs(f.corpus['bertscore-f1'] - (perPair[0].F + perPair[1].F) / 2) < TOLERANCE);
  assert.match(f.signatures.BERTScore, /\|idf:no\|/);

  const before = hub.requests.length;
  const plain = await cli(['--ref', ref, '--hyp', hyp, '--json'], env);
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal((JSON.parse(plain.stdout) as { bertscore?: unknown }).bertscore, undefined);
  assert.equal(hub.requests.length, before, 'nothing asked of the Hub without --bertscore-model');
  const missing = await cli(['--ref', ref, '--hyp', hyp, '-m', 'bertscore'], env);
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /-m bertscore needs an encoder: --bertscore-model MODEL/);
});
