import { test } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadModelFolder } from '../../extension/engine/runtime/manifest';
import { SummarizeSystem } from '../../extension/engine/systems/summarize';
import { modelsDir } from './helpers';

const shipped = path.join(modelsDir, 'summarize');

async function copyOfShippedModel(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'draftsmith-model-'));
  for (const f of await fs.readdir(shipped)) await fs.copyFile(path.join(shipped, f), path.join(dir, f));
  return dir;
}

const quiet = { device: 'cpu' as const, threads: 1, log: () => {} };

test('the shipped summarize model folder is valid', async () => {
  const folder = await loadModelFolder(shipped, 'summarize');
  assert.equal(folder.manifest.system, 'summarize');
});

test('a folder without model.json is reported with the path it looked for', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'draftsmith-empty-'));
  await assert.rejects(loadModelFolder(dir, 'summarize'), (e: Error) => e.message.includes(path.join(dir, 'model.json')));
});

test('a manifest that is not JSON, or misses a field, names the file and the field', async () => {
  const dir = await copyOfShippedModel();
  await fs.writeFile(path.join(dir, 'model.json'), '{ "schemaVersion": 1,');
  await assert.rejects(loadModelFolder(dir, 'summarize'), /model\.json is not valid JSON/);
  const good = JSON.parse(await fs.readFile(path.join(shipped, 'model.json'), 'utf8'));
  delete good.specialTokens;
  await fs.writeFile(path.join(dir, 'model.json'), JSON.stringify(good));
  await assert.rejects(loadModelFolder(dir, 'summarize'), /model\.json: specialTokens/);
});

test('a missing model file is named', async () => {
  const dir = await copyOfShippedModel();
  await fs.rm(path.join(dir, 'decoder.onnx'));
  await assert.rejects(loadModelFolder(dir, 'summarize'), (e: Error) => e.message.includes('decoder.onnx') && /missing/.test(e.message));
});

test('a truncated (corrupt) model file is caught before onnxruntime sees it', async () => {
  const dir = await copyOfShippedModel();
  const f = path.join(dir, 'encoder.onnx');
  const buf = await fs.readFile(f);
  await fs.writeFile(f, buf.subarray(0, buf.length >> 1));
  await assert.rejects(SummarizeSystem.load(dir, quiet), (e: Error) => e.message.includes('encoder.onnx') && /corrupt/.test(e.message));
});

test('a folder for another system is refused', async () => {
  const dir = await copyOfShippedModel();
  const m = JSON.parse(await fs.readFile(path.join(dir, 'model.json'), 'utf8'));
  m.system = 'story';
  await fs.writeFile(path.join(dir, 'model.json'), JSON.stringify(m));
  await assert.rejects(loadModelFolder(dir, 'summarize'), /"story" model, not "summarize"/);
});

test('a manifest cannot point outside its folder', async () => {
  const dir = await copyOfShippedModel();
  const m = JSON.parse(await fs.readFile(path.join(dir, 'model.json'), 'utf8'));
  m.files.encoder = '../../etc/passwd';
  await fs.writeFile(path.join(dir, 'model.json'), JSON.stringify(m));
  await assert.rejects(loadModelFolder(dir, 'summarize'), /outside the model folder/);
});
