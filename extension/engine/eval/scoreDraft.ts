/**
 * Scores drafts against references with every metric of eval/metricList.ts: one pair for Score
 * Draft in the editor, thousands for `draftsmith score` on the command line. Both go through
 * scoreCorpus, so the panel and the CLI print the same numbers for the same texts. Here each pair
 * is read (sentences, parts of speech, entity words, non-words: wink-nlp, WordNet, hunspell); the
 * metric list computes and pools the scores.
 */
import type {
  CoherenceRequest,
  CoherenceResult,
  CorpusScores,
  ScoreOptions,
  ScoreRequest,
  ScoreResult,
  SentenceScore,
} from '../../protocol';
import { EngineError } from '../errors';
import { sentenceBleu } from '../metrics/bleu';
import { coherence } from '../metrics/coherence';
import { rougeL, rougeN } from '../metrics/rouge';
import { entityWordCount, substantiality } from '../metrics/substantiality';
import { nonwordRate } from '../metrics/nonwords';
import { analyse, type NlpSentence } from '../text/nlp';
import { proseNotes, proseOf } from '../text/proseText';
import { compareDrafts } from './draftComparison';
import { scoreReadPairs, scoreSignatures, sentenceMetrics, type ReadPair } from './metricList';
import { bleuOptionsOf, type MetricOptions } from './scoreOptions';

export interface ScorePair {
  hypothesis: string;
  reference: string;
}

export interface ScoreHooks {
  /** Called every few pairs with how many are done. */
  progress?: (done: number, total: number) => void;
  /** Throws to stop (a cancel). */
  checkCancelled?: () => void;
}

/** Sentences one per line: what ROUGE-Lsum splits on (rouge-score's split_summaries does the same with NLTK). */
const linesOf = (sentences: readonly NlpSentence[]) => sentences.map((s) => s.text).join('\n');

/** ROUGE-L, -Lsum and -W compare every word of a draft with every word of its reference (~70 ns a
 * pair of words here); past this product (two 7,000-word documents, ~4 s) a user would rather
 * score a part. */
const MAX_WORD_PRODUCT = 50_000_000;
const wordCount = (text: string) => text.split(/\s+/u).filter((w) => w.length > 0).length;

function checkSize(pair: ScorePair): void {
  const h = wordCount(pair.hypothesis);
  const r = wordCount(pair.reference);
  if (h * r > MAX_WORD_PRODUCT) {
    throw new EngineError(
      'bad-input',
      `The draft (${h} words) and the reference (${r} words) are too long to compare word by word; select a ` +
        `part of either.`,
    );
  }
}

/** One pair read once: what the metrics read (ReadPair) and its sentences with their parts of speech,
 * which Score Draft's per-sentence view and two-draft comparison use. */
interface AnalysedPair extends ReadPair {
  hyp: NlpSentence[];
  ref: NlpSentence[];
}

function analysePair(pair: ScorePair, options: MetricOptions): AnalysedPair {
  checkSize(pair);
  const hyp = analyse(pair.hypothesis);
  const ref = analyse(pair.reference);
  return {
    hypothesis: pair.hypothesis,
    reference: pair.reference,
    hypothesisLines: linesOf(hyp),
    referenceLines: linesOf(ref),
    coherence: coherence(ref, hyp),
    substantiality: substantiality([hyp]),
    ...(options.nonwords ? { nonwords: nonwordRate([pair.hypothesis]) } : {}),
    hyp,
    ref,
  };
}

/** Every metric over a corpus of (draft, reference) pairs. */
export function scoreCorpus(
  pairs: readonly ScorePair[],
  options: MetricOptions = {},
  hooks: ScoreHooks = {},
): CorpusScores {
  const analysed = pairs.map((pair, i) => {
    if (i % 50 === 0) {
      hooks.checkCancelled?.();
      hooks.progress?.(i, pairs.length);
    }
    return analysePair(pair, options);
  });
  hooks.progress?.(pairs.length, pairs.length);
  return scoreReadPairs(analysed, options);
}

/** Per draft sentence: the reference sentence it matches best (ROUGE-L F1) and its scores against it. */
function sentenceScores(
  hyp: readonly NlpSentence[],
  ref: readonly NlpSentence[],
  options: ScoreOptions,
): SentenceScore[] {
  const bleuOpts = bleuOptionsOf(options);
  return hyp.map((sentence, index) => {
    let best: number | null = null;
    let bestF1 = -1;
    ref.forEach((r, j) => {
      const f1 = rougeL(sentence.text, r.text, { stem: options.stem }).f1;
      if (f1 > bestF1) {
        bestF1 = f1;
        best = j;
      }
    });
    const referenceText = best === null ? '' : ref[best].text;
    return {
      index,
      text: sentence.text,
      reference: best,
      referenceText,
      bleu: sentenceBleu(sentence.text, [referenceText], bleuOpts).score,
      rouge1: rougeN(sentence.text, referenceText, 1, { stem: options.stem }).f1,
      rougeL: Math.max(bestF1, 0),
      entityWords: entityWordCount(sentence),
    };
  });
}

