// The training recipes under DistributedDataParallel and their smoke mode (item 8): models/train/tests/test_ddp.py
// trains a toy model for a few steps in two processes (gloo, one CPU thread each) through the shared
// loop (draftsmith_train/training.py + dist.py) and checks that the ranks hold identical parameters,
// trained on different slices of the batch stream, save an unwrapped checkpoint that resumes, and stop
// together. It needs Debian's PyTorch (/usr/bin/python3 with python3-torch: scripts/setup-train.sh);
// without it the test is skipped and says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot, tempDir } from './helpers';

const PY = process.env.DRAFTSMITH_TRAIN_PYTHON ?? '/usr/bin/python3';
const trainDir = path.join(repoRoot, 'models', 'train');

function torchVersion(): string | undefined {
  const r = spawnSync(PY, ['-c', 'import torch, numpy, sentencepiece; print(torch.__version__)'], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

const torch = torchVersion();
const skip = torch
  ? false
  : `no PyTorch for ${PY} (python3-torch, python3-numpy, python3-sentencepiece: bash scripts/setup-train.sh): training tests skipped`;

/** One file of models/train/tests run by unittest (Debian's torch): passes when all `count` tests ran and passed, none skipped. */
function pythonTests(file: string, count: number, timeoutMs: number): string {
  const r = spawnSync(PY, ['-m', 'unittest', 'discover', '-s', path.join(trainDir, 'tests'), '-p', file, '-v'], {
    cwd: trainDir,
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...process.env, PYTHONPATH: trainDir, PYTHONWARNINGS: 'ignore' },
  });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  assert.equal(r.status, 0, out);
  assert.match(out, new RegExp(`Ran ${count} tests?`));
  assert.doesNotMatch(out, /skipped/, `the tests of ${file} were skipped`);
  return out;
}

test(
  'two training processes under DDP stay in sync (models/train/tests/test_ddp.py)',
  { skip, timeout: 300_000 },
  () => {
    const t0 = Date.now();
    pythonTests('test_ddp.py', 4, 280_000);
    console.log(`# DDP test (torch ${torch}): ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  },
);

// GPU chunks resume the shared training loop (summarize, essay, story); a resumed run must
// take the uninterrupted run's steps, schedule, batches and weights.
test(
  'a training run stopped and resumed equals the uninterrupted run (models/train/tests/test_resume.py)',
  { skip, timeout: 120_000 },
  () => {
    pythonTests('test_resume.py', 6, 110_000);
  },
);

// The shared backbone language model: its corpus (held out by book and story, deduplicated, no
// leakage), its tokenizer and a resumable run; then the same run as one GPU call: packed, run for a
// few CPU steps in its place, handed back, unpacked, and resumed on the CPU from what came back.
test(
  'the backbone recipe prepares a leak-free corpus and trains resumably (models/train/tests/test_backbone.py)',
  { skip, timeout: 300_000 },
  () => {
    pythonTests('test_backbone.py', 1, 290_000);
  },
);

test(
  "the backbone's GPU call packs, runs, hands back and resumes on the CPU (models/train/tests/test_chunk_backbone.py)",
  { skip, timeout: 600_000 },
  () => {
    pythonTests('test_chunk_backbone.py', 1, 590_000);
  },
);

// PC-SAN's encoder taken from the shared backbone (models/train/tests/test_essay_backbone.py).
test(
  "the essay model's encoder from the backbone keeps the backbone's states, and the shipped essay rebuilds (models/train/tests/test_essay_backbone.py)",
  { skip, timeout: 120_000 },
  () => {
    pythonTests('test_essay_backbone.py', 2, 110_000);
  },
);

// Round-Trip rebuilt from its shipped graphs, so a fresh machine can go on training it (models/train/tests/test_roundtrip_rebuild.py).
test(
  "Round-Trip's weights rebuilt from its graphs write the exporter's tokens, and a checkpoint from the shipped folder resumes at its step (models/train/tests/test_roundtrip_rebuild.py)",
  { skip, timeout: 120_000 },
  () => {
    pythonTests('test_roundtrip_rebuild.py', 2, 110_000);
  },
);

// Every model that took more than an hour of compute trains on from its shipped graphs on a fresh machine
// (models/train/README.md, "Resuming on a fresh machine"): the rebuilt models compute what the graphs do.
test(
  "Continue Story's fused and premise models rebuilt from their graphs write the graphs' story, gates and premise, and their checkpoints load where the recipes resume; fusion and the backbone (its stand-in) train on at their steps (models/train/tests/test_story_rebuild.py)",
  { skip, timeout: 300_000 },
  () => {
    pythonTests('test_story_rebuild.py', 5, 290_000);
  },
);

test(
  "Summarize and Essay rebuilt from their graphs write the graphs' first steps and greedy tokens, and Essay trains on from its folder in its own shape (models/train/tests/test_summarize_rebuild.py, test_essay_rebuild.py)",
  { skip, timeout: 180_000 },
  () => {
    pythonTests('test_summarize_rebuild.py', 1, 85_000);
    pythonTests('test_essay_rebuild.py', 2, 85_000);
  },
);

test(
  "Suggest Replies' ESED rebuilt from its graphs reads its memory and writes the graphs' reply, and its checkpoint resumes at its step (models/train/tests/test_reply_rebuild.py)",
  { skip, timeout: 120_000 },
  () => {
    pythonTests('test_reply_rebuild.py', 2, 110_000);
  },
);

// News boilerplate leaves the training text (models/train/tests/test_boilerplate.py).
test(
  'a prepared news article keeps its real sentences and loses "contributed to this report", "opinions expressed" and "Click here" (models/train/tests/test_boilerplate.py)',
  { skip, timeout: 60_000 },
  () => {
    pythonTests('test_boilerplate.py', 3, 55_000);
  },
);

// Continue Story's fusion with the shared backbone as its frozen model, as a language model of the story or
// reading the prompt first (models/train/tests/test_story_backbone.py).
test(
  'the story model fused with the backbone decodes step by step as in one pass, reads padded prompts as each alone, keeps the backbone frozen and loads back (models/train/tests/test_story_backbone.py)',
  { skip, timeout: 120_000 },
  () => {
    pythonTests('test_story_backbone.py', 6, 110_000);
  },
);

// A GPU chunk's float16 or int8 hand-back keeps a tied embedding once (models/train/tests/test_chunk_slim.py).
test(
  'a checkpoint slimmed for the trip back from a GPU is half the size in float16, a quarter in int8 rows, and loads as the export rounds it (models/train/tests/test_chunk_slim.py)',
  { skip, timeout: 120_000 },
  () => {
    pythonTests('test_chunk_slim.py', 2, 110_000);
  },
);

// The GPT-2 recipe the loopback Hub's story model comes from: its cache, its padding, and
// the layout transformers.js runs (models/train/tests/test_causal_lm.py).
test(
  "the Hub story model's recipe keeps the cache exact and exports what transformers.js runs (models/train/tests/test_causal_lm.py)",
  { skip, timeout: 120_000 },
  () => {
    pythonTests('test_causal_lm.py', 4, 110_000);
  },
);

// The Hub summarizer fixture's export (export_peer.py --hub-layout): the graphs take plain
// tokenizer output and carry the names transformers.js's seq2seq generate() feeds and reads.
test(
  "the Hub summarizer's export takes plain tokens and has the seq2seq layout transformers.js runs (models/train/tests/test_hub_seq2seq.py)",
  { skip, timeout: 120_000 },
  () => {
    pythonTests('test_hub_seq2seq.py', 4, 110_000);
  },
);

// The smallest recipe's smoke mode end to end (SMOKE=1 bash models/train/train_roundtrip.sh:
// the three autoencoders for 20 steps at 32 units, the eval table, the exports and their ONNX parity
// check), on a data folder made from the repository's own prose (draftsmith_train/smoke_data.py: a fresh
// clone has no prepared .data), everything in a temporary folder: the shipped model and the test
// fixtures must come out unchanged.
test(
  'the Round-Trip recipe runs end to end in its smoke mode, writing nothing outside its folders',
  { skip, timeout: 600_000 },
  () => {
    const tmp = tempDir('smoke'); // removed when the file's process exits, passed or failed
    // ORT_DISABLE_TELEMETRY: the recipe's ONNX checks (node check_roundtrip_onnx.cjs) would each leave
    // onnxruntime's mat-debug-<pid>.log and a .ses file in the temp folder.
    const env = { ...process.env, PYTHONPATH: trainDir, PYTHONWARNINGS: 'ignore', PY, ORT_DISABLE_TELEMETRY: '1' };
    const shipped = [
      'models/roundtrip/encoder.onnx',
      'models/roundtrip/model.json',
      'test/fixtures/roundtrip-parity.json',
    ].map((f) => path.join(repoRoot, f));
    const before = shipped.map(digest);
    const t0 = Date.now();
    const data = spawnSync(PY, ['-m', 'draftsmith_train.smoke_data', '--out', path.join(tmp, 'data')], {
      cwd: trainDir,
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(data.status, 0, `${data.stdout}${data.stderr}`);
    const t1 = Date.now();
    const r = spawnSync('bash', [path.join(trainDir, 'train_roundtrip.sh')], {
      cwd: repoRoot,
      encoding: 'utf8',
      timeout: 560_000,
      maxBuffer: 64 * 1024 * 1024,
      env: {
        ...env,
        SMOKE: '1',
        DATA: path.join(tmp, 'data'),
        RUNS: path.join(tmp, 'runs'),
        OUT: path.join(tmp, 'model'),
        VARIANTS: path.join(tmp, 'variants'),
      },
    });
    const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
    assert.equal(r.status, 0, out.slice(-6000));
    assert.match(out, /train_roundtrip\.sh: done in \d+ s/);
    assert.ok(existsSync(path.join(tmp, 'model', 'model.json')), 'no export');
    for (const m of ['standard', 'hier', 'hier-attn'])
      assert.ok(existsSync(path.join(tmp, 'variants', m, 'parity.json')), `no ${m} export`);
    if (existsSync(path.join(repoRoot, 'node_modules', 'onnxruntime-node'))) {
      assert.equal((out.match(/"greedy_ids_equal": true/g) ?? []).length, 4, 'the exports do not match PyTorch');
    }
    assert.deepEqual(shipped.map(digest), before, 'the smoke run changed the shipped model or a test fixture');
    console.log(
      `# Round-Trip smoke run: data ${((t1 - t0) / 1000).toFixed(1)} s, recipe ${((Date.now() - t1) / 1000).toFixed(1)} s`,
    );
  },
);

function digest(file: string): string {
  return existsSync(file) ? createHash('sha256').update(readFileSync(file)).digest('hex') : 'missing';
}

// Recipes write under their own folders. An export of the summarizer anywhere but
// models/summarize keeps its parity fixture beside it (test_export_paths.py); the known-word list's
// counting and manifest entry (test_wordlist.py).
test(
  "a summarizer export outside the shipped folder leaves the tests' fixture alone, and the known-word list is counted as the guard counts (models/train/tests)",
  { skip, timeout: 120_000 },
  () => {
    pythonTests('test_export_paths.py', 2, 60_000);
    pythonTests('test_wordlist.py', 3, 60_000);
  },
);

// The summarizer's training data: CNN's "NEW:" off the fine-tuning targets only, gap-sentence
// pairs (PEGASUS) from the news training articles, a topic word list that is the same in every run.
test(
  'the summarizer\'s training data: no "NEW:" in the fine-tuning targets, gap sentences out of their text, one topic word list (models/train/tests/test_summarize_data.py)',
  { skip, timeout: 120_000 },
  () => {
    pythonTests('test_summarize_data.py', 4, 60_000);
  },
);
