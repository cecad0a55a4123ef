/**
 * The one list of Score Draft's metrics. Each entry says how its numbers are computed for one
 * draft and for many (the one aggregation: Score Draft, `draftsmith score` and Score Drafts in
 * Folder's totals), which options turn it on, its signature, its sentence-level statistics for
 * the two-draft comparison, and how every table shows it: label, decimals, which way is better.
 * The CLI's table, the panel's score and comparison tables, the folder's columns and its CSV and
 * JSON exports are all read from here; a metric is one entry here, its module under
 * engine/metrics, and its field of CorpusScores in extension/protocol/systems/scoring.ts.
 *
 * Pure: no Node API, no wink-nlp, no model. The panel's page bundles this list (its build fails
 * on a Node import), and the host computes folder totals with it. What needs wink-nlp, WordNet or
 * hunspell is read once per pair by the engine (eval/scoreDraft.ts, a ReadPair).
 */
import type {
  BertScoreSummary,
  CoherenceSummary,
  CorpusScores,
  NonwordSummary,
  ScoreResult,
  SubstantialitySummary,
} from '../../protocol';
import { meanPrf } from '../metrics/bertscore';
import {
  BLEU_SMOOTHINGS,
  BLEU_TOKENIZERS,
  bleuFromStats,
  bleuSummary,
  corpusBleu,
  unflattenBleuStats,
  type BleuScore,
} from '../metrics/bleu';
import type { ChrfOptions } from '../metrics/chrf';
import { corpusChrf } from '../metrics/chrf';
import { diversity } from '../metrics/diversity';
import { pooledPerplexity } from '../metrics/perplexity';
import { ROUGE_TYPES, rougeScores, type RougeType } from '../metrics/rouge';
import { rougeMetrics } from '../metrics/rougeMetric';
import { bleuMetric, chrfMetric, terMetric, type StatMetric } from '../metrics/significance';
import { bleuSignature, chrfSignature, rougeSignature, terSignature } from '../metrics/signature';
import { corpusTer, type TerOptions } from '../metrics/ter';
import { EngineError } from '../errors';
import { metricCli, type MetricCli } from './metricFlags';
import { bleuOptionsOf, chrfOptionsOf, smoothValueApplies, terOptionsOf, type MetricOptions } from './scoreOptions';

export type MetricKey = Exclude<keyof CorpusScores, 'pairs'>;
/** A metric's summary in CorpusScores (coherence L's may be null: fewer than two sentences align). */
export type Summary<K extends MetricKey> = Exclude<CorpusScores[K], undefined>;

/** One (draft, reference) pair as the engine read it: the texts, and what only the engine can read. */
export interface ReadPair {
  hypothesis: string;
  reference: string;
  /** Each text's sentences, one a line (ROUGE-Lsum splits on lines, as rouge-score's split_summaries). */
  hypothesisLines: string;
  referenceLines: string;
  /** The draft's sentence order against the reference's (wink-nlp's parts of speech). */
  coherence: CoherenceSummary;
  /** The draft's entity words (wink-nlp's entities, WordNet's compound nouns). */
  substantiality: SubstantialitySummary;
  /** The draft's non-words (hunspell en_US), when the options ask for them. */
  nonwords?: NonwordSummary;
}

/** One number of a metric, as every table shows it. */
export interface MetricValue {
  /** Stable name: the panel's data-metric, the folder's CSV column and JSON key. */
  key: string;
  label: string;
  /** The raw number (null: undefined for this text, e.g. coherence L of a one-sentence draft). */
  value: number | null;
  /** Decimals shown. */
  digits: number;
  /** Shown and exported × 100 (ROUGE's F1 as a percentage). */
  percent?: boolean;
  /** Which way is better; null for what is no score (a length, a count). */
  better: 'higher' | 'lower' | null;
  /** A column of Score Drafts in Folder's table and of its exports. */
  column?: boolean;
  /** A cell of the two-draft comparison's whole-text table. */
  compare?: boolean;
  /** Its cell in a panel table of rows (ROUGE's types × precision, recall, F1); absent: one row. */
  grid?: { row: string; column: string };
}

/**
 * How a metric is computed:
 *  - corpus: over all the texts at once (sacreBLEU's corpus BLEU and chrF, corpus diversity); one
 *    draft is a corpus of one;
 *  - pair + pool: each pair on its own, then pooled (ROUGE's mean, entity words over all sentences);
 *  - pool alone: each draft's number comes from elsewhere (the story model's perplexity), pooled here.
 */
