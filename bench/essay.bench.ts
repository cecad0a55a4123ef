/**
 * Expand Topic Words into Essay (PC-SAN) benchmark on five topic words: bench/modelBench.ts says
 * what is measured (the command's path is the constrained beam search it runs by default).
 * Prints numbers; asserts nothing.
 *   npm run bench            (all benches, tables in bench/results/)
 *   node dist/bench/essay.bench.js         (this one; THREADS, MODEL_DIR, RUNS, GREEDY_TOKENS)
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { benchModel } from './modelBench';
import { EssaySystem } from '../extension/engine/systems/essay';

const TOPICS = 'bee, swallow, geese, flower, frog';

void benchModel({
  system: 'essay',
  input: `topics "${TOPICS}"`,
  async load(dir, threads) {
    const s = await EssaySystem.load(dir, { device: 'cpu', threads, log: () => {} });
    const manifest = JSON.parse(readFileSync(path.join(dir, 'model.json'), 'utf8'));
    const V = manifest.architecture.vocabSize as number;
    return {
      name: s.name,
      defaultBeam: manifest.decoding.beamSize,
      decoderLayers: manifest.architecture.decoderLayers,
      dModel: manifest.architecture.dModel,
      run: async (beam, ctx) => (await s.run({ op: 'essay', topics: TOPICS, decoding: { beamSize: beam } }, ctx)).stats,
      input() {
        const { ids, wordIds } = s.topicIds(TOPICS);
        // The peer's input_ids carry each subword's word-vector index too (export_peer.py).
        return {
          decoder: () => s.decoderFor(ids, wordIds),
          peerInput: ids.map((id, i) => id + V * wordIds[i]),
          memoryPositions: ids.length,
        };
      },
    };
  },
});
