/**
 * Round-Trip benchmark: model load time; then Round-Trip Paragraph on each paragraph of
 * samples/sample.md (the command's own path: sentence split, tokenize, encode, greedy decode, scores),
 * in encode ms per paragraph and decode ms per token, against the floor (the time inside
 * session.run: the encoder, one sentence step per output sentence, one word step per token).
 * Prints numbers; asserts nothing.
 *   npm run bench            (all benches, tables in bench/results/)
 *   node dist/bench/roundtrip.bench.js     (this one; THREADS, MODEL_DIR)
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { RoundTripSystem } from '../extension/engine/systems/roundtrip';
import { sessionTime, spread, spreadFine } from './sessionTimer';

const root = path.resolve(__dirname, '..', '..');
const paragraphs = readFileSync(path.join(root, 'samples', 'sample.md'), 'utf8')
  .split(/\n\s*\n/).map((p) => p.trim()).filter((p) => p.length > 0 && !p.startsWith('#'));

(async () => {
  const threads = Number(process.env.THREADS ?? 1);
  const dir = path.resolve(process.env.MODEL_DIR ?? path.join(root, 'models', 'roundtrip'));
  const t0 = performance.now();
  const system = await RoundTripSystem.load(dir, { device: 'cpu', threads, log: () => {} });
  console.log(`model ${system.name}: load ${(performance.now() - t0).toFixed(0)} ms (threads=${threads})`);
  const context = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };
  const encode: number[] = [];
  const perToken: number[] = [];
  const floorPerToken: number[] = [];
  const whole: number[] = [];
  let tokens = 0;
  let sentences = 0;
  for (const text of paragraphs) {
    sessionTime.reset();
    const t = performance.now();
    const r = await system.run({ op: 'roundtrip', text }, context);
    whole.push(performance.now() - t);
    const n = Math.max(1, r.stats.outputTokens);
    tokens += r.stats.outputTokens;
    sentences += r.output.length;
    encode.push(r.stats.encodeMs);
    perToken.push(r.stats.decodeMs / n);
    // The encoder's own session.run is in encodeMs; what is left is the decoding loop's floor.
    floorPerToken.push((sessionTime.ms - r.stats.encodeMs) / n);
  }
  const loop = spread(perToken);
  const floor = spread(floorPerToken);
  console.log(`roundtrip: ${paragraphs.length} paragraphs of samples/sample.md, ${sentences} sentences and ${tokens} tokens written; ` +
    `encode ms/paragraph ${spreadFine(encode)}; decode ms/token ${spreadFine(perToken)}; ` +
    `floor (session.run) median ${floor.median.toFixed(2)} ms/token: the loop takes ${(loop.median / floor.median).toFixed(2)}x the floor; ` +
    `whole command (split, tokenize, encode, decode, scores) ${spread(whole).text}`);
})();