export type Scoring<S> =
  | { corpus(hyps: readonly string[], refs: readonly string[], options: MetricOptions): S }
  | { pair(p: ReadPair, options: MetricOptions): S; pool(parts: readonly S[]): S }
  | { external: string; pool(parts: readonly S[]): S };

export interface MetricDescriptor<K extends MetricKey> {
  /** Its name: the panel table's caption. */
  label: string;
  /** Scored only when the options ask for it; absent: always scored. */
  option?: (options: MetricOptions) => boolean;
  /** Its numbers, in the order every table lists them. */
  values(s: Summary<K>): MetricValue[];
  /** Words the panel lists beside the numbers: why the number is what it is. */
  examples?(s: Summary<K>): readonly string[];
  /** What the panel says under its table. */
  note?(s: Summary<K>): string;
  scoring: Scoring<Summary<K>>;
  /** The signature that says how it was computed (ScoreResult.signatures, `draftsmith score --json`). */
  signature?: { name: keyof ScoreResult['signatures']; of(options: MetricOptions): string };
  /** A signature only the scores know (the encoder's layer and data type), read from the summary. */
  summarySignature?: { name: keyof ScoreResult['signatures']; of(s: Summary<K>): string };
  /** Its sentence-level statistics, resampled by the two-draft comparison's paired bootstrap. */
  sentence?(options: MetricOptions): StatMetric[];
  /** How `draftsmith score` offers it: its `-m` names, its flags, its statistics (eval/metricFlags.ts). */
  cli?: MetricCli;
}

const ROUGE_KEYS = [
  ['rouge1', 'ROUGE-1'],
  ['rouge2', 'ROUGE-2'],
  ['rougeL', 'ROUGE-L'],
  ['rougeLsum', 'ROUGE-Lsum'],
  ['rougeW', 'ROUGE-W'],
] as const;
/** The ROUGE types the two-draft comparison shows. */
const COMPARED_ROUGE: ReadonlySet<string> = new Set(['rouge1', 'rouge2', 'rougeL']);

/** A score (higher is better unless `more` says otherwise). */
const score = (
  key: string,
  label: string,
  value: number | null,
  digits: number,
  more: Partial<MetricValue> = {},
): MetricValue => ({ key, label, value, digits, better: 'higher', ...more });
/** A count or a length: no decimals, no direction. */
const count = (key: string, label: string, value: number, more: Partial<MetricValue> = {}): MetricValue => ({
  key,
  label,
  value,
  digits: 0,
  better: null,
  ...more,
});
/** A metric's main number: a folder column and a cell of the two-draft comparison. */
const HEADLINE = { column: true, compare: true } as const;

/** Sum of `f` over `xs`, from 0 in order: the same floating-point sums wherever a mean is taken. */
const sum = <T>(xs: readonly T[], f: (x: T) => number) => xs.reduce((a, x) => a + f(x), 0);
const mean = <T>(xs: readonly T[], f: (x: T) => number) => sum(xs, f) / Math.max(xs.length, 1);
/** The first `n` distinct examples over the parts, in order. */
const firstDistinct = (lists: readonly (readonly string[])[], n: number) => [...new Set(lists.flat())].slice(0, n);

