/**
 * The options each command takes. An option a command does not know (a typo, another command's
 * option, one of another tool) is refused with exit code 2 and the list of the ones it knows,
 * instead of being ignored. A new option is added here beside the code that reads it.
 */
import { EngineError } from '../engine/errors';
import { checkValues, type Args } from './args';

/** Where the models run: every command that loads one. */
const RUNTIME = ['models', 'device', 'threads'];
/** Draftsmith model folders from a server (--models-url), and --offline for them and for Hub models. */
const MODEL_SOURCES = ['models-url', 'offline'];
/** A Hub model or a folder as --model, and the Hub to download it from. */
const HUB = ['model', 'hub-endpoint'];
/** What every eval reads (cli.ts evalOptions), --dump included. */
const EVAL = ['data', 'limit', 'variant', 'show', 'dump', 'no-guards', ...RUNTIME];

export const COMMAND_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  summarize: [
    'text',
    'mode',
    'json',
    'beam',
    'max-length',
    'max-input-tokens',
    'no-guards',
    ...HUB,
    ...MODEL_SOURCES,
    ...RUNTIME,
    'sections',
    'jsonl',
    'section-time-limit',
  ],
  essay: [
    'text',
    'candidates',
    'beam',
    'max-length',
    'unconstrained',
    'json',
    'no-guards',
    ...HUB,
    ...MODEL_SOURCES,
    ...RUNTIME,
  ],
  story: [
    'prompt',
    'premise',
    'words',
    'seed',
    'temperature',
    'top-k',
    'json',
    'no-guards',
    ...HUB,
    ...MODEL_SOURCES,
    ...RUNTIME,
  ],
  roundtrip: ['text', 'json', 'model', 'variant', 'max-sentences', 'no-guards', ...MODEL_SOURCES, ...RUNTIME],
  reply: [
    'text',
    'key',
    'mapper',
    'candidates',
    'beam',
    'max-length',
    'model',
    'json',
    'no-guards',
    ...MODEL_SOURCES,
    ...RUNTIME,
  ],
  score: [
    'ref',
    'hyp',
    'document',
    'json',
    'csv',
    'stem',
    'lowercase',
    'ref-field',
    'hyp-field',
    'limit',
    'quiet',
    // sacreBLEU's names
    'metrics',
    'tokenize',
    'smooth-method',
    'smooth-value',
    'max-ngram-order',
    'effective-order',
    'chrf-char-order',
    'chrf-word-order',
    'chrf-beta',
    'chrf-whitespace',
    'chrf-lowercase',
    'chrf-eps-smoothing',
    'sentence-level',
    'confidence',
    'confidence-n',
    'paired-bs',
    'paired-bs-n',
    'paired-ar',
    'paired-ar-n',
    'seed',
    'width',
    // ROUGE with -m (rouge-score's and ROUGE-1.5.5's options)
    'rouge-jackknife',
    'rouge-split',
    // a folder of drafts (or a JSONL file's rows): one row per draft
    'name-field',
    // the drafts' perplexity under the built-in story LM, from --models
    'perplexity',
    'models',
    // the drafts' non-word rate (hunspell en_US through nspell)
    'nonwords',
  ],
  'eval summarize': [
    ...EVAL,
    'mode',
    'split',
    'sweep',
    'aggregation',
    'position-weight',
    'ratio',
    'max-sentences',
    'offset',
    'perplexity',
    'long',
  ],
  'eval essay': [...EVAL, 'beam', 'unconstrained'],
  'eval story': [...EVAL, 'words', 'seed', 'perplexity', 'ranking'],
  'eval roundtrip': [...EVAL],
  'eval reply': ['data', 'limit', 'variant', 'examples', 'dump', 'no-guards', ...RUNTIME],
};

/** How an option is written on the command line (-m is sacreBLEU's short --metrics). */
const spelled = (name: string) => (name === 'metrics' ? '-m/--metrics' : `--${name}`);

/**
 * Refuses (bad-request: exit 2) an option `command` does not take, naming the ones it does; then
 * one given last without its value. A word without spaces that starts with "-" (but a lone "-",
 * standard input) counts as an option: `-x` is a mistyped option, not text; such text goes after
 * "--" or in --text ("-5 degrees today", with its spaces, is text).
 */
export function checkOptions(a: Args, command: string): void {
  const known = COMMAND_OPTIONS[command];
  if (!known) return;
  const unknown = [...a.flags.keys()].filter((f) => f !== 'help' && !known.includes(f)).map(spelled);
  unknown.push(...a.positional.slice(0, a.optionsEnd ?? a.positional.length).filter((p) => /^-\S+$/.test(p)));
  if (unknown.length === 0) {
    checkValues(a);
    return;
  }
  throw new EngineError(
    'bad-request',
    `${command} does not take ${unknown.join(', ')}; its options: ${[...known].sort().map(spelled).join(' ')} (draftsmith --help for what they do)`,
  );
}
