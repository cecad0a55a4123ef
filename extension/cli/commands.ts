/**
 * The CLI's commands, each described once: its name, a one-line summary, its usage lines, its
 * options (with what each takes and does) and examples. `--help` and `COMMAND --help` (help.ts),
 * the option check (options.ts), the parser's flags (args.ts), the dispatch (cli.ts, one handler per
 * name, checked by the compiler) and docs/cli.md (`npm run docs`) are all derived from this table.
 *
 * Data only, importing only other data (the rewrite presets' list): the parser, the help and the
 * documentation generator read it without loading the engine.
 */
import { EXPERIMENTAL } from '../engine/systems/experimental';
import { DEFAULT_DIALECT, DIALECTS } from '../engine/checks/dialects';
import { DEFAULT_MAX_DOWNLOAD_GB } from '../engine/hub/downloadLimit';
import { REWRITE_PRESET_NAMES, REWRITE_PRESETS } from '../engine/hub/rewritePresets';
import { METRIC_CLIS, METRIC_FLAGS, METRIC_NAMES } from '../engine/eval/metricList';
import type { FlagSpec } from '../engine/eval/metricFlags';

/** What an option takes after its name. */
export type OptionKind =
  /** Nothing: given or not. */
  | 'flag'
  /** One word: a name, a path, one of a list. */
  | 'text'
  | 'integer'
  | 'number'
  /** Every following word up to the next option, as sacreBLEU's `-m bleu chrf`. */
  | 'words';

export interface OptionSpec {
  /** The name without its dashes. */
  readonly name: string;
  readonly kind: OptionKind;
  /** The value as usage shows it: FILE, N, DIR, or the choices (a|b|c). */
  readonly value?: string;
  /** Given more than once, each adds a value. */
  readonly repeatable?: boolean;
  /** A short spelling besides --name (sacreBLEU's -m). */
  readonly short?: string;
  /** The default, when the command has one of its own to state. */
  readonly default?: string;
  readonly description: string;
  /** The smallest and largest number an integer or number option takes (checked before any work). */
  readonly min?: number;
  readonly max?: number;
  /** Former names, still taken for one release with a note on standard error. */
  readonly formerly?: readonly string[];
}

export interface UsageSpec {
  /** What follows "draftsmith ": the command and its arguments. */
  readonly synopsis: string;
  /** What this way of calling it does, beyond the command's summary. */
  readonly note?: string;
}

export interface CommandSpec {
  /** As typed: "summarize", or "eval summarize" for an eval. */
  readonly name: string;
  readonly summary: string;
  readonly usage: readonly UsageSpec[];
  readonly options: readonly OptionSpec[];
  /** Options that exclude each other: each group's options are refused together. */
  readonly exclusive?: readonly (readonly string[])[];
  readonly examples?: readonly { readonly args: string; readonly what: string }[];
}

const flag = (name: string, description: string): OptionSpec => ({ name, kind: 'flag', description });

// ------------------------------------------------------------------ score's metrics, from the metric list

/** Each metric's flags (engine/eval/metricList.ts): options of score. */
const METRIC_OPTIONS: readonly OptionSpec[] = METRIC_FLAGS.map((f) => ({
  name: f.name,
  kind: f.kind,
  ...(f.value !== undefined ? { value: f.value } : {}),
  ...(f.default !== undefined ? { default: f.default } : {}),
  description: f.description,
}));
/** The flags as a synopsis shows them: [--name VALUE]. */
const usageOf = (flags: readonly FlagSpec[]) =>
  flags.map((f) => `[--${f.name}${f.value !== undefined ? ` ${f.value}` : ''}]`).join(' ');
/** The metrics -m names and the flags that go with them (sacreBLEU's workflow). */
const NAMED = METRIC_CLIS.filter((m) => m.cli.scoresNamed).map((m) => m.cli);
/** -m: every metric of the list with -m names, each with its help. */
const METRICS_OPTION: OptionSpec = {
  name: 'metrics',
  kind: 'words',
  short: '-m',
  value: `${METRIC_NAMES.slice(0, 2).join(' ')} ...`,
  description:
    `the metrics, each with its signature: ${METRIC_CLIS.flatMap((m) => m.cli.help ?? []).join('; ')}; default: ` +
    `every metric for one --ref and one --hyp, else ${Object.keys(NAMED[0]?.names ?? {})[0]}`,
};

// ------------------------------------------------------------------ options several commands take

/** FILE, - or the text itself. */
const TEXT: OptionSpec = {
  name: 'text',
  kind: 'text',
  value: 'TEXT',
  description: 'the text itself instead of a FILE (also text that starts with "-" or looks like a file name)',
};
const JSON_RESULT = flag(
  'json',
  'the whole result as JSON on standard output instead of the text, with what the insights panel shows ' +
    '(attention, layer weights, fusion gates, alignment)',
);
const NO_GUARDS = flag(
  'no-guards',
  "the paper's plain decoding, without the decoding guards that are on by default (known words only, no " +
    'tokenizer artefacts such as ".S.", no repeated words)',
);

/** The beam of the commands that decode by beam search (essay, reply). */
const BEAM: OptionSpec = {
  name: 'beam',
  kind: 'integer',
  value: 'N',
  description: "beam width, 1 to 16 (default: the model's)",
  min: 1,
  max: 16,
};

/** Where the models run: every command that loads one. */
const MODELS: OptionSpec = {
  name: 'models',
  kind: 'text',
  value: 'DIR',
  description:
    'a folder with one sub-folder per system (summarize/, essay/, ...), e.g. larger models trained by ' +
    'models/train, instead of the shipped ones',
};
const DEVICE: OptionSpec = {
  name: 'device',
  kind: 'text',
  value: 'auto|cpu|cuda',
  default: 'auto',
  description: 'where the models run: auto is CUDA when onnxruntime has it, else the CPU',
};
const THREADS: OptionSpec = {
  name: 'threads',
  kind: 'integer',
  value: 'N',
  default: '1',
  description: 'CPU threads per model session, 0 to 64 (0: one per core, as onnxruntime chooses)',
  min: 0,
  max: 64,
};
const RUNTIME = [MODELS, DEVICE, THREADS];

/** Draftsmith model folders from a server, and --offline for them and for Hub models. */
const MODEL_SOURCES: OptionSpec[] = [
  {
    name: 'models-url',
    kind: 'text',
    value: 'URL',
    description:
      'model folders exported by models/train under URL (URL/summarize/model.json, ...), downloaded once into ' +
      "$DRAFTSMITH_CACHE, every file checked against its model.json's sha256",
  },
  flag('offline', 'never download: models downloaded before, folders and the shipped models still load'),
];