/** Every metric, in the order the tables show them. */
export const METRICS: { [K in MetricKey]: MetricDescriptor<K> } = {
  bleu: {
    label: 'BLEU (sacreBLEU, 0–100)',
    values: (b) => [
      score('bleu', 'BLEU', b.score, 2, HEADLINE),
      ...b.precisions.map((p, i) => score(`bleu-p${i + 1}`, `BLEU p${i + 1}`, p, 2)),
      score('bleu-bp', 'BLEU brevity penalty', b.brevityPenalty, 4),
      score('bleu-ratio', 'BLEU length ratio', b.ratio, 4, { better: null }),
      count('bleu-hyp-length', 'BLEU draft length', b.hypLength),
      count('bleu-ref-length', 'BLEU reference length', b.refLength),
    ],
    scoring: { corpus: (hyps, refs, o) => bleuSummary(corpusBleu(hyps, [refs], bleuOptionsOf(o))) },
    signature: { name: 'BLEU', of: (o) => bleuSignature(bleuOptionsOf(o), 1) },
    sentence: (o) => [bleuMetric(bleuOptionsOf(o))],
    cli: metricCli<BleuFlags>({
      name: 'BLEU',
      names: { bleu: ['bleu'] },
      help: "bleu: sacreBLEU's BLEU",
      flags: [
        {
          key: 'lowercase',
          name: 'lowercase',
          kind: 'flag',
          description: 'case-insensitive BLEU (case:lc in the signature)',
          signature: 'case',
        },
        {
          key: 'tokenize',
          name: 'tokenize',
          kind: 'text',
          value: '13a|intl|char|zh|none',
          choices: BLEU_TOKENIZERS,
          refusal: "(sacreBLEU's ja-mecab, ko-mecab and spm tokenizers are not available here)",
          default: '13a',
          description: "BLEU's tokenizer, as sacreBLEU's",
          signature: 'tok',
        },
        {
          key: 'smoothMethod',
          name: 'smooth-method',
          kind: 'text',
          value: 'exp|floor|add-k|none',
          choices: BLEU_SMOOTHINGS,
          default: 'exp',
          description: "BLEU's smoothing, as sacreBLEU's",
          signature: 'smooth',
        },
        {
          key: 'smoothValue',
          name: 'smooth-value',
          kind: 'number',
          value: 'V',
          min: 0,
          description: 'ε for floor (default 0.1) or k for add-k (default 1)',
        },
        {
          key: 'maxNgramOrder',
          name: 'max-ngram-order',
          kind: 'integer',
          value: 'N',
          min: 1,
          default: '4',
          description: "BLEU's largest n-gram order",
        },
        {
          key: 'effectiveOrder',
          name: 'effective-order',
          kind: 'flag',
          description: 'BLEU averages only the orders the hypothesis has (on with --sentence-level)',
          signature: 'eff',
        },
      ],
      // sacreBLEU takes the value and ignores it; saying so spares a user wondering why nothing changed.
      check: (o) =>
        o.smoothValue !== undefined && !smoothValueApplies(o)
          ? [
              `note: --smooth-value applies to --smooth-method floor or add-k; ${o.smoothMethod ?? 'exp'} ` +
                `ignores it, as sacreBLEU does`,
            ]
          : [],
      options: (o) => o,
      stat: (o) => [bleuMetric(bleuOptionsOf(o))],
      // sacreBLEU scores one segment with effective order on (args.bleu_effective_order = True).
      segment: (o) => ({ ...o, effectiveOrder: true }),
      details: (o, _part, stats) =>
        bleuDetails(bleuFromStats(unflattenBleuStats(stats, (stats.length - 2) / 2), bleuOptionsOf(o))),
      sameReferenceCount: true,
    }),
  },
  chrf: {
    label: 'chrF (sacreBLEU, 0–100)',
    option: (o) => chrfOptionsOf(o) !== undefined,
    values: (c) => [score('chrf', c.name, c.score, 2, HEADLINE)],
    scoring: {
      corpus: (hyps, refs, o) => {
        const c = corpusChrf(hyps, [refs], chrfOptionsOf(o) ?? {});
        return { score: c.score, name: c.name };
      },
    },
    signature: { name: 'chrF', of: (o) => chrfSignature(chrfOptionsOf(o) ?? {}, 1) },
    sentence: (o) => [chrfMetric(chrfOptionsOf(o) ?? {})],
    cli: metricCli<ChrfOptions>({
      name: 'chrF',
      names: { chrf: ['chrf'] },
      help: "chrf: sacreBLEU's chrF (chrF++ with --chrf-word-order 2)",
      hint: 'chrF++ is chrf with --chrf-word-order 2',
      flags: [
        {
          key: 'charOrder',
          name: 'chrf-char-order',
          kind: 'integer',
          value: 'N',
          min: 0,
          default: '6',
          description: "chrF's character n-gram order",
          signature: 'nc',
        },
        {
          key: 'wordOrder',
          name: 'chrf-word-order',
          kind: 'integer',
          value: 'N',
          min: 0,
          default: '0',
          description: "chrF's word n-gram order; 2 is chrF++",
          signature: 'nw',
        },
        { key: 'beta', name: 'chrf-beta', kind: 'integer', value: 'N', min: 0, default: '2', description: "chrF's β" },
        {
          key: 'whitespace',
          name: 'chrf-whitespace',
          kind: 'flag',
          description: 'chrF keeps spaces in character n-grams',
          signature: 'space',
        },
        { key: 'lowercase', name: 'chrf-lowercase', kind: 'flag', description: 'chrF ignores case', signature: 'case' },
        {
          key: 'epsSmoothing',
          name: 'chrf-eps-smoothing',
          kind: 'flag',
          description: "chrF++.py's epsilon smoothing instead of sacreBLEU 2's effective-order averaging",
          signature: 'eff',
        },
      ],
      check: (o) => {
        if ((o.charOrder ?? 6) + (o.wordOrder ?? 0) === 0)
          throw new EngineError('bad-request', '--chrf-char-order and --chrf-word-order cannot both be 0');
        return [];
      },
      // A folder's chrF column: Score Draft's draftsmith.score.chrf, chrF or chrF++ with sacreBLEU's other defaults.
      options: (o, named) => {
        if (!named) return {};
        const { wordOrder, ...others } = o;
        if (Object.keys(others).length > 0 || (wordOrder !== undefined && wordOrder !== 0 && wordOrder !== 2)) {
          throw new EngineError(
            'bad-request',
            "a folder's table takes chrF (-m chrf) or chrF++ (-m chrf --chrf-word-order 2) with sacreBLEU's " +
              'other defaults; for other chrF options, score segment files with -m chrf',
          );
        }
        return { chrf: wordOrder === 2 ? 'chrF++' : 'chrF' };
      },
      stat: (o) => [chrfMetric(o)],
      sameReferenceCount: true,
    }),
  },
  ter: {
    label: 'TER (sacreBLEU, edits per 100 reference words)',
    option: (o) => terOptionsOf(o) !== undefined,
    values: (t) => [
      score('ter', 'TER', t.score, 2, { better: 'lower', ...HEADLINE }),
      count('ter-edits', 'TER edits', t.numEdits),
      score('ter-ref-length', 'TER reference length', t.refLength, 1, { better: null }),
    ],
    scoring: {
      corpus: (hyps, refs, o) => {
        const t = corpusTer(hyps, [refs], terOptionsOf(o) ?? {});
        return { score: t.score, numEdits: t.numEdits, refLength: t.refLength };
      },
    },
    signature: { name: 'TER', of: (o) => terSignature(terOptionsOf(o) ?? {}, 1) },
    sentence: (o) => [terMetric(terOptionsOf(o) ?? {})],
    cli: metricCli<TerOptions>({
      names: { ter: ['ter'] },
      help: "ter: sacreBLEU's TER",
      name: 'TER',
      // A folder's TER column: Score Draft's draftsmith.score.ter settings.
      options: (o, named) => (named ? { ter: o } : {}),
      stat: (o) => [terMetric(o)],
      sameReferenceCount: true,
      flags: [
        {
          key: 'caseSensitive',
          name: 'ter-case-sensitive',
          kind: 'flag',
          description: 'TER keeps case (sacreBLEU lowercases by default)',
          signature: 'case',
        },
        {
          key: 'normalized',
          name: 'ter-normalized',
          kind: 'flag',
          description: "TER applies Tercom's normalisation (punctuation split off, XML entities)",
          signature: 'norm',
        },
        {
          key: 'noPunct',
          name: 'ter-no-punct',
          kind: 'flag',
          description: 'TER removes punctuation',
          signature: 'punct',
        },
        {
          key: 'asianSupport',
          name: 'ter-asian-support',
          kind: 'flag',
          description:
            'TER splits CJK characters (with --ter-normalized) and removes CJK punctuation (with --ter-no-punct)',
          signature: 'asian',
        },
      ],
    }),
  },
  rouge: {
    label: 'ROUGE (%)',
    values: (r) =>
      ROUGE_KEYS.flatMap(([key, name]) => {
        const pct = (k: string, short: string, column: string, v: number, more: Partial<MetricValue> = {}) =>
          score(k, `${name} ${short}`, v, 2, { percent: true, grid: { row: name, column }, ...more });
        return [
          pct(`${key}-precision`, 'P', 'precision', r[key].precision),
          pct(`${key}-recall`, 'R', 'recall', r[key].recall),
          pct(key, 'F1', 'F1', r[key].f1, { column: true, compare: COMPARED_ROUGE.has(key) }),
        ];
      }),
    scoring: {
      pair: (p, o) => rougeScores(p.hypothesisLines, p.referenceLines, { stem: o.stem }),
      pool: (parts) => {
        const prf = (k: (typeof ROUGE_KEYS)[number][0]) => ({
          precision: mean(parts, (r) => r[k].precision),
          recall: mean(parts, (r) => r[k].recall),
          f1: mean(parts, (r) => r[k].f1),
        });
        return {
          rouge1: prf('rouge1'),
          rouge2: prf('rouge2'),
          rougeL: prf('rougeL'),
          rougeLsum: prf('rougeLsum'),
          rougeW: prf('rougeW'),
        };
      },
    },
    signature: { name: 'ROUGE', of: (o) => rougeSignature({ stem: o.stem }) },
    sentence: (o) => rougeMetrics(['rouge1', 'rougeL'], { stem: o.stem }),
    cli: metricCli<RougeFlags>({
      name: 'ROUGE',
      names: Object.fromEntries([['rouge', ROUGE_TYPES], ...ROUGE_TYPES.map((t) => [t, [t]])]) as Record<
        string,
        readonly string[]
      >,
      help:
        "rouge: rouge-score's ROUGE F1, the mean over segments (rouge1 rouge2 rougeL rougeLsum, or rouge for all " +
        'four)',
      hint: 'rouge is all four ROUGE types',
      flags: [
        {
          key: 'stem',
          name: 'stem',
          kind: 'flag',
          description: 'ROUGE with Porter stemming (tokens longer than 3 characters)',
          signature: 'stem',
        },
        {
          key: 'jackknife',
          name: 'rouge-jackknife',
          kind: 'flag',
          description:
            "ROUGE with several references: ROUGE-1.5.5's jackknifing instead of the best reference " +
            "(rouge-score's score_multi)",
          signature: 'multi',
          appliesTo: 'named',
        },
        {
          key: 'split',
          name: 'rouge-split',
          kind: 'text',
          value: 'newline|nlp',
          choices: ['newline', 'nlp'],
          default: 'nlp',
          description:
            "ROUGE-Lsum's sentences: Draftsmith's sentence splitter, as the full table and Score Draft, or the " +
            "segment's own lines (rouge-score's split_summaries=False); the signature says which",
          signature: 'split',
          appliesTo: 'named',
        },
      ],
      options: (o) => (o.stem ? { stem: true } : {}),
      // One default with the full table and Score Draft: ROUGE-Lsum the same number in every table.
      stat: (o, parts, run) =>
        rougeMetrics(parts as RougeType[], {
          stem: o.stem === true,
          jackknife: o.jackknife === true,
          split: o.split ?? 'nlp',
          varRefs: run.varyingReferences,
        }),
    }),
  },
  diversity: {
    label: 'Diversity (unique tokens / all tokens)',
    values: (d) => [
      score('diversity', 'Diversity', d.diversity, 3, { column: true }),
      score('distinct1', 'distinct-1', d.distinct1, 3),
      score('distinct2', 'distinct-2', d.distinct2, 3, { column: true }),
      count('tokens', 'tokens', d.tokens, { column: true }),
    ],
    scoring: { corpus: (hyps) => diversity(hyps) },
  },
  substantiality: {
    label: 'Substantiality (entity words per sentence)',
    values: (s) => [
      score('substantiality', 'Substantiality', s.perSentence, 2, { column: true }),
      count('entity-words', 'entity words', s.entityWords),
      count('substantiality-sentences', 'sentences', s.sentences),
    ],
    examples: (s) => s.examples,
    scoring: {
      pair: (p) => p.substantiality,
      pool: (parts) => {
        const entityWords = sum(parts, (s) => s.entityWords);
        const sentences = sum(parts, (s) => s.sentences);
        return {
          perSentence: sentences > 0 ? entityWords / sentences : 0,
          entityWords,
          sentences,
          // As metrics/substantiality.ts keeps them over all sentences: the first 20 distinct.
          examples: firstDistinct(
            parts.map((s) => s.examples),
            20,
          ),
        };
      },
    },
  },
  coherenceL: {
    label: 'Coherence L (0: the draft keeps the reference’s sentence order)',
    values: (L) => [score('coherenceL', 'Coherence L', L, 3, { better: 'lower', column: true })],
    scoring: {
      pair: (p) => p.coherence.L,
      // The mean over the drafts that have one.
      pool: (parts) => {
        const ls = parts.filter((L): L is number => L !== null);
        return ls.length > 0 ? sum(ls, (L) => L) / ls.length : null;
      },
    },
  },
  nonwords: {
    label: 'Non-words (hunspell en_US)',
    option: (o) => o.nonwords === true,
    values: (n) => [
      score('nonwords', 'Non-word rate', n.rate, 3, { better: 'lower', ...HEADLINE }),
      count('nonwords-count', 'non-words', n.nonwords),
      count('nonwords-judged', 'words judged', n.tokens),
    ],
    examples: (n) => n.examples,
    cli: metricCli<Pick<MetricOptions, 'nonwords'>>({
      name: 'Non-words',
      flags: [
        {
          key: 'nonwords',
          name: 'nonwords',
          kind: 'flag',
          description:
            "the drafts' non-word rate: the alphabetic words hunspell en_US rejects, names left out (the model " +
            "cards' definition; the full table or a folder's)",
          appliesTo: 'tables',
        },
      ],
      options: (o) => o,
    }),
    note: () =>
      'Non-words: alphabetic words the hunspell en_US dictionary rejects as written and capitalised, names and ' +
      "words with digits left out (the model cards' definition). " +
      ("The model cards' grammatical-sentence rate needs link-grammar, a C library with no JavaScript port: the " +
        'training tools compute it (models/train/fluency.sh).'),
    scoring: {
      pair: (p) => p.nonwords ?? { rate: null, nonwords: 0, tokens: 0, examples: [] },
      // Tokens pooled over the drafts, as the model cards count them.
      pool: (parts) => {
        const tokens = sum(parts, (p) => p.tokens);
        const nonwords = sum(parts, (p) => p.nonwords);
        return {
          rate: tokens > 0 ? nonwords / tokens : null,
          nonwords,
          tokens,
          examples: firstDistinct(
            parts.map((p) => p.examples),
            12,
          ),
        };
      },
    },
  },
  perplexity: {
    label: 'Perplexity under the story model',
    option: (o) => o.perplexity === true,
    values: (p) => [
      score('perplexity', 'Perplexity per word', p.perWord, 1, { better: 'lower', ...HEADLINE }),
      score('perplexity-token', 'Perplexity per token', p.perToken, 1, { better: 'lower' }),
    ],
    note: (p) =>
      `Perplexity: how likely the built-in story model (${p.model}), a model of short simple stories, finds ` +
      `the draft (${p.tokens} tokens); it does not compare the draft with the reference.`,
    // Tokens pooled over the drafts, as the story paper does.
    scoring: { external: 'the story model', pool: (parts) => pooledPerplexity(parts, parts[0]?.model ?? '') },
    // The CLI runs the story model (cli/draftPerplexity.ts) and fills the field.
    cli: metricCli<Pick<MetricOptions, 'perplexity'>>({
      name: 'Perplexity',
      flags: [
        {
          key: 'perplexity',
          name: 'perplexity',
          kind: 'flag',
          description:
            "the drafts' perplexity under the built-in story language model from --models (the full table or a " +
            "folder's)",
          appliesTo: 'tables',
        },
      ],
    }),
  },
  bertscore: {
    label: 'BERTScore (token embeddings of the chosen encoder)',
    option: (o) => o.bertscore !== undefined,
    values: (b) => [
      score('bertscore-f1', 'BERTScore F1', b.f1, 4, HEADLINE),
      score('bertscore-precision', 'BERTScore precision', b.precision, 4),
      score('bertscore-recall', 'BERTScore recall', b.recall, 4),
    ],
    note: (b) =>
      `BERTScore: each token of the draft matched to its most similar token of the reference (cosine of ` +
      `${b.model}'s layer ${b.layer} embeddings, ${b.dtype}) and back, ` +
      `${b.idf ? 'weighted by idf over the references' : 'every token weighing alike'}; no baseline rescaling, ` +
      `so numbers are not comparable across encoders.`,
    // The mean over the drafts, as bert_score reports a corpus.
    scoring: { external: 'the chosen encoder', pool: poolBertScore },
    summarySignature: { name: 'BERTScore', of: (b) => b.signature },
    // The CLI runs the encoder (cli/draftBertScore.ts) and fills the field; with -m, BERTScore alone.
    cli: metricCli<{ model?: string; idf?: boolean }>({
      name: 'BERTScore',
      names: { bertscore: ['bertscore'] },
      help: 'bertscore: BERTScore alone (with --bertscore-model)',
      flags: [
        {
          key: 'model',
          name: 'bertscore-model',
          kind: 'text',
          value: 'MODEL',
          description:
            "adds BERTScore under this encoder: a Hugging Face Hub id in transformers.js's layout (BERT " +
            'family, e.g. Xenova/all-MiniLM-L6-v2), downloaded once into $DRAFTSMITH_CACHE, or a folder (the ' +
            "full table, a folder's, or -m bertscore)",
          appliesTo: 'tables',
        },
        {
          key: 'idf',
          name: 'bertscore-idf',
          kind: 'flag',
          description:
            "BERTScore weighs each token by its idf over the references (bert_score's idf; the full table and " +
            '-m bertscore)',
        },
      ],
    }),
  },
};

