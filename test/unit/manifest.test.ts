import { test } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { loadModelFolder } from '../../extension/engine/runtime/manifest';
import { EssaySystem } from '../../extension/engine/systems/essay';
import { StorySystem } from '../../extension/engine/systems/story';
import { SummarizeSystem } from '../../extension/engine/systems/summarize';
import { badModelNaming, editManifest, modelsDir, rehash, tempDir } from './helpers';

const shipped = path.join(modelsDir, 'summarize');

async function copyOfShippedModel(system: 'summarize' | 'essay' | 'story' = 'summarize'): Promise<string> {
  const from = path.join(modelsDir, system);
  const dir = tempDir(`${system}-model`);
  for (const f of await fs.readdir(from)) await fs.copyFile(path.join(from, f), path.join(dir, f));
  return dir;
}

const quiet = { device: 'cpu' as const, threads: 1, log: () => {} };

test('the shipped summarize model folder is valid', async () => {
  const folder = await loadModelFolder(shipped, 'summarize');
  assert.equal(folder.manifest.system, 'summarize');
});

test('a folder without model.json is reported with the path it looked for', async () => {
  const dir = tempDir('empty');
  await assert.rejects(loadModelFolder(dir, 'summarize'), (e: Error) =>
    e.message.includes(path.join(dir, 'model.json')),
  );
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
  await assert.rejects(
    loadModelFolder(dir, 'summarize'),
    (e: Error) => e.message.includes('decoder.onnx') && /missing/.test(e.message),
  );
});