/** A Hub model or a folder as --model, and the Hub to download it from. */
const HUB: OptionSpec[] = [
  {
    name: 'model',
    kind: 'text',
    value: 'MODEL',
    default: 'built-in',
    description:
      "built-in, a Hugging Face Hub model id (owner/name[@revision]) in transformers.js's layout, downloaded " +
      'once into $DRAFTSMITH_CACHE (default ~/.cache/draftsmith/hub) with its progress on standard error, or a ' +
      "folder (a Draftsmith model folder with model.json, or transformers.js's layout: config.json and onnx/)",
  },
  {
    name: 'hub-endpoint',
    kind: 'text',
    value: 'URL',
    default: 'https://huggingface.co/',
    description: 'where Hub models are downloaded from: the Hub or a mirror with its URL layout',
  },
  {
    name: 'max-download-gb',
    kind: 'number',
    value: 'GB',
    default: String(DEFAULT_MAX_DOWNLOAD_GB),
    description:
      'the largest download of a Hub model, in GB (10^9 bytes), done without asking; ' +
      'a larger one is refused with its size (as draftsmith.hub.maxDownloadGB asks first in the editor)',
    min: 0,
    max: 1000,
  },
];

/**
 * --model for a command whose system only Draftsmith's own models run (reply, roundtrip): the same
 * kinds as everywhere, a Hub id refused with a message that says why.
 */
const OWN_MODEL = (system: string): OptionSpec => ({
  ...HUB[0],
  description:
    `built-in, or a ${system} model folder exported by models/train; a Hub model id is taken as everywhere, but ` +
    `no Hub model is a ${system} model, so it is refused with a message`,
});

/** What every eval reads (cli.ts evalOptions). */
const DATA: OptionSpec = {
  name: 'data',
  kind: 'text',
  value: 'DIR',
  description:
    "the test split's folder; by default the shipped model's own: .data (summarize), .data/simple (essay, " +
    'story, roundtrip: the models of simple stories), .data/reply (reply)',
};
const LIMIT: OptionSpec = {
  name: 'limit',
  kind: 'integer',
  value: 'N',
  description: 'at most N test items (summarize: per domain)',
  min: 1,
};
const VARIANTS: OptionSpec = {
  name: 'variant',
  kind: 'text',
  value: 'NAME=DIR',
  repeatable: true,
  description: 'the model folders to compare, one row each, named NAME; by default the shipped model',
};
const SHOW = flag('show', 'print the first outputs of each variant on standard error');
const DUMP: OptionSpec = {
  name: 'dump',
  kind: 'text',
  value: 'FILE',
  description:
    'write one JSON line per test item and variant, {system, variant, id, domain, source, output, references}, ' +
    'for models/train/fluency.sh (the fluency scorer)',
};
const EVAL = [DATA, LIMIT, VARIANTS, SHOW, DUMP, NO_GUARDS, ...RUNTIME];

// ------------------------------------------------------------------ the commands

