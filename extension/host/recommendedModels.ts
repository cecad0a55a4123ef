/**
 * The models Draftsmith: Choose Model… offers for each command, and the commands that
 * have a model setting. A command that gains a draftsmith.<command>.model setting (summarize,
 * essay) is one more line in MODEL_COMMANDS, with its list of recommended Hub models.
 *
 * Sizes are estimates, not read from the Hub (this project's machines have no network): the
 * parameter count at one byte per weight (onnx/*_quantized.onnx, which the engine downloads first)
 * plus the tokenizer files. Re-check them against each repository's file listing when this list
 * changes. Licences are the models' own (their model cards).
 */
import { MODEL_SETTINGS } from '../modelChoice';
import type { ModelSettingKey } from './settings';

export interface RecommendedModel {
  /** The Hub id (owner/name). */
  id: string;
  /** What it is, in a few words. */
  what: string;
  /** The approximate download, in MB (see above). */
  approxMB: number;
  /** The repository's licence (SPDX id). */
  licence: string;
}

/** Causal language models in transformers.js's layout for Continue Story and Write a Premise. */
export const STORY_MODELS: readonly RecommendedModel[] = [
  {
    id: 'Xenova/distilgpt2',
    what: 'DistilGPT2 (82 M parameters), GPT-2 distilled: general English web text, faster than GPT-2',
    approxMB: 85,
    licence: 'Apache-2.0',
  },
  {
    id: 'Xenova/gpt2',
    what: "GPT-2 small (124 M parameters), OpenAI's: general English web text",
    approxMB: 125,
    licence: 'MIT',
  },
];

/** Encoder-decoder summarizers in transformers.js's layout for Summarize Document. */
export const SUMMARIZE_MODELS: readonly RecommendedModel[] = [
  {
    id: 'Xenova/distilbart-cnn-6-6',
    what: 'DistilBART (230 M parameters) fine-tuned on CNN/DailyMail news: the backbone TAAS builds on',
    approxMB: 240,
    licence: 'Apache-2.0',
  },
];

/** Causal language models that follow an instruction, for Expand Topic Words into Essay. */
export const ESSAY_MODELS: readonly RecommendedModel[] = [
  {
    id: 'HuggingFaceTB/SmolLM2-135M-Instruct',
    what: 'SmolLM2 Instruct (135 M parameters): a small instruction-tuned model',
    approxMB: 140,
    licence: 'Apache-2.0',
  },
];

export interface ModelCommand {
  /** The setting under draftsmith. */
  key: ModelSettingKey;
  /** The commands it is for, as the first quick pick lists them. */
  label: string;
  /** The built-in model in a few words (the "Built-in model" item's detail). */
  builtIn: string;
  recommended: readonly RecommendedModel[];
}

export const MODEL_COMMANDS: readonly ModelCommand[] = [
  {
    key: 'summarize.model',
    label: MODEL_SETTINGS.summarize.commands,
    builtIn:
      "Draftsmith's own TAAS summarizer (topic-aware attention, Zheng et al. 2020), trained on news; extractive or abstractive; nothing to download",
    recommended: SUMMARIZE_MODELS,
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
      "Draftsmith's own story models (a premise model and a fused convolutional seq2seq, Fan et al. 2018), trained on short simple stories; nothing to download",
    recommended: STORY_MODELS,
  },
];
