// What every exported story folder must reproduce from PyTorch (its parity fixture, written by
// export_story.py): the first step's log-probabilities, the greedy story through the incremental
// state, each step's fusion gates, and the premise model's first step and greedy premise.
import assert from 'node:assert/strict';
import { greedy } from '../../extension/engine/decode/sampling';
import type { StorySystem } from '../../extension/engine/systems/story';

export interface StoryParity {
  prompt: string;
  input_ids: number[];
  first_log_probs_top: number[];
  first_log_probs_values: number[];
  greedy_ids: number[];
  greedy_gates: [number, number][] | null;
  premise: { first_log_probs_top: number[]; first_log_probs_values: number[]; greedy_ids: number[] };
}

interface StoryManifest {
  specialTokens: { bos: number; eos: number };
  architecture: { premise: { endOfPromptId: number } };
}

/** The fixture's greedy ids end with </s> when PyTorch's greedy text ended within its steps. */
const withEnd = (tokens: number[], ended: boolean, eos: number) => (ended ? [...tokens, eos] : tokens);

export async function assertStoryParity(s: StorySystem, parity: StoryParity, manifest: StoryManifest): Promise<void> {
  const { bos: BOS, eos: EOS } = manifest.specialTokens;
  const { model, start, gates } = await s.storyModel(parity.input_ids);
  const first = await model.step([BOS], start);
  parity.first_log_probs_top.forEach((id, i) =>
    assert.ok(
      Math.abs(first.logProbs[id] - parity.first_log_probs_values[i]) < 1e-3,
      `token ${id}: ${first.logProbs[id]} vs ${parity.first_log_probs_values[i]}`,
    ),
  );
  // Greedy through the incremental state (every present_* fed back as past_*) gives PyTorch's tokens.
  const fresh = await s.storyModel(parity.input_ids);
  const g = await greedy(fresh.model, fresh.start, { bos: BOS, eos: EOS, maxLength: parity.greedy_ids.length });
  assert.deepEqual(withEnd(g.tokens, !g.hitMaxLength, EOS), parity.greedy_ids);
  assert.ok(parity.greedy_gates, 'a fusion model: the fixture has gates');
  assert.equal(gates.length, 1, 'one gate pair per step');
  assert.equal(fresh.gates.length, parity.greedy_gates.length);
  fresh.gates.forEach((gate, t) => {
    assert.ok(Math.abs(gate.trained - parity.greedy_gates![t][0]) < 1e-4, `trained gate at step ${t}`);
    assert.ok(Math.abs(gate.pretrained - parity.greedy_gates![t][1]) < 1e-4, `pretrained gate at step ${t}`);
  });
}

export async function assertPremiseParity(s: StorySystem, parity: StoryParity, manifest: StoryManifest): Promise<void> {
  const { model, start } = s.premiseModel();
  const first = await model.step([manifest.specialTokens.bos], start);
  parity.premise.first_log_probs_top.forEach((id, i) =>
    assert.ok(Math.abs(first.logProbs[id] - parity.premise.first_log_probs_values[i]) < 1e-3, `token ${id}`),
  );
  const again = s.premiseModel();
  const g = await greedy(again.model, again.start, {
    bos: manifest.specialTokens.bos,
    eos: manifest.architecture.premise.endOfPromptId,
    maxLength: parity.premise.greedy_ids.length,
  });
  assert.deepEqual(
    withEnd(g.tokens, !g.hitMaxLength, manifest.architecture.premise.endOfPromptId),
    parity.premise.greedy_ids,
  );
}