test('a truncated (corrupt) model file is caught before onnxruntime sees it', async () => {
  const dir = await copyOfShippedModel();
  const f = path.join(dir, 'encoder.onnx');
  const buf = await fs.readFile(f);
  await fs.writeFile(f, buf.subarray(0, buf.length >> 1));
  await assert.rejects(
    SummarizeSystem.load(dir, quiet),
    (e: Error) => e.message.includes('encoder.onnx') && /corrupt/.test(e.message),
  );
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

// ---- every file hashed; the essay folder; graphs that do not fit the manifest ---------------------

for (const system of ['summarize', 'essay', 'story'] as const) {
  test(`the shipped ${system} manifest lists a sha256 for every file it names, and they match`, async () => {
    const dir = path.join(modelsDir, system);
    const m = JSON.parse(await fs.readFile(path.join(dir, 'model.json'), 'utf8'));
    for (const name of Object.values<string>(m.files))
      assert.match(m.sha256[name] ?? '', /^[0-9a-f]{64}$/, `${system}/${name} has no sha256`);
    assert.equal((await loadModelFolder(dir, system)).manifest.system, system);
  });
}

test('a model file without a sha256 in model.json is refused, naming the file', async () => {
  const dir = await copyOfShippedModel('essay');
  await editManifest(dir, (m) => {
    delete m.sha256['words.json'];
  });
  await assert.rejects(loadModelFolder(dir, 'essay'), badModelNaming('words.json', /no hash/));
});

test('an essay file whose bytes changed (same size) is reported as corrupt, by name', async () => {
  const dir = await copyOfShippedModel('essay');
  const f = path.join(dir, 'words.json');
  const buf = await fs.readFile(f);
  buf[10] = buf[10] === 0x61 ? 0x62 : 0x61;
  await fs.writeFile(f, buf);
  await assert.rejects(EssaySystem.load(dir, quiet), badModelNaming(f, /corrupt/));
});

test('a truncated essay decoder is caught by its hash, by name', async () => {
  const dir = await copyOfShippedModel('essay');
  const f = path.join(dir, 'decoder.onnx');
  const buf = await fs.readFile(f);
  await fs.writeFile(f, buf.subarray(0, buf.length - 1000));
  await assert.rejects(EssaySystem.load(dir, quiet), badModelNaming(f, /corrupt/));
});

test('a truncated ONNX file whose hash was recorded anyway still gives an error that names it', async () => {
  const dir = await copyOfShippedModel('essay');
  const f = path.join(dir, 'encoder.onnx');
  const buf = await fs.readFile(f);
  await fs.writeFile(f, buf.subarray(0, buf.length >> 1));
  await rehash(dir, 'encoder.onnx');
  await assert.rejects(EssaySystem.load(dir, quiet), badModelNaming(f, /Cannot load/));
});

test("a decoder with the wrong inputs (the summarizer's, in the essay folder) names the file and the missing input", async () => {
  const dir = await copyOfShippedModel('essay');
  await fs.copyFile(path.join(shipped, 'decoder.onnx'), path.join(dir, 'decoder.onnx'));
  await rehash(dir, 'decoder.onnx');
  await assert.rejects(
    EssaySystem.load(dir, quiet),
    badModelNaming(path.join(dir, 'decoder.onnx'), /no input "past_context_sum"/),
  );
});

test('graphs exported for another size than model.json states are refused, naming the file and the tensor', async () => {
  const essay = await copyOfShippedModel('essay');
  await editManifest(essay, (m) => {
    m.architecture.dModel = 320;
  });
  await assert.rejects(
    EssaySystem.load(essay, quiet),
    badModelNaming(
      path.join(essay, 'encoder.onnx'),
      /output "cross_key_values" has shape \[3, 2, batch, 4, source, 64\]; the engine needs float32 \[3, 2, \?, 4, \?, 80\]/,
    ),
  );

  const summarize = await copyOfShippedModel('summarize');
  await editManifest(summarize, (m) => {
    m.architecture.vocabSize = 9000;
  });
  await assert.rejects(
    SummarizeSystem.load(summarize, quiet),
    badModelNaming(
      path.join(summarize, 'decoder.onnx'),
      /output "log_probs" has shape \[batch, 8000\]; the engine needs float32 \[\?, 9000\]/,
    ),
  );
});

// ---- the story folder: three step graphs and the state the manifest describes ----------------------

test('a story folder whose premise graph is the story decoder is refused, naming the file and what it would need', async () => {
  const dir = await copyOfShippedModel('story');
  await fs.copyFile(path.join(dir, 'decoder.onnx'), path.join(dir, 'premise.onnx'));
  await rehash(dir, 'premise.onnx');
  await assert.rejects(
    StorySystem.load(dir, quiet),
    badModelNaming(
      path.join(dir, 'premise.onnx'),
      /input "past_key_values" has shape \[4, 2, batch, 4, past, 32\]; the engine needs float32 \[6, 2, \?, 4, \?, 64\]/,
    ),
  );
});

test('a story state the graphs do not have (another width in model.json) is refused, naming the graph and the tensor', async () => {
  const dir = await copyOfShippedModel('story');
  await editManifest(dir, (m) => {
    m.architecture.state[0].shape[3] = 256;
  });
  await assert.rejects(
    StorySystem.load(dir, quiet),
    badModelNaming(
      path.join(dir, 'decoder.onnx'),
      /input "past_conv" has shape \[4, batch, 3, 192\]; the engine needs float32 \[4, \?, 3, 256\]/,
    ),
  );
});

test("a fusion story model without the pretrained model's shape, or with a premise model of another vocabulary, is refused", async () => {
  const dir = await copyOfShippedModel('story');
  await editManifest(dir, (m) => {
    delete m.architecture.pretrained;
  });
  await assert.rejects(
    StorySystem.load(dir, quiet),
    badModelNaming('model.json', /fusion model needs architecture.pretrained/),
  );
  const other = await copyOfShippedModel('story');
  await editManifest(other, (m) => {
    m.architecture.premise.vocabSize = 9000;
  });
  await assert.rejects(
    StorySystem.load(other, quiet),
    badModelNaming('model.json', /premise model's vocabulary \(9000\)/),
  );
});