function requireText(text: string, what: string): void {
  if (text.trim().length === 0) throw new EngineError('bad-input', `The ${what} is empty.`);
}

/** "README.md (the draft)", or "The draft" when the text has no name: who a read note is about. */
const labelOf = (name: string | undefined, role: string) => (name ? `${name} (the ${role})` : `The ${role}`);

/** A text of a request, Markdown ones read to their prose: an empty prose is refused by name. */
function proseFor(text: string, format: 'markdown' | 'plain' | undefined, what: string) {
  requireText(text, what);
  const prose = proseOf(text, format ?? 'plain');
  if (prose.format === 'markdown' && prose.text.trim().length === 0) {
    throw new EngineError(
      'bad-input',
      `The ${what} has no prose to compare: read as Markdown, it is all code, tables, HTML or headings without text.`,
    );
  }
  return prose;
}

/** The texts of a request as its metrics read them (Markdown ones as their prose): what a model-based metric scores. */
export function scoredTexts(request: ScoreRequest): { hypothesis: string; reference: string; second?: string } {
  return {
    hypothesis: proseFor(request.hypothesis, request.hypothesisFormat, 'draft').text,
    reference: proseFor(request.reference, request.referenceFormat, 'reference').text,
    ...(request.second
      ? { second: proseFor(request.second.hypothesis, request.second.format, 'second draft').text }
      : {}),
  };
}

export function scoreDraft(original: ScoreRequest, hooks: ScoreHooks = {}): ScoreResult {
  const started = performance.now();
  // Markdown texts are scored on their prose (headings' text, paragraphs, list items): a README's
  // code and tables never reach a metric, and the result says what was skipped.
  const hyp = proseFor(original.hypothesis, original.hypothesisFormat, 'draft');
  const ref = proseFor(original.reference, original.referenceFormat, 'reference');
  const sec =
    original.second === undefined
      ? undefined
      : proseFor(original.second.hypothesis, original.second.format, 'second draft');
  const request: ScoreRequest = {
    ...original,
    hypothesis: hyp.text,
    reference: ref.text,
    ...(original.second === undefined || sec === undefined
      ? {}
      : { second: { ...original.second, hypothesis: sec.text } }),
  };
  const readNotes = proseNotes([
    { label: labelOf(original.hypothesisName, 'draft'), prose: hyp },
    ...(sec ? [{ label: labelOf(original.second?.name, 'second draft'), prose: sec }] : []),
    { label: labelOf(original.referenceName, 'reference'), prose: ref },
  ]);
  const options = request.options ?? {};
  hooks.checkCancelled?.();
  const a = analysePair(request, options);
  const hypothesisName = request.hypothesisName ?? 'draft';
  const scores = scoreReadPairs([a], options);
  const sentences = sentenceScores(a.hyp, a.ref, options);
  let comparison: ScoreResult['comparison'];
  if (request.second !== undefined) {
    requireText(request.second.hypothesis, 'second draft');
    hooks.checkCancelled?.();
    const b = analysePair({ hypothesis: request.second.hypothesis, reference: request.reference }, options);
    const first = { name: hypothesisName, text: request.hypothesis, scores, sentences };
    const second = {
      name: request.second.name ?? 'second draft',
      text: request.second.hypothesis,
      scores: scoreReadPairs([b], options),
      sentences: sentenceScores(b.hyp, b.ref, options),
    };
    comparison = compareDrafts(first, second, request.reference, a.ref, sentenceMetrics(options));
  }
  return {
    op: 'score',
    hypothesisName,
    referenceName: request.referenceName ?? 'reference',
    scores,
    coherence: a.coherence,
    sentences,
    signatures: scoreSignatures(options),
    elapsedMs: performance.now() - started,
    ...(comparison === undefined ? {} : { comparison }),
    ...(readNotes === undefined ? {} : { readNotes }),
  };
}

export function checkCoherence(request: CoherenceRequest): CoherenceResult {
  const started = performance.now();
  // Markdown: sentences come from the prose blocks only (a code line is no sentence).
  const output = proseFor(request.output, request.outputFormat, 'draft');
  const source = proseFor(request.source, request.sourceFormat, 'source');
  const readNotes = proseNotes([
    { label: labelOf(request.outputName, 'draft'), prose: output },
    { label: labelOf(request.sourceName, 'source'), prose: source },
  ]);
  return {
    op: 'coherence',
    outputName: request.outputName ?? 'draft',
    sourceName: request.sourceName ?? 'source',
    coherence: coherence(analyse(source.text), analyse(output.text)),
    elapsedMs: performance.now() - started,
    ...(readNotes === undefined ? {} : { readNotes }),
  };
}
