/**
 * Summarize (TAAS) benchmark on samples/sample.md (356 words; the model reads its first 320 tokens):
 * bench/modelBench.ts says what is measured. Prints numbers; asserts nothing.
 *   npm run bench            (all benches, tables in bench/results/)
 *   node dist/bench/summarize.bench.js     (this one; THREADS, MODEL_DIR, RUNS, GREEDY_TOKENS)
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { benchModel, root } from './modelBench';
import { SummarizeSystem } from '../extension/engine/systems/summarize';

const text = readFileSync(path.join(root, 'samples', 'sample.md'), 'utf8');

void benchModel({
  system: 'summarize',
  input: 'samples/sample.md, 356 words',
  async load(dir, threads) {
    const s = await SummarizeSystem.load(dir, { device: 'cpu', threads, log: () => {} });
    const manifest = JSON.parse(readFileSync(path.join(dir, 'model.json'), 'utf8'));
    return {
      name: s.name,
      defaultBeam: manifest.decoding.beamSize,
      decoderLayers: manifest.architecture.decoderLayers,
      dModel: manifest.architecture.dModel,
      run: async (beam, ctx) => (await s.run({ op: 'summarize', text, decoding: { beamSize: beam } }, ctx)).stats,
      input() {
        const ids = s.sourceIds(text);
        // The peer's input_ids: a placeholder for the topic slot, then the source (export_peer.py).
        return { decoder: () => s.decoderFor(ids), peerInput: [0, ...ids], memoryPositions: ids.length + 1 };
      },
    };
  },
});
