/**
 * Scores drafts against references with every metric of extension/engine/metrics: one pair for
 * Score Draft in the editor, thousands for `draftsmith score` on the command line. Both go through
 * scoreCorpus, so the panel and the CLI print the same numbers for the same texts.
 */
import type {
  CoherenceRequest, CoherenceResult, CorpusScores, ScoreOptions, ScoreRequest, ScoreResult, SentenceScore,
} from '../../protocol';
import { EngineError } from '../errors';
import { corpusBleu, sentenceBleu } from '../metrics/bleu';
import { coherence } from '../metrics/coherence';
import { diversity } from '../metrics/diversity';
import { corpusRouge, rougeL, rougeN } from '../metrics/rouge';
import { entityWordCount, substantiality } from '../metrics/substantiality';
import { analyse, type NlpSentence } from '../text/nlp';

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
    throw new EngineError('bad-input',
      `The draft (${h} words) and the reference (${r} words) are too long to compare word by word; select a part of either.`);
  }
}

/** Every metric over a corpus of (draft, reference) pairs. */
export function scoreCorpus(pairs: readonly ScorePair[], options: ScoreOptions = {}, hooks: ScoreHooks = {}): CorpusScores {
  const hypLines: string[] = [];
  const refLines: string[] = [];
  const hypSentences: NlpSentence[][] = [];
  let coherenceSum = 0;
  let coherenceCount = 0;
  pairs.forEach((pair, i) => {
    if (i % 50 === 0) {
      hooks.checkCancelled?.();
      hooks.progress?.(i, pairs.length);
    }
    checkSize(pair);
    const hyp = analyse(pair.hypothesis);
    const ref = analyse(pair.reference);
    hypSentences.push(hyp);
    hypLines.push(linesOf(hyp));
    refLines.push(linesOf(ref));
    const { L } = coherence(ref, hyp);
    if (L !== null) {
      coherenceSum += L;
      coherenceCount++;
    }
  });
  hooks.progress?.(pairs.length, pairs.length);
  const bleu = corpusBleu(pairs.map((p) => p.hypothesis), [pairs.map((p) => p.reference)], { lowercase: options.lowercase });
  return {
    pairs: pairs.length,
    bleu: {
      score: bleu.score, precisions: bleu.precisions, brevityPenalty: bleu.brevityPenalty, ratio: bleu.ratio,
      hypLength: bleu.hypLength, refLength: bleu.refLength,
    },
    rouge: corpusRouge(hypLines, refLines, { stem: options.stem }),
    diversity: diversity(pairs.map((p) => p.hypothesis)),
    substantiality: substantiality(hypSentences),
    coherenceL: coherenceCount > 0 ? coherenceSum / coherenceCount : null,
  };
}

/** Per draft sentence: the reference sentence it matches best (ROUGE-L F1) and its scores against it. */
function sentenceScores(hyp: readonly NlpSentence[], ref: readonly NlpSentence[], options: ScoreOptions): SentenceScore[] {
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
      bleu: sentenceBleu(sentence.text, [referenceText], { lowercase: options.lowercase }).score,
      rouge1: rougeN(sentence.text, referenceText, 1, { stem: options.stem }).f1,
      rougeL: Math.max(bestF1, 0),
      entityWords: entityWordCount(sentence),
    };
  });
}

function requireText(text: string, what: string): void {
  if (text.trim().length === 0) throw new EngineError('bad-input', `The ${what} is empty.`);
}

export function scoreDraft(request: ScoreRequest, hooks: ScoreHooks = {}): ScoreResult {
  const started = performance.now();
  requireText(request.hypothesis, 'draft');
  requireText(request.reference, 'reference');
  const options = request.options ?? {};
  const scores = scoreCorpus([request], options, hooks);
  const hyp = analyse(request.hypothesis);
  const ref = analyse(request.reference);
  return {
    op: 'score',
    hypothesisName: request.hypothesisName ?? 'draft',
    referenceName: request.referenceName ?? 'reference',
    scores,
    coherence: coherence(ref, hyp),
    sentences: sentenceScores(hyp, ref, options),
    elapsedMs: performance.now() - started,
  };
}

export function checkCoherence(request: CoherenceRequest): CoherenceResult {
  const started = performance.now();
  requireText(request.output, 'draft');
  requireText(request.source, 'source');
  return {
    op: 'coherence',
    outputName: request.outputName ?? 'draft',
    sourceName: request.sourceName ?? 'source',
    coherence: coherence(analyse(request.source), analyse(request.output)),
    elapsedMs: performance.now() - started,
  };
}
