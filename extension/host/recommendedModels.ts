/**
 * The models Draftsmith: Choose Model… offers for each command, and the commands that
 * have a model setting. A command that gains a draftsmith.<command>.model setting (summarize,
 * essay) is one more line in MODEL_COMMANDS, with its list of recommended Hub models.
 *
 * Each recommended model is pinned to a revision, and its size is the download at that revision:
 * the files the engine's fileChoice picks on a CPU from the repository's listing (the graphs, the
 * tokenizer and config files), summed. The listings are kept in test/fixtures/hub-mirrors (the loopback
 * Hub serves them), and a unit test (recommendedModels.test.ts) checks every number here against
 * them: change a model here, and its listing there.
 *
 * Where those sizes come from: this project's machines have no network, so the listings were read
 * from the Hub's file pages, which round to three significant digits; a few small files whose size
 * at the pinned revision was not found have stand-in sizes (listed in each mirror's _unknown: a few
 * hundred bytes each, invisible in the MB shown). Three pins are commit prefixes (the full commit id
 * was not found); the Hub's API resolves a prefix, and the engine then downloads from the full commit.
 */
import { MODEL_SETTINGS } from '../modelChoice';
import type { ModelSettingKey } from './settings';

export interface RecommendedModel {
  /** The Hub id (owner/name). */
  id: string;
  /** The commit the entry was checked at (the listing in test/fixtures/hub-mirrors/<id>.json). */
  revision: string;
  /** What it is, in a few words. */
  what: string;
  /** The graphs Draftsmith downloads for it on a CPU (fileChoice's choice from that listing). */
  graphs: readonly string[];
  /** Every byte it downloads: the graphs, the tokenizer and the config files. */
  bytes: number;
  /** The repository's licence: an SPDX id, or the licence's own name. */
  licence: string;
}

/** A download size as the picker and the download's progress show it (MB of 10^6 bytes, as the Hub's pages). */
export function downloadSize(bytes: number): string {
  return `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB`;
}

const SMOLLM2_135M: RecommendedModel = {
  id: 'HuggingFaceTB/SmolLM2-135M-Instruct',
  revision: '45dead349c328fe92a861c5162de28c8c86754e1',
  what: 'SmolLM2 Instruct (135 M parameters, Hugging Face): the smallest; quick on any CPU, plain English',
  graphs: ['onnx/model_q4.onnx'],
  bytes: 202_104_753,
  licence: 'Apache-2.0',
};

const SMOLLM2_360M: RecommendedModel = {
  id: 'HuggingFaceTB/SmolLM2-360M-Instruct',
  revision: '6d8b2a3',
  what: 'SmolLM2 Instruct (360 M parameters, Hugging Face): better English than the 135 M, still quick',
  graphs: ['onnx/model_q4.onnx'],
  bytes: 419_104_753,
  licence: 'Apache-2.0',
};

const QWEN25_05B: RecommendedModel = {
  id: 'onnx-community/Qwen2.5-0.5B-Instruct',
  revision: 'cc5cc01',
  what: 'Qwen2.5 Instruct (0.5 B parameters, Alibaba): follows instructions well for its size; many languages',
  graphs: ['onnx/model_q4.onnx'],
  bytes: 793_038_230,
  licence: 'Apache-2.0',
};

const QWEN25_15B: RecommendedModel = {
  id: 'onnx-community/Qwen2.5-1.5B-Instruct',
  revision: '94677ac',
  what: 'Qwen2.5 Instruct (1.5 B parameters, Alibaba): the strongest writer here; slow on a laptop CPU',
  graphs: ['onnx/model_q4.onnx'],
  bytes: 1_797_038_231,
  licence: 'Apache-2.0',
};

const LLAMA32_1B: RecommendedModel = {
  id: 'onnx-community/Llama-3.2-1B-Instruct',
  revision: 'c5b77c42b9a13105f54d55be507e1a65b5b8149b',
  what: "Llama 3.2 Instruct (1.2 B parameters, Meta): fluent English; its licence has Meta's use policy",
  graphs: ['onnx/model_q4.onnx'],
  bytes: 1_669_142_030,
  licence: 'Llama 3.2 Community License',
};

