/** A Hub model's generation_config.json is its default; a setting the user set overrides it, field by field. */
import assert from 'node:assert/strict';
import test from 'node:test';
import {
  forcedFirstToken,
  mergeBeamDefaults,
  mergeSamplingDefaults,
  modelBeamDefaults,
  modelSamplingDefaults,
  taskPrefix,
} from '../../extension/engine/hub/generationDefaults';

// sshleifer/distilbart-cnn-12-6's generation settings (its config.json carries them, as generation_config.json).
const DISTILBART = {
  num_beams: 4,
  min_length: 56,
  max_length: 142,
  length_penalty: 2.0,
  no_repeat_ngram_size: 3,
  early_stopping: true,
  forced_bos_token_id: 0,
  decoder_start_token_id: 2,
};
const OURS = {
  strategy: 'beam' as const,
  beamSize: 4,
  maxLength: 80,
  minLength: 12,
  lengthPenalty: 1,
  noRepeatNgramSize: 3,
};

test("distilbart-cnn's summaries run with its own 4 beams, 56-142 tokens, length penalty 2 and forced <s>", () => {
  const forced = forcedFirstToken(DISTILBART, {});
  assert.equal(forced, 0);
  const { defaults, ran } = mergeBeamDefaults(undefined, modelBeamDefaults(DISTILBART, forced), OURS);
  // Hugging Face counts the decoder start and the forced token in its lengths; our loops count what follows.
  assert.deepEqual(
    { b: defaults.beamSize, min: defaults.minLength, max: defaults.maxLength, lp: defaults.lengthPenalty },
    { b: 4, min: 54, max: 140, lp: 2 },
  );
  assert.ok(ran.every((r) => r.from === 'model'));
});

test("a setting the user set overrides the model's value, and the result says whose each value was", () => {
  const { defaults, ran } = mergeBeamDefaults(
    { maxLength: 60 },
    modelBeamDefaults({ num_beams: 2, max_length: 200 }, undefined),
    OURS,
  );
  assert.equal(defaults.maxLength, 60);
  assert.equal(defaults.beamSize, 2);
  assert.equal(defaults.lengthPenalty, 1);
  const from = Object.fromEntries(ran.map((r) => [r.name, r.from]));
  assert.deepEqual(from, {
    beamSize: 'model',
    minLength: 'draftsmith',
    maxLength: 'setting',
    lengthPenalty: 'draftsmith',
    noRepeatNgramSize: 'draftsmith',
  });
});

test("T5's task prefix is read before the text; a model without one reads the text alone", () => {
  assert.equal(
    taskPrefix({ task_specific_params: { summarization: { prefix: 'summarize: ' } } }, 'summarization'),
    'summarize: ',
  );
  assert.equal(taskPrefix({ model_type: 'bart' }, 'summarization'), '');
});

test("Qwen2.5-Instruct's own sampling (temperature 0.7, top_k 20) is a causal model's default; a set k wins; top_k 0 is no k", () => {
  const qwen = { do_sample: true, temperature: 0.7, top_p: 0.8, top_k: 20, repetition_penalty: 1.05 };
  assert.deepEqual(modelSamplingDefaults(qwen), { temperature: 0.7, topK: 20 });
  assert.deepEqual(modelSamplingDefaults({ top_k: 0, temperature: 0 }), {});
  assert.deepEqual(modelSamplingDefaults(null), {});
  const { sampling, ran } = mergeSamplingDefaults({ topK: 5 }, modelSamplingDefaults(qwen), {
    topK: 10,
    temperature: 0.8,
  });
  assert.deepEqual(sampling, { topK: 5, temperature: 0.7 });
  assert.deepEqual(
    ran.map((r) => `${r.name} ${r.from}`),
    ['topK setting', 'temperature model'],
  );
});
