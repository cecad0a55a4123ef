/**
 * A row known only by its best candidates (llama.cpp's top-k): the tokens a strategy takes from them
 * are the tokens it takes from the whole row after the same bans and guard, or the candidates say they
 * cannot tell.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { maskDisallowed, topK, topKOfRanked } from '../../extension/engine/decode/constraints';
import { seededRandom } from '../../extension/engine/decode/sampling';

const V = 400;

function wholeRow(row: Float32Array, k: number, banned: Set<number>, allowed?: (t: number) => boolean): number[] {
  const r = row.slice();
  for (const t of banned) r[t] = -Infinity;
  if (allowed) maskDisallowed(r, k, allowed);
  return topK(r, k);
}

test('the best allowed tokens from the ranked candidates are those of the whole row, under bans and guards', () => {
  const random = seededRandom(11);
  let answered = 0;
  let declined = 0;
  for (let trial = 0; trial < 400; trial++) {
    // Peaked or flat rows, so that the guard's margin and the candidates' end are both reached.
    const spread = trial % 2 ? 12 : 2;
    const row = Float32Array.from({ length: V }, () => Math.log(random()) * spread);
    const k = 1 + Math.floor(random() * 12);
    const banned = new Set(Array.from({ length: 10 }, () => Math.floor(random() * V)));
    const every = 1 + Math.floor(random() * 6);
    const allowed = trial % 3 === 0 ? undefined : (t: number) => t % every === 0;
    const count = 16 + Math.floor(random() * 100);
    const ranked = topK(row, count);
    const values = ranked.map((t) => row[t]);
    const at = topKOfRanked(ranked, values, ranked.length, k, banned, allowed, false);
    if (!at) {
      declined++;
      continue;
    }
    answered++;
    assert.deepEqual(
      at.map((i) => ranked[i]),
      wholeRow(row, k, banned, allowed),
      `trial ${trial}`,
    );
  }
  assert.ok(answered > 100 && declined > 10, `${answered} answered, ${declined} declined`);
});

test('candidates that are the whole row always answer, as the whole row does', () => {
  const random = seededRandom(3);
  for (let trial = 0; trial < 100; trial++) {
    const row = Float32Array.from({ length: 40 }, () => Math.log(random()) * 3);
    const banned = new Set([1, 2, 3]);
    const allowed = trial % 2 ? (t: number) => t % 7 === 0 : () => false;
    const ranked = topK(row, 40);
    const at = topKOfRanked(
      ranked,
      ranked.map((t) => row[t]),
      40,
      8,
      banned,
      allowed,
      true,
    );
    assert.deepEqual(
      at?.map((i) => ranked[i]),
      wholeRow(row, 8, banned, allowed),
      `trial ${trial}`,
    );
  }
});