/** BLEU's flags: Score Draft's BLEU options, and sacreBLEU's effective order. */
type BleuFlags = Pick<
  MetricOptions,
  'lowercase' | 'tokenize' | 'smoothMethod' | 'smoothValue' | 'maxNgramOrder' | 'effectiveOrder'
>;
/** ROUGE's flags: Score Draft's stemming, and the -m workflow's references and sentences. */
interface RougeFlags {
  stem?: boolean;
  jackknife?: boolean;
  split?: 'newline' | 'nlp';
}

/** BLEUScore's verbose part (sacrebleu/metrics/bleu.py) and the numbers --json adds beside the score. */
function bleuDetails(b: BleuScore) {
  return {
    text:
      ` ${b.precisions.map((p) => p.toFixed(1)).join('/')} (BP = ${b.brevityPenalty.toFixed(3)} ratio = ` +
      `${b.ratio.toFixed(3)} hyp_len = ${b.hypLength} ref_len = ${b.refLength})`,
    fields: {
      precisions: b.precisions,
      brevityPenalty: b.brevityPenalty,
      ratio: b.ratio,
      hypLength: b.hypLength,
      refLength: b.refLength,
    },
  };
}

/** BERTScore of several drafts: the mean of their P, R and F, the encoder's description from the first. */
function poolBertScore(parts: readonly BertScoreSummary[]): BertScoreSummary {
  const first = parts[0] ?? { model: '', layer: 0, idf: false, dtype: '', signature: '' };
  return {
    ...meanPrf(parts),
    model: first.model,
    layer: first.layer,
    idf: parts.every((p) => p.idf),
    dtype: first.dtype,
    signature: first.signature,
  };
}