const TABLE = [
  {
    name: 'summarize',
    summary: 'Summarize Document: a summary of a text, or of whole documents section by section, on standard output',
    usage: [
      {
        synopsis:
          'summarize FILE | - | --text TEXT [--mode extractive|abstractive|synopsis] [--json] [--models DIR] ' +
          '[--device auto|cpu|cuda] [--threads N] [--beam N] [--max-tokens N] [--max-input-tokens N] [--model ' +
          'MODEL] [--offline] [--hub-endpoint URL]',
        note:
          "Extractive (default): the sentences the model's topic-aware attention weighs most, verbatim, in " +
          'document order; abstractive: the TAAS decoder writes a new summary (--beam, --max-tokens). --model: ' +
          'built-in, a Hub encoder-decoder (e.g. Xenova/distilbart-cnn-6-6), an instruct model (a Hub id such as ' +
          'HuggingFaceTB/SmolLM2-360M-Instruct, a folder, or a GGUF file: asked through its chat template for a ' +
          'faithful summary of a few sentences, names and numbers the text lacks kept out at decoding and any ' +
          'left flagged on standard error), or a Draftsmith folder; a chosen model writes abstractive summaries ' +
          'only. Top phrases and timings go to standard error.',
      },
      {
        synopsis:
          'summarize FILE | FILE FILE... | FOLDER [--sections] [--jsonl] [--section-time-limit SECONDS] [the ' +
          'options above]',
        note:
          'A whole document of any length, section by section: Markdown (.md) by heading, code, tables, HTML and ' +
          'front matter left out; plain text (any other file, standard input, --text) by paragraphs. Nothing is ' +
          "cut: each section is read in parts of the model's window, and a run of more than a few seconds shows " +
          'the sections done on standard error. Several files or a folder (its .md and .txt files): each in ' +
          'turn; a file that cannot be summarized is said so and the others go on (exit code 1).',
      },
    ],
    options: [
      TEXT,
      {
        name: 'mode',
        kind: 'text',
        value: 'extractive|abstractive|synopsis',
        default: 'extractive',
        description:
          `extractive: the source sentences the topic-aware attention weighs most, verbatim; abstractive: the ` +
          `TAAS decoder writes the summary (${EXPERIMENTAL.abstractiveSummary.short}), or the --model chosen ` +
          `does (--beam and --max-tokens apply to it only); synopsis: one sentence, chosen by a scorer trained ` +
          `on SciTLDR (a technical abstract → its one-line TLDR)`,
      },
      {
        ...JSON_RESULT,
        description: "the whole result as JSON on standard output, with every token's attention weight",
      },
      {
        name: 'beam',
        kind: 'integer',
        value: 'N',
        description: "beam width, 1 to 16 (abstractive; default: the model's, model.json decoding)",
        min: 1,
        max: 16,
      },
      {
        name: 'max-tokens',
        kind: 'integer',
        value: 'N',
        description:
          'the longest summary, in tokens (abstractive); a summary cut there gets a note on standard error ' +
          '(hitMaxLength in --json)',
        formerly: ['max-length'],
      },
      {
        name: 'max-input-tokens',
        kind: 'integer',
        value: 'N',
        description:
          "read at most N tokens at once; it lowers the model's own limit (model.json maxInputTokens), never raises it",
      },
      NO_GUARDS,
      ...HUB,
      ...MODEL_SOURCES,
      ...RUNTIME,
      flag(
        'sections',
        'the outline: each heading with its summary line (* marks the sections the summary of the whole is ' +
          'made from), then the summary of the whole',
      ),
      flag(
        'jsonl',
        'several files or a folder: one JSON line per file on standard output, a progress bar on standard error',
      ),
      {
        name: 'section-time-limit',
        kind: 'number',
        value: 'SECONDS',
        default: '30',
        description: 'the seconds one section may take; a section past it is said so and skipped',
      },
    ],
    examples: [
      {
        args: 'summarize article.txt',
        what: 'the summary on stdout (extractive; --mode abstractive), top phrases and timings on stderr',
      },
      {
        args: 'summarize article.txt --mode abstractive --model ~/models/qwen2.5-0.5b-instruct-q4_0.gguf',
        what: 'a summary an instruct model writes in its own words, through its chat template',
      },
      { args: 'summarize article.txt --json', what: "the full result, with every token's attention weight" },
      { args: 'summarize doc.md --sections', what: 'the outline: a summary line under each heading' },
      { args: 'summarize docs/ --jsonl', what: 'one JSON line per file, a progress bar on stderr' },
    ],
    exclusive: [['json', 'jsonl']],
  },
  {
    name: 'eval summarize',
    summary:
      'ROUGE-1/2/L F1 per domain (news, technical text, dialogue, a held-out news outlet) beside Lead-3 on the ' +
      'held-out split, the rate of names and numbers not in the source, and the one-sentence synopsis on ' +
      'SciTLDR',
    usage: [
      {
        synopsis:
          'eval summarize [--data DIR] [--limit N] [--variant NAME=DIR ...] [--models DIR] [--show] [--mode ' +
          'extractive|abstractive|synopsis|both|all] [--split test|val] [--sweep] [--aggregation ' +
          'sum|mean|sqrt|rank] [--position-weight L] [--centrality M] [--title-weight T] [--lead-sentences N] ' +
          '[--ratio R] [--max-sentences N] [--redundancy R] [--length at-least|closest] [--scorer FILE] ' +
          '[--no-antecedents] [--offset N] [--domain D ...] [--perplexity]',
      },
      {
        synopsis: 'eval summarize --long [--data DIR] [--limit N] [--mode extractive|abstractive] [--models DIR]',
        note: 'CNN test articles longer than the window: the whole-document summary vs the first window vs Lead-3.',
      },
    ],
    options: [
      ...EVAL,
      {
        name: 'mode',
        kind: 'text',
        value: 'extractive|abstractive|synopsis|both|all',
        default: 'all',
        description:
          'the summary modes scored (both: abstractive and extractive; all: the three; --long: extractive or ' +
          'abstractive, default extractive)',
      },
      {
        name: 'split',
        kind: 'text',
        value: 'test|val',
        default: 'test',
        description: 'the split scored (train: only with --features)',
      },
      {
        name: 'features',
        kind: 'text',
        value: 'FILE',
        description:
          "write each document's synopsis candidates (features, ROUGE against the references) to FILE instead " +
          "of the table: the training data of models/train's synopsis scorer; with --mode extractive, each " +
          "sentence's extractive features and text (what extractive_scorer fits)",
      },
      flag('sweep', 'compare the extractive aggregations and budgets on the split: what the defaults were chosen by'),
      {
        name: 'aggregation',
        kind: 'text',
        value: 'sum|mean|sqrt|rank',
        description: "how the extractive summary scores a sentence from its tokens' attention",
      },
      {
        name: 'position-weight',
        kind: 'number',
        value: 'L',
        description: "the extractive summary's preference for early sentences (0 or more)",
      },
      {
        name: 'centrality',
        kind: 'number',
        value: 'M',
        description:
          "the extractive summary's preference for sentences whose words the rest of the text shares (default " +
          '1; 0: none)',
      },
      {
        name: 'title-weight',
        kind: 'number',
        value: 'T',
        description: "the extractive summary's preference for sentences with the title's words (default 1; 0: none)",
      },
      {
        name: 'lead-sentences',
        kind: 'integer',
        value: 'N',
        description: "the extractive summary's length: at least the first N sentences' words (default 3)",
      },
      {
        name: 'ratio',
        kind: 'number',
        value: 'R',
        description: "the extractive summary's length as a share of the source's words instead (above 0)",
      },
      {
        name: 'max-sentences',
        kind: 'integer',
        value: 'N',
        description: 'the most sentences in an extractive summary (at least 1)',
      },
      {
        name: 'redundancy',
        kind: 'number',
        value: 'R',
        description:
          'skip a sentence more than this share of whose content words a chosen sentence has (default 0.4; 1: off)',
      },
      {
        name: 'length',
        kind: 'text',
        value: 'at-least|closest',
        description:
          "with --lead-sentences: take sentences until the lead's length is reached (at-least, the default) or " +
          'only while each brings the length closer to it (closest)',
      },
      {
        name: 'scorer',
        kind: 'text',
        repeatable: true,
        value: 'FILE',
        description:
          'rank the extractive sentences by the learned weights in FILE (an extractive.json that ' +
          "models/train's extractive_scorer writes) instead of the hand-set position, centrality and title; " +
          'with --sweep, each of several compared with the hand-set scorer',
      },
      flag(
        'no-antecedents',
        'let the extractive summary take a sentence that points back ("He", "However") without the one before ' +
          'it (the ablation)',
      ),
      {
        name: 'offset',
        kind: 'integer',
        value: 'N',
        default: '0',
        description: 'skip the first N items of each domain',
      },
      {
        name: 'domain',
        kind: 'text',
        value: 'D',
        repeatable: true,
        description:
          'score only this domain: news (CNN), tech (Debian), dialogue (DialogSum), dailymail (the held-out ' +
          'outlet), synopsis (SciTLDR)',
      },
      flag('perplexity', 'also the perplexity of the reference summaries under each model (teacher forcing)'),
      flag(
        'long',
        'CNN test articles longer than the window: whole document vs first window vs Lead-3 (--limit default 200)',
      ),
    ],
    examples: [
      {
        args: 'eval summarize --limit 100',
        what: 'ROUGE per domain beside Lead-3, and faithfulness, on the held-out test split',
      },
    ],
  },
  {
    name: 'essay',
    summary:
      'Expand Topic Words into Essay: essays that use every topic word on standard output, best first; the ' +
      'words each covers on standard error',
    usage: [
      {
        synopsis:
          'essay "bee, swallow, geese, flower, frog" | FILE | - | --text TEXT [--candidates N] [--beam N] ' +
          '[--max-tokens N] [--unconstrained] [--json] [--model MODEL] [--offline] [--hub-endpoint URL]',
        note:
          'Up to 10 topic words, separated by commas or spaces. --model: a Hub causal LM reads an instruction ' +
          'that names the words.',
      },
    ],
    options: [
      TEXT,
      {
        name: 'candidates',
        kind: 'integer',
        value: 'N',
        default: '1',
        description: 'how many essays, 1 to 5, best first, each with its score',
        min: 1,
        max: 5,
      },
      BEAM,
      {
        name: 'max-tokens',
        kind: 'integer',
        value: 'N',
        description: 'the longest essay, in tokens; an essay cut there gets a note on standard error',
        formerly: ['max-length'],
      },
      flag(
        'unconstrained',
        "the PC-SAN paper's plain beam search, which may leave topic words out, instead of the constrained " +
          'search that puts every one in',
      ),
      { ...JSON_RESULT, description: 'the whole result as JSON on standard output, with the layer weights' },
      NO_GUARDS,
      ...HUB,
      ...MODEL_SOURCES,
      ...RUNTIME,
    ],
    examples: [
      {
        args: 'essay "bee, swallow, geese, flower, frog"',
        what: 'an essay on stdout, the topic words it covers on stderr',
      },
      {
        args: 'essay "bee, swallow, geese, flower, frog" --candidates 3 --json',
        what: 'three essays, with the layer weights',
      },
    ],
  },
  {
    name: 'eval essay',
    summary: "BLEU, Diversity (and the references'), and topic coverage on the held-out split",
    usage: [
      {
        synopsis:
          'eval essay [--data DIR] [--limit N] [--variant NAME=DIR ...] [--beam N] [--unconstrained] [--models ' +
          'DIR] [--show]',
      },
    ],
    options: [
      ...EVAL,
      { name: 'beam', kind: 'integer', value: 'N', description: "beam width (default: each model's)" },
      flag('unconstrained', "the paper's plain beam search, which may leave topic words out"),
    ],
    examples: [
      { args: 'eval essay --limit 100', what: "BLEU, Diversity (and Gold's), topic coverage on the held-out split" },
      {
        args: 'eval essay --dump out.jsonl --no-guards',
        what: 'any eval: --dump writes each output beside its references',
      },
    ],
  },
  {
    name: 'story',
    summary: 'Continue Story or Write a Premise: the text streams to standard output as it is sampled',
    usage: [
      {
        synopsis:
          'story FILE | - | --text "A lighthouse keeper finds a message in a bottle." [--max-words N] [--seed ' +
          'N] [--temperature T] [--top-k K] [--json] [--model MODEL] [--offline] [--hub-endpoint URL]',
        note:
          'Continues the story so far (a long one from its end). --model: a Hub causal LM (e.g. ' +
          'Xenova/distilgpt2) or a folder.',
      },
      {
        synopsis:
          'story --premise [--seed N] [--temperature T] [--top-k K] [--json] [--model MODEL] [--offline] ' +
          '[--hub-endpoint URL]',
        note: 'Writes a premise (a writing prompt) to start a story from.',
      },
    ],
    options: [
      { ...TEXT, formerly: ['prompt'] },
      flag('premise', 'write a premise instead of continuing one'),
      {
        name: 'max-words',
        kind: 'integer',
        value: 'N',
        description:
          "how long the continuation is, in words: between 85 % and 100 % of N (default: the model's; at most " +
          'what it was trained for)',
        formerly: ['words'],
      },
      {
        name: 'seed',
        kind: 'integer',
        value: 'N',
        description:
          'the sampling seed: the same seed, prompt and settings write the same text (default: a fresh one, printed)',
      },
      {
        name: 'temperature',
        kind: 'number',
        value: 'T',
        description: "the sampling temperature, 0.05 to 5 (default: the model's)",
      },
      {
        name: 'top-k',
        kind: 'integer',
        value: 'K',
        description: "sample each token from the K most likely, 1 to 100 (default: the model's, 10 as in the paper)",
      },
      { ...JSON_RESULT, description: 'the whole result as JSON on standard output, with the fusion gates' },
      NO_GUARDS,
      ...HUB,
      ...MODEL_SOURCES,
      ...RUNTIME,
    ],
    examples: [
      {
        args: 'story --text "A lighthouse keeper finds a message in a bottle."',
        what: 'the story streams to stdout',
      },
      {
        args: 'story --text "..." --max-words 60 --seed 7 --json',
        what: 'the same story again from its seed, with the fusion gates',
      },
      { args: 'story --premise', what: 'a premise (a writing prompt) to start from' },
      {
        args: 'story draft.txt --model Xenova/distilgpt2',
        what: 'a Hub model: downloaded once (progress on stderr) into $DRAFTSMITH_CACHE (~/.cache/draftsmith/hub)',
      },
      {
        args: 'story --text "..." --model ./my-gpt2 --offline',
        what: 'a local folder (model.json, or config.json + onnx/); --offline never downloads',
      },
      { args: 'story --premise --model Xenova/gpt2 --hub-endpoint https://hf-mirror.example/', what: 'a Hub mirror' },
    ],
    exclusive: [['text', 'premise']],
  },
  {
    name: 'eval story',
    summary:
      "Continues each held-out test prompt: words written vs asked; with --perplexity the test stories' " +
      'perplexity, with --ranking prompt-ranking accuracy',
    usage: [
      {
        synopsis:
          'eval story [--data DIR] [--limit N] [--variant NAME=DIR ...] [--max-words N] [--seed N] ' +
          '[--perplexity] [--ranking N] [--models DIR] [--show]',
        note:
          "Seeded: --seed plus the item's position. A --variant DIR in transformers.js's layout (a causal LM) is " +
          'run as a Hub model: generation only.',
      },
    ],
    options: [
      ...EVAL,
      {
        name: 'max-words',
        kind: 'integer',
        value: 'N',
        description: "how long each continuation is, in words (default: the model's)",
        formerly: ['words'],
      },
      { name: 'seed', kind: 'integer', value: 'N', default: '1', description: "the first item's sampling seed" },
      flag('perplexity', "the test stories' perplexity under each model"),
      {
        name: 'ranking',
        kind: 'integer',
        value: 'N',
        default: '0',
        description: 'prompt-ranking accuracy on N stories: the true prompt against 9 random ones',
      },
    ],
    examples: [
      {
        args: 'eval story --perplexity --ranking 100',
        what: 'story length, perplexity and prompt ranking from the shipped ONNX',
      },
    ],
  },
  {
    name: 'roundtrip',
    summary:
      'Round-Trip Paragraph: the paragraph encoded into one vector and decoded back; the reconstruction on ' +
      'standard output',
    usage: [
      {
        synopsis:
          'roundtrip FILE | - | --text TEXT [--json] [--model MODEL | --variant standard|hier|hier-attn] ' +
          '[--max-sentences N] [--models DIR]',
        note:
          `${EXPERIMENTAL.roundTrip.short[0].toUpperCase()}${EXPERIMENTAL.roundTrip.short.slice(1)}. Then, on ` +
          `standard error, the sentence alignment and BLEU, ROUGE-1/2/W, coherence L. A .md FILE is read as ` +
          `Markdown: the model reads its prose only, and a note says what was skipped.`,
      },
    ],
    options: [
      TEXT,
      {
        ...JSON_RESULT,
        description: 'the whole result as JSON on standard output: sentences read and written, attention, scores',
      },
      OWN_MODEL('round-trip'),
      {
        name: 'variant',
        kind: 'text',
        value: 'standard|hier|hier-attn',
        description: "one of the paper's three models: the roundtrip-<variant>/ folder under --models",
      },
      {
        name: 'max-sentences',
        kind: 'integer',
        value: 'N',
        description:
          "read at most N sentences of the paragraph, 1 to 32 (default: the model's; the shipped one was trained on 8)",
      },
      NO_GUARDS,
      ...MODEL_SOURCES,
      ...RUNTIME,
    ],
    examples: [
      {
        args: 'roundtrip paragraph.txt',
        what: 'the reconstruction on stdout; alignment, BLEU/ROUGE/L, timings on stderr',
      },
      {
        args: 'roundtrip paragraph.txt --json',
        what: 'the full result: sentences read and written, attention, scores',
      },
      { args: 'roundtrip paragraph.txt --model .work/roundtrip/standard', what: 'any folder the recipe exported' },
    ],
    exclusive: [['model', 'variant']],
  },
  {
    name: 'eval roundtrip',
    summary: "BLEU, ROUGE-1/2/W and coherence L of each model's reconstructions of the held-out paragraphs",
    usage: [{ synopsis: 'eval roundtrip [--data DIR] [--limit N] [--variant NAME=DIR ...] [--models DIR] [--show]' }],
    options: [...EVAL],
    examples: [
      {
        args:
          'eval roundtrip --limit 500 --variant standard=.work/roundtrip/standard --variant ' +
          'hier=.work/roundtrip/hier --variant hier-attn=.work/roundtrip/hier-attn',
        what: "the paper's table",
      },
    ],
  },
  {
    name: 'reply',
    summary: 'Suggest Replies: one reply per semantic key of the post, best first, each labelled "key — mapping"',
    usage: [
      {
        synopsis:
          'reply "POST" | FILE | - | --text POST [--key WORD] [--mapper identity|synonym|antonym|neighbour|all ' +
          '...] [--candidates N] [--beam N] [--max-tokens N] [--model MODEL] [--json]',
        note: 'The keys are the nouns and adjectives of the post, mapped as --mapper says, or the typed --key.',
      },
    ],
    options: [
      { ...TEXT, value: 'POST' },
      {
        name: 'key',
        kind: 'text',
        value: 'WORD',
        description: 'a key of your own (a word the memory lacks: the message names the nearest keys it knows)',
      },
      {
        name: 'mapper',
        kind: 'text',
        value: 'identity|synonym|antonym|neighbour|all',
        repeatable: true,
        default: 'identity',
        description:
          "how the post's keys become memory keys: the word itself, a WordNet synonym or antonym, the nearest " +
          "key in the model's word embeddings; repeatable or comma-separated, all for the four",
      },
      {
        name: 'candidates',
        kind: 'integer',
        value: 'N',
        default: '8',
        description: 'the most replies, 1 to 20',
        min: 1,
        max: 20,
      },
      BEAM,
      {
        name: 'max-tokens',
        kind: 'integer',
        value: 'N',
        description: 'the longest reply, in tokens',
        formerly: ['max-length'],
      },
      OWN_MODEL('reply'),
      JSON_RESULT,
      NO_GUARDS,
      ...MODEL_SOURCES,
      ...RUNTIME,
    ],
    examples: [
      {
        args: 'reply "Do you like playing tennis on sunny days?"',
        what: 'one reply per key, "key — mapping: reply", best first',
      },
      {
        args: 'reply post.txt --mapper all --candidates 10',
        what: 'every mapping of every key (also --mapper synonym,antonym)',
      },
      {
        args: 'reply "How was your weekend?" --key music',
        what: 'a typed key (unknown: the message names the nearest keys)',
      },
    ],
  },
  {
    name: 'eval reply',
    summary:
      'NRM vs ESED on the held-out posts: Diversity and Substantiality at top-1 and top-5, BLEU; mapper examples',
    usage: [{ synopsis: 'eval reply [--data DIR] [--limit N] [--variant NAME=DIR ...] [--examples N] [--models DIR]' }],
    options: [
      DATA,
      LIMIT,
      VARIANTS,
      {
        name: 'examples',
        kind: 'integer',
        value: 'N',
        default: '3',
        description: "how many posts show each mapper's replies",
      },
      DUMP,
      NO_GUARDS,
      ...RUNTIME,
    ],
    examples: [
      {
        args: 'eval reply --limit 300 --variant NRM=.work/reply-nrm --variant ESED=models/reply',
        what: "Tables I/IV and VI's shape",
      },
    ],
  },
  {
    name: 'rewrite',
    summary:
      'Rewrite Selection: a preset or your instruction run on an instruct model; the rewrite (or a unified ' +
      'diff) on standard output',
    usage: [
      {
        synopsis:
          `rewrite FILE | - | --text TEXT --preset ${REWRITE_PRESET_NAMES} | --instruction TEXT [--model MODEL] ` +
          `[--diff] [--json]`,
        note:
          'A .md FILE is read as Markdown: each paragraph and list item is rewritten on its own, its inline ' +
          'markup kept; code, front matter, tables and HTML are printed as they are. Names, numbers and Markdown ' +
          'the rewrite changed unasked are flagged on standard error. Inline code, URLs and front matter are ' +
          'never changed: what the model changed there is left out, with a note.',
      },
    ],
    options: [
      TEXT,
      {
        name: 'preset',
        kind: 'text',
        value: REWRITE_PRESET_NAMES,
        description: `what to do: ${REWRITE_PRESETS.map((p) => `${p.id} (${p.label})`).join(', ')}`,
      },
      {
        name: 'instruction',
        kind: 'text',
        value: 'TEXT',
        description: 'your own instruction instead of a preset, e.g. "Use British spelling."',
      },
      flag('diff', 'a unified diff of the text and its rewrite instead of the rewrite'),
      {
        ...JSON_RESULT,
        description:
          'the whole result as JSON: the raw reply, what was stripped, the word-level changes, the changes ' +
          'held back (protectedChanges), the flags',
      },
      {
        name: 'max-tokens',
        kind: 'integer',
        value: 'N',
        description:
          "the most tokens written per paragraph, 1 to 4096 (default: twice the paragraph's, and a line more)",
      },
      {
        ...HUB[0],
        default: undefined,
        description:
          'the instruct model (one with a chat template): a Hugging Face Hub model id (owner/name[@revision]) ' +
          "in transformers.js's layout, downloaded once into $DRAFTSMITH_CACHE (default " +
          '~/.cache/draftsmith/hub), or such a folder; the built-in models follow no instructions',
      },
      ...HUB.slice(1),
      ...MODEL_SOURCES,
      ...RUNTIME,
    ],
    examples: [
      {
        args: 'rewrite notes.md --preset shorter --model HuggingFaceTB/SmolLM2-360M-Instruct',
        what: 'the whole file on stdout, each paragraph shorter',
      },
      {
        args:
          'rewrite notes.md --instruction "Use British spelling." --model onnx-community/Qwen2.5-0.5B-Instruct ' +
          '--diff',
        what: 'a unified diff of the file and its rewrite',
      },
      {
        args: 'rewrite --text "Me and him goes there yesterday." --preset grammar --model ./my-instruct-model',
        what: "a local folder in transformers.js's layout",
      },
    ],
    exclusive: [
      ['preset', 'instruction'],
      ['json', 'diff'],
    ],
  },
  {
    name: 'check',
    summary:
      'prose checks of Markdown and text files (grammar, spelling, repeated words, spacing, long sentences; ' +
      'passive voice and wordy phrases when named), one linter line per finding',
    usage: [
      {
        synopsis:
          'check FILE ... | FOLDER ... [--rule NAME ...] [--dictionary FILE ...] [--dialect NAME] [--hints] ' +
          '[--fail-on error|warning|information|hint|never] [--baseline REF] [--json]',
        note:
          'Prints FILE:LINE:COLUMN: severity rule: message (LINE in the file as given, COLUMN from 1 in UTF-16 ' +
          'code units, as VS Code counts). A FOLDER is searched for .md, .markdown and .txt files, dot folders ' +
          'and node_modules left out; a binary file named is skipped with a note on standard error. Markdown ' +
          'code, links, HTML and front matter are never checked, nor identifiers, flags, versions and handles ' +
          'outside backticks. The personal dictionaries are ./.draftsmith/dictionary.txt and ' +
          '~/.draftsmith/dictionary.txt (one word a line), as in the editor. Exit 1 when a finding is at least ' +
          'as severe as --fail-on (default error), 0 otherwise, 2 on a bad command line, a name that is not ' +
          'there, or a folder with nothing to check.',
      },
    ],
    options: [
      {
        name: 'rule',
        kind: 'text',
        value: 'NAME',
        repeatable: true,
        description:
          'only these families or rules: spelling, grammar, repeated-word, spacing, long-sentence, ' +
          'passive-voice, wordy-phrase, or one Harper rule as grammar/NAME; repeatable or comma-separated ' +
          '(default: every family that is not a hint in the editor)',
      },
      {
        name: 'dictionary',
        kind: 'text',
        value: 'FILE',
        repeatable: true,
        description: 'a personal dictionary (one word a line) besides the two read anyway',
      },
      {
        name: 'dialect',
        kind: 'text',
        value: 'NAME',
        description:
          `the English whose spellings are right: ${DIALECTS.join(', ')} (default ${DEFAULT_DIALECT}), for the ` +
          `speller and Harper`,
      },
      flag(
        'hints',
        'also the hints the editor shows as dotted underlines: another English’s spellings ("behaviour" under ' +
          'American), unknown words made of known parts ("servername"), and the hint families (passive voice, ' +
          'wordy phrases) unless --rule names others',
      ),
      {
        name: 'fail-on',
        kind: 'text',
        value: 'error|warning|information|hint|never',
        default: 'error',
        description: 'the least severe finding that makes the exit code 1 (every finding is printed either way)',
      },
      {
        name: 'baseline',
        kind: 'text',
        value: 'REF',
        description:
          'report and fail only on findings new since REF: a git revision (each file as it was there) or an ' +
          'earlier --json output; findings match by file, rule and the text around them, not by line',
      },
      flag(
        'json',
        'the findings as a JSON list (file, line, column, endLine, endColumn, rule, family, severity, message, ' +
          'fixes, context)',
      ),
    ],
    examples: [
      { args: 'check docs/', what: 'every Markdown and text file under docs/' },
      { args: 'check docs/ --baseline origin/main', what: 'in CI: fail only on errors new since main' },
      { args: 'check docs/ --fail-on warning', what: 'fail on warnings too' },
      { args: 'check README.md --rule spelling --rule repeated-word', what: 'two families only' },
      { args: 'check chapter1.md --rule passive-voice,wordy-phrase', what: 'the style hints the editor shows' },
    ],
  },
  {
    name: 'eval checks',
    summary:
      'the prose checks on JFLEG: per family, the share of erroneous sentences flagged and the false flags per ' +
      'corrected sentence (docs/checks.md)',
    usage: [{ synopsis: 'eval checks --data DIR [--limit N]' }],
    options: [
      {
        name: 'data',
        kind: 'text',
        value: 'DIR',
        description: "JFLEG's folder: dev.src and dev.ref0 to dev.ref3 (or test.*), one tokenized sentence a line",
      },
      { name: 'limit', kind: 'integer', value: 'N', description: 'the first N sentences only', min: 1 },
    ],
    examples: [{ args: 'eval checks --data ../shared/data/jfleg_dev', what: 'the table in docs/checks.md' }],
  },
  {
    name: 'score',
    summary:
      'Score Draft from a terminal: BLEU, chrF, ROUGE, diversity, substantiality and coherence of drafts ' +
      "against references, with sacreBLEU's workflow and signatures",
    usage: [
      {
        synopsis:
          'score --ref REF --hyp HYP [--document] [--json | --csv] [--stem] [--lowercase] [--ref-field F] ' +
          '[--hyp-field F] [--limit N] [--quiet] [--nonwords] [--perplexity [--models DIR]] [--bertscore-model ' +
          'MODEL [--bertscore-idf]]',
        note:
          'REF and HYP: text files, one segment per line (or each one document with --document), or JSONL files ' +
          'of strings or of objects whose field F (default "text") holds the text. Prints BLEU, ' +
          'ROUGE-1/2/L/Lsum/W, Diversity, distinct-1/2, Substantiality and Coherence L, and the signatures. A ' +
          'Markdown file (.md) is one document, read as Markdown: its prose only (no code, tables, HTML, front ' +
          'matter, link targets or markup); a note on standard error says what was skipped.',
      },
      {
        synopsis:
          `score --ref REF [--ref REF2 ...] --hyp SYS [--hyp SYS2 ...] [-m ` +
          `${NAMED.map((c) => Object.keys(c.names ?? {})[0]).join(' ')}] ` +
          `${usageOf(NAMED.flatMap((c) => c.flags.filter((f) => f.appliesTo !== 'tables')))} [--sentence-level] ` +
          `[--confidence [--confidence-n N]] [--paired-bs [--paired-bs-n N] | --paired-ar [--paired-ar-n N]] ` +
          `[--worst N] [--report FILE.html|FILE.md] [--seed N] [--width N] [--json | --csv]`,
        note:
          "sacreBLEU's workflow and flag names: several references per segment, sacreBLEU signatures, and paired " +
          'significance tests against the first --hyp (score, μ ± 95% CI, p-value), numbers identical to ' +
          "sacreBLEU 2.6.0's. ROUGE: F1, the mean over segments; several references: the best one (rouge-score's " +
          "score_multi) or ROUGE-1.5.5's jackknifing. A JSONL --ref field may hold a list: several references. " +
          'See docs/METRICS.md for every option.',
      },
      {
        synopsis:
          'score --ref REF --hyp HYP -m bertscore --bertscore-model MODEL [--bertscore-idf] [--offline] ' +
          '[--hub-endpoint URL] [--width N] [--json]',
        note:
          'BERTScore alone (Zhang et al. 2020, as the bert_score package computes it; no baseline rescaling): ' +
          "the encoder's last-layer token embeddings matched greedily by cosine, P, R and F1 the mean over the " +
          "segments, in sacreBLEU's score line with its signature (model, layer, idf, dtype). MODEL: a Hub id in " +
          "transformers.js's layout (BERT family, e.g. Xenova/all-MiniLM-L6-v2), downloaded once into " +
          '$DRAFTSMITH_CACHE, or a folder. --bertscore-idf weighs tokens by idf over the references.',
      },
      {
        synopsis:
          'score --hyp DRAFTS_DIR --ref REFS_DIR [--csv | --json] [--stem] [--lowercase] [BLEU options] [-m ' +
          'chrf [--chrf-word-order 2]] [-m ter [TER options]] [--bertscore-model MODEL]',
      },
      {
        synopsis: 'score --hyp F.jsonl --ref F.jsonl --hyp-field X --ref-field Y --name-field Z [--csv | --json]',
        note:
          'Score Drafts in Folder: one row per draft (each paired with the reference of the same file name, or a ' +
          "JSONL row's fields) with every metric, and the corpus totals last; CSV and JSON as the panel's " +
          'exports. -m chrf adds a chrF column (chrF++ with --chrf-word-order 2), -m ter a TER column.',
      },
    ],
    options: [
      {
        name: 'ref',
        kind: 'text',
        value: 'FILE',
        repeatable: true,
        description:
          'references, one segment per line; several files: several references per segment; a folder: the ' +
          'references of a folder of drafts',
      },
      {
        name: 'hyp',
        kind: 'text',
        value: 'FILE',
        repeatable: true,
        description: 'system outputs (drafts); the first is the baseline of a paired test; a folder: one row per draft',
      },
      flag('document', 'each file is one document, not one segment per line'),
      {
        name: 'json',
        kind: 'flag',
        description: 'machine-readable output; like --csv it carries the signatures',
      },
      flag('csv', "machine-readable output, as the panel's Export CSV for a folder of drafts"),
      flag('stem', 'ROUGE with Porter stemming (tokens longer than 3 characters)'),
      flag('lowercase', 'case-insensitive BLEU (case:lc in the signature)'),
      {
        name: 'ref-field',
        kind: 'text',
        value: 'F',
        default: 'text',
        description: "a JSONL file's field that holds the reference (a list: several references)",
      },
      {
        name: 'hyp-field',
        kind: 'text',
        value: 'F',
        default: 'text',
        description: "a JSONL file's field that holds the draft",
      },
      { name: 'limit', kind: 'integer', value: 'N', description: 'score the first N pairs only', min: 1 },
      flag('quiet', 'no line on standard error about how many pairs were scored, how fast'),
      METRICS_OPTION,
      ...METRIC_OPTIONS,
      flag('sentence-level', 'one score per segment (one metric, one system)'),
      flag('confidence', "one system's bootstrap mean and 95 % interval"),
      {
        name: 'confidence-n',
        kind: 'integer',
        value: 'N',
        default: '1000',
        description: 'bootstrap resamples for --confidence',
      },
      flag(
        'paired-bs',
        'paired bootstrap resampling against the first --hyp: each mean ± 95 % interval and the p-value',
      ),
      { name: 'paired-bs-n', kind: 'integer', value: 'N', default: '1000', description: 'resamples for --paired-bs' },
      flag('paired-ar', 'approximate randomization against the first --hyp: the p-value'),
      { name: 'paired-ar-n', kind: 'integer', value: 'N', default: '10000', description: 'trials for --paired-ar' },
      {
        name: 'report',
        kind: 'text',
        value: 'FILE',
        description:
          'with a paired test: a one-file report, FILE.html or FILE.md: the table, a chart per metric, the ' +
          'worst segments, the signatures, this command line and the versions',
      },
      {
        name: 'worst',
        kind: 'integer',
        value: 'N',
        description:
          "with a paired test: each system's N segments that lose most against the baseline, per metric, with " +
          'their texts (the drill-down)',
      },
      {
        name: 'seed',
        kind: 'integer',
        value: 'N',
        default: '12345',
        description:
          "the resampling seed (sacreBLEU's SACREBLEU_SEED); NumPy's generator, reproduced, so the resamples " +
          "are sacreBLEU's",
      },
      {
        name: 'width',
        kind: 'integer',
        value: 'N',
        default: '2',
        description: "decimals printed (sacreBLEU's -w; it prints 1)",
      },
      {
        name: 'name-field',
        kind: 'text',
        value: 'Z',
        description: 'a JSONL file of drafts: the field that names each row (else row N)',
      },
      { ...MODELS, description: 'where --perplexity finds the story model (a folder with story/ in it)' },
      { ...HUB[1], description: 'where --bertscore-model is downloaded from: the Hub or a mirror with its URL layout' },
      flag('offline', 'never download: --bertscore-model must be in the cache already, or a folder'),
    ],
    examples: [
      { args: 'score --ref refs.txt --hyp drafts.txt', what: 'every metric, one segment per line' },
      {
        args: 'score --ref ref.md --hyp draft.md',
        what: 'two Markdown documents, prose with prose, as Score Draft shows them',
      },
      {
        args: 'score --ref data.jsonl --ref-field dialogue --hyp data.jsonl --hyp-field summary --csv',
        what: 'two fields of one JSONL file',
      },
      { args: 'score --ref ref1.txt --ref ref2.txt --hyp sys.txt -m bleu chrf', what: '2 references per segment' },
      {
        args: 'score --ref ref.txt --hyp sys.txt -m bleu --tokenize intl --smooth-method floor --smooth-value 0.1',
        what: "sacreBLEU's options, with its flag names and signatures",
      },
      { args: 'score --ref ref.txt --hyp sys.txt -m chrf --chrf-word-order 2', what: 'chrF++' },
      { args: 'score --ref ref.txt --hyp sys.txt -m ter --ter-normalized', what: "TER, with Tercom's normalisation" },
      {
        args:
          'score --ref ref.txt --hyp base.txt --hyp a.txt --hyp b.txt -m bleu ter --paired-bs --worst 5 --report ' +
          'report.html',
        what: 'drafts against a baseline: the table, the worst segments, a one-file report',
      },
      {
        args: 'score --ref ref.txt --hyp base.txt --hyp new.txt --paired-bs',
        what: 'μ ± 95% CI and p-value vs the first --hyp',
      },
      {
        args: 'score --ref ref.txt --hyp base.txt --hyp new.txt --paired-ar --paired-ar-n 10000 --seed 12345',
        what: 'approximate randomization',
      },
      { args: 'score --ref ref.txt --hyp sys.txt --sentence-level', what: 'one BLEU line per segment' },
      {
        args: 'score --ref refs.jsonl --ref-field refs --hyp sys.txt -m rouge',
        what: 'a JSONL list field: several references per segment',
      },
      {
        args: 'score --hyp drafts/ --ref references/ --csv',
        what: 'a folder of drafts: one row per draft, the corpus last',
      },
      {
        args: 'score --ref refs.txt --hyp drafts.txt --nonwords --perplexity',
        what: 'fluency beside the overlap metrics',
      },
      {
        args:
          'score --ref refs.txt --hyp drafts.txt -m bertscore --bertscore-model Xenova/all-MiniLM-L6-v2 ' +
          '--bertscore-idf',
        what: 'BERTScore with idf, under a MiniLM encoder downloaded on first use',
      },
    ],
    exclusive: [
      ['json', 'csv'],
      ['paired-bs', 'paired-ar'],
    ],
  },
] as const satisfies readonly CommandSpec[];

