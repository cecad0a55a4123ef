// Round-Trip model folders (model.json written by export_roundtrip.py): the shipped one loads; broken
// ones are refused before decoding, with a message that names the file and what is wrong; the engine
// finds a variant's folder by the draftsmith.roundtrip.variant setting's name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Engine } from '../../extension/engine/engine';
import { EngineError } from '../../extension/engine/errors';
import { loadModelFolder } from '../../extension/engine/runtime/manifest';
import { RoundTripSystem } from '../../extension/engine/systems/roundtrip';
import { modelDir } from '../../extension/engine/systems/registry';
import { badModelNaming, editManifest, modelsDir, repoRoot, tempDir } from './helpers';

const quiet = { device: 'cpu' as const, threads: 1, log: () => {} };
const shipped = modelDir(modelsDir, 'roundtrip');
const testModel = (m: 'standard' | 'hier') => path.join(repoRoot, 'test', 'fixtures', 'roundtrip-models', m);

async function copyOf(from: string, into?: string): Promise<string> {
  const dir = into ?? tempDir('roundtrip-model');
  await fs.mkdir(dir, { recursive: true });
  for (const f of await fs.readdir(from)) await fs.copyFile(path.join(from, f), path.join(dir, f));
  return dir;
}

test('the shipped round-trip folder is valid, and every file it names has a matching sha256', async () => {
  const folder = await loadModelFolder(shipped, 'roundtrip');
  assert.match(folder.manifest.architecture.type, /^roundtrip-(standard|hier|hier-attn)$/);
  for (const name of Object.values(folder.manifest.files))
    assert.match(folder.manifest.sha256[name] ?? '', /^[0-9a-f]{64}$/);
  // What the decoding rule needs from the manifest: the 1.5x ratio and the input limits.
  assert.equal(folder.manifest.decoding.maxLengthRatio, 1.5);
  assert.ok(folder.manifest.maxInputTokens > 0);
});

test('a hierarchical folder without its sentence-step graph is refused, naming the role', async () => {
  const dir = await copyOf(testModel('hier'));
  await editManifest(dir, (m) => {
    delete m.files.sentenceStep;
  });
  await assert.rejects(
    RoundTripSystem.load(dir, quiet),
    badModelNaming(path.join(dir, 'model.json'), /names no "sentenceStep" file/),
  );
});

test('a folder that claims attention but holds graphs without it is refused, naming the file and the missing input', async () => {
  const dir = await copyOf(testModel('hier'));
  await editManifest(dir, (m) => {
    m.architecture.type = 'roundtrip-hier-attn';
    m.architecture.attention = true;
  });
  await assert.rejects(
    RoundTripSystem.load(dir, quiet),
    badModelNaming(path.join(dir, 'sentence_step.onnx'), /no input "memory"/),
  );
});

test('graphs exported for another hidden size than model.json states are refused, naming the file and the tensor', async () => {
  const dir = await copyOf(testModel('standard'));
  await editManifest(dir, (m) => {
    m.architecture.hidden = 64;
  });
  await assert.rejects(
    RoundTripSystem.load(dir, quiet),
    badModelNaming(
      path.join(dir, 'encoder.onnx'),
      /output "h" has shape \[2, \S+, 8\]; the engine needs float32 \[2, \?, 64\]/,
    ),
  );
});

test('a manifest whose attention flag contradicts its model type is refused, naming the field', async () => {
  const dir = await copyOf(testModel('hier'));
  await editManifest(dir, (m) => {
    m.architecture.attention = true;
  });
  await assert.rejects(loadModelFolder(dir, 'roundtrip'), /model\.json: architecture\.attention/);
});

test('a manifest without the input limit is refused, naming the field', async () => {
  const dir = await copyOf(testModel('standard'));
  await editManifest(dir, (m) => {
    delete m.maxInputTokens;
  });
  await assert.rejects(loadModelFolder(dir, 'roundtrip'), /model\.json: maxInputTokens/);
});

test('a truncated word-step graph is caught by its hash, by name', async () => {
  const dir = await copyOf(testModel('standard'));
  const f = path.join(dir, 'word_step.onnx');
  const buf = await fs.readFile(f);
  await fs.writeFile(f, buf.subarray(0, buf.length >> 1));
  await assert.rejects(RoundTripSystem.load(dir, quiet), badModelNaming(f, /corrupt/));
});

test('a folder of another model type than the variant asked for is refused', async () => {
  await assert.rejects(
    RoundTripSystem.load(testModel('hier'), quiet, 'standard'),
    /describes a roundtrip-hier model, not roundtrip-standard/,
  );
});

test('the engine reads <models>/roundtrip-<variant> for a variant, and names the folder it lacks', async () => {
  const models = tempDir('models');
  await copyOf(testModel('standard'), path.join(models, 'roundtrip-standard'));
  const engine = new Engine({ modelsDir: models, device: 'cpu', threads: 1 }, () => {});
  const r = await engine.run({ op: 'roundtrip', text: 'The river rose. The farmers moved.', variant: 'standard' });
  assert.equal(r.architecture, 'standard');
  await assert.rejects(
    engine.run({ op: 'roundtrip', text: 'The river rose.', variant: 'hier' }),
    (e: unknown) =>
      e instanceof EngineError &&
      e.code === 'bad-model' &&
      e.message.includes(path.join(models, 'roundtrip-hier', 'model.json')),
  );
});