export const METRIC_KEYS = Object.keys(METRICS) as MetricKey[];

/** Whether the options turn the metric on. */
const wanted = (key: MetricKey, options: MetricOptions) => METRICS[key].option?.(options) ?? true;

/** A metric a scores object carries, with its numbers. */
export interface ShownMetric {
  key: MetricKey;
  label: string;
  values: MetricValue[];
  examples?: readonly string[];
  note?: string;
}

function shown<K extends MetricKey>(key: K, s: CorpusScores): ShownMetric | undefined {
  const summary = s[key];
  if (summary === undefined) return undefined;
  const d: MetricDescriptor<K> = METRICS[key];
  const value = summary as Summary<K>;
  return {
    key,
    label: d.label,
    values: d.values(value),
    ...(d.examples ? { examples: d.examples(value) } : {}),
    ...(d.note ? { note: d.note(value) } : {}),
  };
}

/** The metrics `s` carries, in the list's order. */
export function shownMetrics(s: CorpusScores): ShownMetric[] {
  return METRIC_KEYS.flatMap((k) => shown(k, s) ?? []);
}

/** A value as every table writes it: its decimals, × 100 where a percentage; 'n/a' where undefined. */
export function formatValue(v: MetricValue): string {
  const x = shownNumber(v);
  return x === null ? 'n/a' : x.toFixed(v.digits);
}