export type CommandName = (typeof TABLE)[number]['name'];
/** The table, in the order --help lists it. */
export const COMMANDS: readonly (CommandSpec & { readonly name: CommandName })[] = TABLE;

/** Notes for every command, after the commands in --help and docs/cli.md. */
export const GENERAL_NOTES: readonly { readonly title: string; readonly text: string }[] = [
  {
    title: 'FILE, - and TEXT',
    text:
      'every command that reads a text (summarize, essay, story, roundtrip, reply, rewrite) reads a FILE, - ' +
      '(standard input) or --text TEXT; reply and essay also take the text itself. For reply and essay, one word ' +
      'that names an existing file, or that looks like a file name (it contains / or \\, or ends in an extension ' +
      'such as .txt), is read as a file ("no such file" if there is none); anything else is the text. Text that ' +
      'looks like a file name goes in --text, and text that starts with "-" after "--". Files are UTF-8 (a ' +
      'byte-order mark is dropped); a Latin-1 (ISO-8859-1/Windows-1252) or UTF-16 file is read as such, with a ' +
      'note on standard error. One policy for bad input, every command: UTF-8 with stray bytes is read with ' +
      '"\uFFFD" for them and a warning that gives the first one\'s byte offset; binary data and a file over 256 ' +
      'MiB are refused (exit 1) before any model loads or any score is computed. Messages name what was given: ' +
      '"no such file: NAME", "the file is empty", "the text has no words the model can read (only emoji, symbols ' +
      'or punctuation)", "NAME looks like binary data".',
  },
  {
    title: 'Options',
    text:
      'an option a command does not take is refused (exit 2) with the list of those it takes and the nearest one ' +
      '("did you mean --mode?"), instead of being ignored; so is an unknown command ("did you mean summarize?"), ' +
      'an option given twice with two values, options that cannot go together (--json and --csv) and a number ' +
      'out of its range. An output length names its unit: --max-tokens (summarize, essay, reply, rewrite), ' +
      '--max-words (story), --max-sentences (what roundtrip reads); the former names --max-length, --words and ' +
      '--prompt still work, with a note on standard error, until a future release. --model takes the same values ' +
      'everywhere: built-in, a Hub id or a folder. --help, -h or help prints the usage and exits 0; draftsmith ' +
      'COMMAND --help prints one command with each of its options described; --version prints the version.',
  },
  {
    title: 'Notes on standard error',
    text:
      'a summary or essay that reached its longest output before the model ended it gets a "note:" line on ' +
      'standard error saying so (hitMaxLength in --json, on each candidate for essays); so does a text cut to ' +
      'what the model reads.',
  },
  {
    title: 'Exit codes',
    text:
      '0 done; 1 the work found something (check: findings) or could not be done (an empty, binary or unreadable ' +
      'file, a model that does not load or a download over --max-download-gb, reply: no reply found, a file of ' +
      'several that could not be summarized); 2 a bad command line: no or an unknown command, an unknown option, ' +
      'a bad or doubled value, options that cannot go together, a file or folder that is not there; 130 stopped ' +
      'by Ctrl+C, which cancels the work (a download keeps no partial file) and says so in one line. The same ' +
      'for every command.',
  },
  {
    title: 'Environment',
    text:
      'DRAFTSMITH_CACHE: where Hub models and --models-url folders are kept (default ~/.cache/draftsmith/hub). ' +
      "DRAFTSMITH_CHECKS_CACHE: where check keeps Harper's memory after its set-up, written by the first run " +
      '(about 170 MB) and read by the next ones, which start in a fraction of the time (default ' +
      '~/.cache/draftsmith/checks; off: none kept). ' +
      "DRAFTSMITH_VERBOSE=1: the engine's info lines on standard error too.",
  },
];

/** The command `words` name ("eval summarize" from ["eval", "summarize", ...]), if there is one. */
export function commandNamed(words: readonly string[]): (typeof COMMANDS)[number] | undefined {
  const name = words[0] === 'eval' && words[1] !== undefined ? `eval ${words[1]}` : words[0];
  return COMMANDS.find((c) => c.name === name);
}

/** How an option is written on the command line. */
export const spelled = (o: Pick<OptionSpec, 'name' | 'short'>): string =>
  o.short ? `${o.short}/--${o.name}` : `--${o.name}`;
