/**
 * Each mode says what it is: the built-in abstractive summary, and a round-trip that kept little of
 * a general paragraph, carry the experimental note with the cards' numbers into the result, the
 * panel's view and the CLI's help; the extractive summary and a story's round-trip do not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { EXPERIMENTAL } from '../../extension/engine/systems/experimental';
import type { RunContext } from '../../extension/engine/systems/context';
import { RoundTripSystem } from '../../extension/engine/systems/roundtrip';
import { SummarizeSystem } from '../../extension/engine/systems/summarize';
import { modelDir } from '../../extension/engine/systems/registry';
import { roundTripView, summarizeView } from '../../extension/panelViews';
import { RoundTripRequest, RoundTripResult, SummarizeRequest, SummarizeResult } from '../../extension/protocol';
import { modelsDir, repoRoot } from './helpers';

const quiet = { device: 'cpu' as const, threads: 1, log: () => {} };
const noop: RunContext = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };
const NEWS =
  'The council met on Tuesday to discuss the new bridge over the river. Residents said the old bridge was unsafe and that repairs had been delayed for years. The council agreed to spend more money on roads next year.';

test('the abstractive summary says it is experimental, with its numbers, in the result and the panel; the extractive one does not', async () => {
  const system = await SummarizeSystem.load(modelDir(modelsDir, 'summarize'), quiet);
  const run = async (mode: 'abstractive' | 'extractive') =>
    SummarizeResult.parse(await system.run(SummarizeRequest.parse({ op: 'summarize', text: NEWS, mode }), noop));
  const abstractive = await run('abstractive');
  assert.equal(abstractive.experimental, EXPERIMENTAL.abstractiveSummary.note);
  assert.match(abstractive.experimental ?? '', /Experimental.*ROUGE-1 23\.9.*31\.6/);
  assert.equal(summarizeView(abstractive).experimental, abstractive.experimental);
  const extractive = await run('extractive');
  assert.equal(extractive.experimental, undefined);
  assert.equal(summarizeView(extractive).experimental, undefined);
  await system.dispose();
});

test('a round-trip that kept little of a news paragraph says it is experimental outside stories, with its own ROUGE-1', async () => {
  const system = await RoundTripSystem.load(modelDir(modelsDir, 'roundtrip'), quiet);
  const r = RoundTripResult.parse(await system.run(RoundTripRequest.parse({ op: 'roundtrip', text: NEWS }), noop));
  if (r.scores.rouge1.f1 < 0.3) {
    assert.ok(r.experimental?.startsWith(EXPERIMENTAL.roundTrip.note), r.experimental);
    assert.match(r.experimental ?? '', new RegExp(`This one: ROUGE-1 ${r.scores.rouge1.f1.toFixed(2)}`));
    assert.equal(roundTripView(r).experimental, r.experimental);
  } else assert.equal(r.experimental, undefined, `ROUGE-1 ${r.scores.rouge1.f1}: no label`);
  await system.dispose();
});

test("the CLI's help labels the abstractive mode and Round-Trip experimental, with their numbers", () => {
  const help = (cmd: string) =>
    spawnSync(process.execPath, [path.join(repoRoot, 'dist', 'cli.js'), cmd, '--help'], { encoding: 'utf8' }).stdout;
  assert.ok(help('summarize').replace(/\s+/g, ' ').includes(EXPERIMENTAL.abstractiveSummary.short));
  assert.match(help('roundtrip').replace(/\s+/g, ' '), /Experimental outside simple stories \(ROUGE-1 0\.27/);
});