/** The number a table shows and an export writes (× 100 for a percentage). */
export const shownNumber = (v: MetricValue): number | null =>
  v.value === null ? null : v.percent ? v.value * 100 : v.value;

/** Each metric's pooled parts, or undefined when it cannot be pooled here (not scored). */
type PartsOf = <K extends MetricKey>(key: K, d: MetricDescriptor<K>) => Summary<K>[] | undefined;

/**
 * The one aggregation: every metric the options ask for over a corpus of pairs. A corpus metric is
 * computed over all the texts; the others pool the parts `partsOf` gives (each pair's own scores).
 */
function aggregate(
  pairs: readonly { hypothesis: string; reference: string }[],
  partsOf: PartsOf,
  options: MetricOptions,
): CorpusScores {
  const hyps = pairs.map((p) => p.hypothesis);
  const refs = pairs.map((p) => p.reference);
  const out: Partial<Record<keyof CorpusScores, unknown>> = { pairs: pairs.length };
  const one = <K extends MetricKey>(key: K) => {
    const d: MetricDescriptor<K> = METRICS[key];
    if ('corpus' in d.scoring) {
      if (wanted(key, options)) out[key] = d.scoring.corpus(hyps, refs, options);
      return;
    }
    const parts = partsOf(key, d);
    if (parts !== undefined) out[key] = d.scoring.pool(parts);
  };
  for (const key of METRIC_KEYS) one(key);
  return out as CorpusScores;
}