/** Causal language models in transformers.js's layout for Continue Story and Write a Premise. */
export const STORY_MODELS: readonly RecommendedModel[] = [SMOLLM2_135M, SMOLLM2_360M, QWEN25_05B];

/**
 * Summarizers in transformers.js's layout for Summarize Document: encoder-decoders trained on news,
 * and instruct models, which summarize any text through their chat template.
 */
export const SUMMARIZE_MODELS: readonly RecommendedModel[] = [
  {
    id: 'Xenova/distilbart-cnn-6-6',
    revision: '61e7ca622db22891a084d2d39e6bda4b902b370a',
    what: 'DistilBART (230 M parameters) fine-tuned on CNN/DailyMail news: the backbone TAAS builds on',
    graphs: ['onnx/encoder_model_quantized.onnx', 'onnx/decoder_model_merged_quantized.onnx'],
    bytes: 338_113_593,
    licence: 'Apache-2.0',
  },
  {
    id: 'Xenova/distilbart-cnn-12-3',
    revision: '087bc5d236ec22d2e5514e589410c13e03a4644a',
    what: 'DistilBART (255 M parameters, a 12-layer encoder, 3-layer decoder) on CNN/DailyMail: faster decoding',
    graphs: ['onnx/encoder_model_quantized.onnx', 'onnx/decoder_model_merged_quantized.onnx'],
    bytes: 311_113_593,
    licence: 'Apache-2.0',
  },
  SMOLLM2_360M,
  QWEN25_05B,
];

/** Causal language models that follow an instruction, for Expand Topic Words into Essay. */
export const ESSAY_MODELS: readonly RecommendedModel[] = [SMOLLM2_360M, QWEN25_05B, LLAMA32_1B, QWEN25_15B];

export interface ModelCommand {
  /** The setting under draftsmith. */
  key: ModelSettingKey;
  /** The commands it is for, as the first quick pick lists them. */
  label: string;
  /** The built-in model in a few words (the "Built-in model" item's detail). */
  builtIn: string;
  recommended: readonly RecommendedModel[];
  /** Other commands' settings whose model this one runs too (offered first in its list when one is chosen there). */
  shares?: readonly ModelSettingKey[];
}

export const MODEL_COMMANDS: readonly ModelCommand[] = [
  {
    key: 'summarize.model',
    label: MODEL_SETTINGS.summarize.commands,
    builtIn:
      "Draftsmith's own TAAS summarizer (topic-aware attention, Zheng et al. 2020), trained on news; " +
      "extractive or abstractive; nothing to download. An instruct model (one of Rewrite's) writes abstractive " +
      'summaries in its own words',
    recommended: SUMMARIZE_MODELS,
    // The instruct model Rewrite Selection runs (or the essay model it falls back to) summarizes too.
    shares: ['rewrite.model', 'essay.model'],
  },
  {
    key: 'essay.model',
    label: MODEL_SETTINGS.essay.commands,
    builtIn:
      "Draftsmith's own PC-SAN essay model (Lin et al. 2020), every topic word in the essay; nothing to download",
    recommended: ESSAY_MODELS,
  },
  {
    key: 'story.model',
    label: MODEL_SETTINGS.story.commands,
    builtIn:
      "Draftsmith's own story models (a premise model and a fused convolutional seq2seq, Fan et al. 2018), " +
      'trained on short simple stories; nothing to download',
    recommended: STORY_MODELS,
  },
  {
    key: 'rewrite.model',
    label: MODEL_SETTINGS.rewrite.commands,
    builtIn:
      "none of Draftsmith's own models follows an instruction: the essay model when it is an instruct model, " +
      'else Rephrase through Round-Trip only',
    recommended: ESSAY_MODELS,
  },
];