/** Every metric over pairs the engine read (Score Draft: one pair; `draftsmith score`: many). */
export function scoreReadPairs(pairs: readonly ReadPair[], options: MetricOptions): CorpusScores {
  return aggregate(
    pairs,
    (key, d) => ('pair' in d.scoring && wanted(key, options) ? pairs.map((p) => pairScore(d, p, options)) : undefined),
    options,
  );
}

function pairScore<K extends MetricKey>(d: MetricDescriptor<K>, p: ReadPair, options: MetricOptions): Summary<K> {
  if (!('pair' in d.scoring)) throw new Error('not a per-pair metric');
  return d.scoring.pair(p, options);
}

/**
 * The totals of many drafts each scored alone (Score Drafts in Folder's rows): the same numbers as
 * scoring all the pairs together. A metric every row has is pooled from the rows; one some rows lack
 * (asked for after some were scored) is left out.
 */
export function poolScores(
  pairs: readonly { hypothesis: string; reference: string }[],
  rows: readonly CorpusScores[],
  options: MetricOptions,
): CorpusScores {
  return aggregate(
    pairs,
    (key, d) => {
      const parts = rows.map((r) => r[key]);
      const always = d.option === undefined && !('external' in d.scoring);
      if (always || (rows.length > 0 && parts.every((p) => p !== undefined))) return parts as Summary<typeof key>[];
      return undefined;
    },
    options,
  );
}

/** The signatures of the scores these options give (one reference per draft). */
export function scoreSignatures(options: MetricOptions = {}): ScoreResult['signatures'] {
  const out: Partial<ScoreResult['signatures']> = {};
  for (const key of METRIC_KEYS) {
    const sig = METRICS[key].signature;
    if (sig && wanted(key, options)) out[sig.name] = sig.of(options);
  }
  return out as ScoreResult['signatures'];
}

/** The signatures of `scores`: those the options give, and those only the scores know (BERTScore's). */
export function signaturesOf(scores: CorpusScores, options: MetricOptions = {}): ScoreResult['signatures'] {
  const out: Partial<ScoreResult['signatures']> = { ...scoreSignatures(options) };
  const one = <K extends MetricKey>(key: K) => {
    const sig = METRICS[key].summarySignature;
    const s = scores[key];
    if (sig && s !== undefined) out[sig.name] = sig.of(s as Summary<K>);
  };
  for (const key of METRIC_KEYS) one(key);
  return out as ScoreResult['signatures'];
}

/** The sentence-level statistics the two-draft comparison resamples, in the list's order. */
export function sentenceMetrics(options: MetricOptions): StatMetric[] {
  return METRIC_KEYS.flatMap((key) => (wanted(key, options) ? (METRICS[key].sentence?.(options) ?? []) : []));
}

/** The metrics `draftsmith score` offers, each with its CLI, in the list's order. */
export const METRIC_CLIS: readonly { key: MetricKey; cli: MetricCli }[] = METRIC_KEYS.flatMap((key) => {
  const cli = METRICS[key].cli;
  return cli ? [{ key, cli }] : [];
});

/** Every metric's flags, in the list's order: `score`'s options in the command table. */
export const METRIC_FLAGS = METRIC_CLIS.flatMap((m) => m.cli.flags);

/** Every `-m` name, in the list's order. */
export const METRIC_NAMES = METRIC_CLIS.flatMap((m) => Object.keys(m.cli.names ?? {}));

/** The metric an `-m` name stands for, and the parts it scores; undefined for no metric's name. */
export function namedMetric(name: string): { key: MetricKey; parts: readonly string[] } | undefined {
  const lower = name.toLowerCase();
  for (const { key, cli } of METRIC_CLIS)
    for (const [n, parts] of Object.entries(cli.names ?? {})) if (n.toLowerCase() === lower) return { key, parts };
  return undefined;
}
